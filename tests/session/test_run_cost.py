"""What a run costs the session (issue 39): a run's outputs reach the tabs once (the flush at its end sends
nothing new), a throttled stream is still flushed at the end, and the namespace refresh after a run waits
until the kernel has been free for a while, so queued cells never wait behind it. A scripted kernel."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from ghostbook import protocol as p
from ghostbook.kernel.events import ExecutionFinished, ExecutionStarted, KernelEvent, Output, StatusChanged
from ghostbook.session import runtime
from ghostbook.session.runtime import NotebookSession
from ghostbook.session.state import NotebookData

from .test_variables import until

pytestmark = pytest.mark.timeout(30)


class Tab:
    id = "tab"

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def send(self, text: str, key: str | None = None) -> None:
        self.messages.append(json.loads(text))

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == type_]


class ScriptedKernel:
    """Runs nothing: the test plays the kernel's events through `emit`."""

    kernel_name = "python3"
    display_name = "Python 3"

    def __init__(self, on_event: Callable[[KernelEvent], None]) -> None:
        self.emit = on_event
        self.sent: list[str] = []

    async def start(self) -> None:
        self.emit(StatusChanged("idle"))

    def execute(self, code: str) -> str:
        self.sent.append(code)
        return f"m{len(self.sent)}"

    async def interrupt(self) -> None: ...
    async def restart(self) -> None: ...
    async def shutdown(self) -> None: ...
    async def complete(self, code: str, cursor_pos: int) -> dict[str, Any]:
        return {}
    async def inspect(self, code: str, cursor_pos: int, detail_level: int = 0) -> dict[str, Any]:
        return {}
    def send_stdin(self, value: str) -> None: ...
    def send_comm(self, msg_type: str, content: dict[str, Any], *, msg_id: str,
                  metadata: dict[str, Any] | None = None, buffers: Sequence[bytes] = ()) -> None: ...
    async def comm_info(self, target_name: str | None = None) -> dict[str, Any]:
        return {}

    def run(self, msg_id: str, *outputs: tuple[str, dict[str, Any]]) -> None:
        """The kernel's events for one execution, ending it `ok`."""
        self.emit(ExecutionStarted(msg_id, int(msg_id[1:])))
        for msg_type, content in outputs:
            self.emit(Output(msg_id, msg_type, content))
        self.emit(ExecutionFinished(msg_id, "ok", int(msg_id[1:])))


class Namespace:
    def clear(self) -> None: ...
    def outdated(self) -> None: ...


async def session_with(tmp_path: Path, *sources: str) -> tuple[NotebookSession, ScriptedKernel, Tab]:
    cells: list[dict[str, Any]] = [{"cell_type": "code", "id": f"c{i}", "source": source, "metadata": {}, "outputs": [],
              "execution_count": None} for i, source in enumerate(sources)]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    kernels: list[ScriptedKernel] = []

    def factory(on_event: Callable[[KernelEvent], None], name: str, cwd: str) -> ScriptedKernel:
        kernels.append(ScriptedKernel(on_event))
        return kernels[-1]

    session = NotebookSession(NotebookData.from_nbformat("n.ipynb", notebook), tmp_path / "n.ipynb", factory)
    session._spawn(session._start_kernel("python3"))
    await until(lambda: session.data.kernel.status == "idle", 10)
    tab = Tab()
    session.add_client(tab, [])
    return session, kernels[0], tab


def run(*cell_ids: str) -> p.ExecuteCells:
    return p.ExecuteCells(type="execute_cells", cell_ids=list(cell_ids))


RESULT = ("execute_result", {"data": {"text/plain": "2"}, "metadata": {}, "execution_count": 1})


async def test_a_result_reaches_the_tab_once_and_a_rerun_clears_it_first(tmp_path: Path) -> None:
    session, kernel, tab = await session_with(tmp_path, "1+1")
    try:
        await session.handle(tab, run("c0"))
        kernel.run("m1", RESULT)
        sent = [m["outputs"] for m in tab.of("cell_outputs")]
        assert sent == [[RESULT[1] | {"output_type": "execute_result"}]]  # no empty clear, no repeat at the end
        assert tab.messages[-1]["type"] in ("cell_state", "kernel_status")
        tab.messages.clear()
        await session.handle(tab, run("c0"))
        kernel.run("m2", RESULT)
        assert [len(m["outputs"]) for m in tab.of("cell_outputs")] == [0, 1]  # cleared, then the new result
    finally:
        await session.close()


async def test_a_throttled_stream_is_flushed_when_the_run_ends(tmp_path: Path) -> None:
    session, kernel, tab = await session_with(tmp_path, "print(1); print(2)")
    try:
        await session.handle(tab, run("c0"))
        kernel.emit(ExecutionStarted("m1", 1))
        kernel.emit(Output("m1", "stream", {"name": "stdout", "text": "1\n"}))
        kernel.emit(Output("m1", "stream", {"name": "stdout", "text": "2\n"}))  # within the throttle's interval
        assert [m["outputs"][0]["text"] for m in tab.of("cell_outputs")] == ["1\n"]
        kernel.emit(ExecutionFinished("m1", "ok", 1))
        assert [m["outputs"][0]["text"] for m in tab.of("cell_outputs")] == ["1\n", "1\n2\n"]
        idle = [i for i, m in enumerate(tab.messages) if m["type"] == "cell_state" and m["state"] == "idle"]
        assert tab.messages.index(tab.of("cell_outputs")[-1]) < idle[-1]  # the outputs before the idle state
    finally:
        await session.close()


async def test_the_namespace_refresh_waits_until_the_kernel_is_free(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "AFTER_RUN_QUIET", 0.1)
    session, kernel, tab = await session_with(tmp_path, "a = 1", "b = 2", "c = 3")
    refreshed: list[str | None] = []

    async def after_execution(cell_id: str | None) -> None:
        refreshed.append(cell_id)

    session._namespace = Namespace()  # type: ignore[assignment]
    monkeypatch.setattr(session, "_after_execution", after_execution)
    try:
        await session.handle(tab, run("c0", "c1", "c2"))
        kernel.run("m1")
        await asyncio.sleep(0.15)  # c1 runs: no refresh while it does
        assert refreshed == [] and kernel.sent == ["a = 1", "b = 2"]
        kernel.run("m2")
        kernel.run("m3")
        assert refreshed == []
        await until(lambda: refreshed == ["c2"], 5)  # once, for the last cell, after the kernel was free
        await asyncio.sleep(0.15)
        assert refreshed == ["c2"]
    finally:
        await session.close()
