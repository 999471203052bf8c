"""The Variables panel's messages on a real NotebookSession with a real kernel: get_variables / variables,
the refresh after each run (after its reply, once for a queue of runs), get_data_page / data_page on a
10-million-row frame, clear errors; and the bench on 2,000 names (numbers printed, in docs/notebooks.md)."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from ghostbook import protocol as p
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.session.runtime import NotebookSession
from ghostbook.session.state import NotebookData

pytestmark = pytest.mark.timeout(180)


class Tab:
    def __init__(self, id: str = "tab1") -> None:
        self.id = id
        self.messages: list[dict[str, Any]] = []
        self.sizes: dict[str, int] = {}

    def send(self, text: str, key: str | None = None) -> None:
        message = json.loads(text)
        self.messages.append(message)
        if message.get("ref"):
            self.sizes[message["ref"]] = len(text)

    def reply(self, ref: str) -> dict[str, Any] | None:
        return next((m for m in self.messages if m.get("ref") == ref), None)

    def pushed(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "variables" and m["ref"] is None]


async def until(pred: Callable[[], object], seconds: float = 60) -> None:
    for _ in range(int(seconds / 0.02)):
        if pred():
            return
        await asyncio.sleep(0.02)
    raise TimeoutError("condition not met")


def notebook(*sources: str) -> dict[str, Any]:
    cells = [{"cell_type": "code", "id": f"c{i}", "source": source, "metadata": {}, "outputs": [],
              "execution_count": None} for i, source in enumerate(sources)]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest_asyncio.fixture
async def session(tmp_path: Path) -> AsyncIterator[NotebookSession]:
    nb = notebook("a = 1", "import pandas as pd\nframe = pd.DataFrame({'x': [2, 1, 3], 'y': list('bac')})",
                  "b = [1, 2]", "c = 'three'", "import time; time.sleep(0.3); d = 4")
    session = NotebookSession(NotebookData.from_nbformat("n.ipynb", nb), tmp_path / "n.ipynb",
                              lambda on_event, name, cwd: KernelAdapter(on_event, kernel_name=name, cwd=cwd))
    session.start()
    try:
        await until(lambda: session.data.kernel.status == "idle")
        yield session
    finally:
        await session.close()


async def ask(session: NotebookSession, tab: Tab, message: p.ClientMessage, seconds: float = 60) -> dict[str, Any]:
    assert message.ref is not None
    await session.handle(tab, message)
    await until(lambda: tab.reply(message.ref or "") is not None, seconds)
    reply = tab.reply(message.ref)
    assert reply is not None
    return reply


async def run(session: NotebookSession, tab: Tab, *cell_ids: str) -> None:
    await session.handle(tab, p.ExecuteCells(type="execute_cells", cell_ids=list(cell_ids)))
    await until(lambda: session.data.running is None and not session.data.queue)


def names(message: dict[str, Any]) -> list[str]:
    return [v["name"] for v in message["variables"]]


async def test_the_list_follows_runs_for_watching_tabs_only(session: NotebookSession) -> None:
    watching, other = Tab("w"), Tab("o")
    session.add_client(watching, [])
    session.add_client(other, [])
    first = await ask(session, watching, p.GetVariables(type="get_variables", ref="v1"))
    assert first["variables"] == [] and first["busy"] is False
    await run(session, watching, "c0", "c1")
    await until(lambda: watching.pushed() and names(watching.pushed()[-1]) == ["a", "frame"])
    frame = watching.pushed()[-1]["variables"][1]
    assert frame["type"] == "DataFrame" and frame["shape"] == [3, 2] and frame["viewer"] and frame["size"] > 0
    assert not other.pushed()  # only tabs with the panel open pay for the list
    pushes, refreshes = len(watching.pushed()), session.variables.refreshes
    await run(session, watching, "c0")  # `a = 1` again: the same list, asked for but not sent
    await until(lambda: session.variables.refreshes > refreshes)
    assert len(watching.pushed()) == pushes
    await session.handle(watching, p.UnwatchVariables(type="unwatch_variables"))
    await asyncio.sleep(0.1)
    before = len(watching.pushed())
    await run(session, watching, "c2")
    await asyncio.sleep(0.5)
    assert len(watching.pushed()) == before


async def test_one_refresh_after_a_queue_of_runs_never_before_a_run(session: NotebookSession) -> None:
    tab = Tab()
    session.add_client(tab, [])
    await ask(session, tab, p.GetVariables(type="get_variables", ref="v"))
    start = session.variables.refreshes
    await session.handle(tab, p.RunAll(type="run_all"))
    await until(lambda: session.variables.refreshes > start)
    await asyncio.sleep(0.5)
    assert session.variables.refreshes == start + 1  # five cells, one list: after the last one
    assert names(tab.pushed()[-1]) == ["a", "b", "c", "d", "frame"]


async def test_a_running_cell_gets_busy_not_a_wait(session: NotebookSession) -> None:
    tab = Tab()
    session.add_client(tab, [])
    await session.handle(tab, p.ExecuteCells(type="execute_cells", cell_ids=["c4"]))
    reply = await ask(session, tab, p.GetVariables(type="get_variables", ref="v"), seconds=0.25)
    assert reply["busy"] is True and reply["variables"] is None
    await until(lambda: tab.pushed() and names(tab.pushed()[-1]) == ["d"])  # the list follows the run's end


async def test_data_page_errors_are_clear(session: NotebookSession) -> None:
    tab = Tab()
    session.add_client(tab, [])
    await run(session, tab, "c1", "c2")
    gone = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="g", name="nothing"))
    assert gone == {"type": "error", "ref": "g",
                    "message": "cannot read nothing: NameError: 'nothing' is no longer defined in the kernel"}
    not_table = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="l", name="b"))
    assert not_table["message"] == ("cannot read b: TypeError: 'b' is a list, not a table "
                                    "(a DataFrame, Series or 1-D/2-D array)")
    page = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="p", name="frame", sort=0))
    assert page["type"] == "data_page" and page["type_name"] == "DataFrame"
    assert page["rows"] == [["1", "1", "a"], ["0", "2", "b"], ["2", "3", "c"]]
    with pytest.raises(p.ProtocolError):  # a name, never an expression
        p.parse_client_message(json.dumps({"type": "get_data_page", "name": "frame.drop()"}))
    await session.kernel.shutdown()  # type: ignore[union-attr]
    dead = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="d", name="frame"))
    assert dead["message"] == "cannot read frame: The kernel is not running (state: dead)"
    listed = await ask(session, tab, p.GetVariables(type="get_variables", ref="v"))
    assert listed["message"] == "cannot list the variables: The kernel is not running (state: dead)"


async def test_ten_million_rows_open_at_once_one_page_on_the_wire(session: NotebookSession) -> None:
    tab = Tab()
    session.add_client(tab, [])
    session.data.cells[0].source = ("import numpy as np, pandas as pd\n"
                                    "big = pd.DataFrame({'x': np.random.default_rng(0).random(10_000_000), "
                                    "'n': np.arange(10_000_000)})")
    await run(session, tab, "c0")
    started = time.perf_counter()
    first = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="p1", name="big", start=0, count=50))
    took = time.perf_counter() - started
    print(f"\n10M rows: first page in {took * 1000:.0f} ms ({first['ms']} ms in the kernel), "
          f"{tab.sizes['p1']} bytes on the wire")
    assert first["total"] == 10_000_000 and len(first["rows"]) == 50
    assert tab.sizes["p1"] < 5_000  # one page's rows, not the frame (its time is printed, not asserted)
    nxt = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="p2", name="big", start=50, count=50))
    assert nxt["rows"][0][0] == "50"
    started = time.perf_counter()
    top = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="s1", name="big", count=50, sort=0,
                                                ascending=False), seconds=120)
    first_sorted = time.perf_counter() - started
    second = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="s2", name="big", start=50, count=50,
                                                   sort=0, ascending=False))
    values = [float(row[1]) for row in top["rows"] + second["rows"]]
    assert values == sorted(values, reverse=True) and values[0] > 0.99999
    started = time.perf_counter()
    last = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="s3", name="big", start=9_999_950,
                                                 count=50, sort=0, ascending=False), seconds=120)
    whole_sort = time.perf_counter() - started
    started = time.perf_counter()
    await ask(session, tab, p.GetDataPage(type="get_data_page", ref="s4", name="big", start=9_999_900, count=50,
                                          sort=0, ascending=False))
    cached = time.perf_counter() - started
    print(f"10M rows sorted by x: first page {first_sorted * 1000:.0f} ms (found by argpartition), last page "
          f"{whole_sort * 1000:.0f} ms (the whole sort), the page before it {cached * 1000:.0f} ms (kept order)")
    assert float(last["rows"][-1][1]) < 0.00001


async def test_bench_2000_names_run_time_with_and_without_the_panel(session: NotebookSession) -> None:
    """Prints the run's time (execute_cells -> its cell idle) with and without a watching tab, and the list's
    own time on 2,000 names."""
    tab = Tab()
    session.add_client(tab, [])
    session.data.cells[0].source = ("import numpy as np\n"
                                    "for i in range(2000):\n"
                                    "    globals()[f'v{i:04d}'] = [i] * (i % 7) if i % 3 else np.zeros(i % 50)\n")
    session.data.cells[2].source = "x = 1"
    await run(session, tab, "c0")

    async def timed_runs(count: int = 15) -> list[float]:
        times = []
        for _ in range(count):
            started = time.perf_counter()
            await run(session, tab, "c2")
            times.append((time.perf_counter() - started) * 1000)
            await until(lambda: not session.variables._running, 30)  # as a user: the next run comes later
            await asyncio.sleep(0.05)
        return times

    closed = await timed_runs()
    listed = await ask(session, tab, p.GetVariables(type="get_variables", ref="open"))
    assert listed["total"] == 2002 and len(listed["variables"]) == 2002  # v0000..v1999, i and x
    refreshes = session.variables.refreshes
    opened = await timed_runs()
    assert session.variables.refreshes >= refreshes + 10
    query = []
    for i in range(10):
        started = time.perf_counter()
        reply = await ask(session, tab, p.GetVariables(type="get_variables", ref=f"q{i}"))
        query.append(((time.perf_counter() - started) * 1000, reply["ms"]))
    print(f"\n2,000 names: run without the panel median {statistics.median(closed):.1f} ms, "
          f"with the panel open {statistics.median(opened):.1f} ms; "
          f"the list: {statistics.median(q[0] for q in query):.1f} ms round trip, "
          f"{statistics.median(q[1] for q in query):.1f} ms in the kernel, {tab.sizes['open']} bytes")
    assert statistics.median(opened) < statistics.median(closed) + 30


async def test_the_same_panel_on_a_kernel_gateway(tmp_path: Path) -> None:
    """A remote kernel (Jupyter Kernel Gateway on loopback) answers through the same kernel-side code."""
    from ghostbook.kernel.gateway import GatewayKernelAdapter
    from ghostbook.kernel.gateway_client import GatewayConfig

    from tests.kernel.kernel_gateway import KernelGateway

    gateway = KernelGateway().start()
    config = GatewayConfig(gateway.url, gateway.token)
    nb = notebook("import pandas as pd\nremote = pd.DataFrame({'v': [3, 1, 2]})\nn = 7")
    session = NotebookSession(NotebookData.from_nbformat("n.ipynb", nb), tmp_path / "n.ipynb",
                              lambda on_event, name, cwd: GatewayKernelAdapter(on_event, gateway=config,
                                                                               kernel_name=name, cwd=cwd))
    tab = Tab()
    session.add_client(tab, [])
    session.start()
    try:
        await until(lambda: session.data.kernel.status == "idle")
        await ask(session, tab, p.GetVariables(type="get_variables", ref="v"))
        await run(session, tab, "c0")
        await until(lambda: tab.pushed() and names(tab.pushed()[-1]) == ["n", "remote"])
        page = await ask(session, tab, p.GetDataPage(type="get_data_page", ref="p", name="remote", sort=0,
                                                     ascending=False))
        assert page["total"] == 3 and [r[1] for r in page["rows"]] == ["3", "2", "1"]
    finally:
        await session.close()
        gateway.kill()
