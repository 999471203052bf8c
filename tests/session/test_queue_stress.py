"""1,000 back-to-back runs through the websocket: the queue never stalls and no output is lost (issue 14.1).

Three cells with different kinds of output are run again the moment they report idle, sometimes all
three queued at once, with completions and inspects in flight. The session refreshes the kernel
namespace summary (a silent execution of its own) once the kernel has been free for a moment after a run:
now and then the test pauses about that long, so that the next run meets the refresh in the kernel.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx
import pytest

from tests.conftest import RunningServer
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(180)

RUNS = 1000
STALL = 10.0  # seconds a run may take before it counts as stalled (a run takes ~25 ms)
CELLS = [
    ("a = 1 + 1\na", [{"output_type": "execute_result", "data": {"text/plain": "2"}}]),
    ("print('b', a)", [{"output_type": "stream", "name": "stdout", "text": "b 2\n"}]),
    ("from IPython.display import HTML, display\ndisplay(HTML('<b>c</b>'))\n3",
     [{"output_type": "display_data", "data": {"text/html": "<b>c</b>"}},
      {"output_type": "execute_result", "data": {"text/plain": "3"}}]),
]


def essentials(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keep = ("output_type", "name", "text")
    shown = []
    for output in outputs:
        entry = {k: output[k] for k in keep if k in output}
        if "data" in output:
            entry["data"] = {k: v for k, v in output["data"].items() if k != "text/plain" or len(output["data"]) == 1}
        shown.append(entry)
    return shown


class Runner:
    """Drives one tab: runs cells, fires intellisense requests, checks every finished run."""

    def __init__(self, client: NotebookClient, ids: list[str]) -> None:
        self.client, self.ids = client, ids
        self.runs = 0
        self.last_count = 0
        self.pending_refs: set[str] = set()

    async def run(self, indices: list[int], ref: int) -> None:
        ids = [self.ids[i] for i in indices]
        await self.client.send({"type": "execute_cells", "cell_ids": ids})
        if ref % 2 == 0:
            await self.client.send({"type": "complete", "ref": f"c{ref}", "cell_id": ids[0], "cursor": 1})
            self.pending_refs.add(f"c{ref}")
        if ref % 3 == 0:
            await self.client.send({"type": "inspect", "ref": f"i{ref}", "cell_id": ids[-1], "cursor": 1})
            self.pending_refs.add(f"i{ref}")
        for index, cell_id in zip(indices, ids, strict=True):
            try:
                state = await self.client.wait_idle(cell_id, timeout=STALL)
            except TimeoutError:
                pytest.fail(f"run {self.runs} of cell {index} stalled: {self.client.seen[-6:]}")
            self._check(index, cell_id, state)

    def _check(self, index: int, cell_id: str, state: dict[str, Any]) -> None:
        assert essentials(self.client.outputs_of(cell_id)) == CELLS[index][1], f"run {self.runs}, cell {index}"
        assert state["execution_count"] == self.last_count + 1 or self.last_count == 0, f"run {self.runs} lost"
        self.last_count = state["execution_count"]
        self.runs += 1
        for message in self.client.seen:
            if message["type"] in ("complete_reply", "inspect_reply", "error"):
                self.pending_refs.discard(message.get("ref") or "")
        assert not [m for m in self.client.seen if m["type"] == "error"]
        self.client.seen.clear()


def test_thousand_back_to_back_runs_over_three_cells(server: RunningServer) -> None:
    auth = {"Authorization": f"token {server.token}"}
    created = httpx.post(server.base + "/api/contents", json={"dir": "", "name": "stress.ipynb"}, headers=auth)
    assert created.status_code == 201, created.text
    path = created.json()["path"]

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        first = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await client.send({"type": "set_source", "cell_id": first, "source": CELLS[0][0]})
        for index, (source, _) in enumerate(CELLS[1:], start=1):
            await client.send({"type": "insert_cell", "index": index, "cell_type": "code", "source": source})
        ids = [first] + [(await client.expect("cell_inserted"))["cell"]["id"] for _ in CELLS[1:]]
        if not any(m["type"] == "kernel_status" and m["kernel"]["status"] == "idle" for m in client.seen):
            await client.expect_kernel("idle")
        client.seen.clear()
        runner = Runner(client, ids)
        started, ref = time.monotonic(), 0
        while runner.runs < RUNS:
            ref += 1
            if ref % 20 == 0:  # the session's namespace refresh starts after 0.25 s of a free kernel
                await asyncio.sleep(random.uniform(0.24, 0.30))
            if ref % 5 == 1:  # all three queued at once (first of all: cell 1 needs `a`)
                await runner.run([0, 1, 2], ref)
            else:  # each again as soon as it is idle
                await runner.run([ref % 3], ref)
        async with asyncio.timeout(STALL):
            while runner.pending_refs:
                message = await client.expect("complete_reply") if any(r.startswith("c") for r in runner.pending_refs) \
                    else await client.expect("inspect_reply")
                runner.pending_refs.discard(message["ref"])
        print(f"{runner.runs} runs in {time.monotonic() - started:.1f} s")
        await client.close()

    asyncio.run(scenario())
