"""A real NotebookSession with a real kernel: the completion context's namespace summary follows
executions (and the model is prewarmed after one), and a kernel restart clears it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from ghostbook import protocol as p
from ghostbook.completion import settings as settings_module
from ghostbook.completion.namespace_provider import KernelNamespace
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.models import loader
from ghostbook.session import runtime
from ghostbook.session.runtime import NotebookSession
from ghostbook.session.state import NotebookData

pytestmark = pytest.mark.timeout(90)


class Tab:
    id = "tab1"

    def __init__(self) -> None:
        self.messages: list[dict[str, object]] = []

    def send(self, text: str, key: str | None = None) -> None:
        self.messages.append(json.loads(text))


async def until(pred: Callable[[], bool], seconds: float = 30) -> None:
    for _ in range(int(seconds / 0.05)):
        if pred():
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("condition not met")


def session_over(tmp_path: Path, model: Path, monkeypatch: pytest.MonkeyPatch,
                 *sources: str) -> tuple[NotebookSession, Tab]:
    """A started session with a real kernel over code cells `a`, `b`, ... and `model` as the completion model."""
    monkeypatch.setattr(settings_module, "_shared", settings_module.SettingsStore(tmp_path / "settings.json"))
    monkeypatch.setattr(loader, "_shared", loader.ModelRegistry())
    settings_module.shared_store().update({"model": str(model)})
    notebook = {"cells": [{"cell_type": "code", "id": chr(ord("a") + i), "source": source, "metadata": {},
                           "outputs": [], "execution_count": None} for i, source in enumerate(sources)],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    session = NotebookSession(NotebookData.from_nbformat("n.ipynb", notebook), tmp_path / "n.ipynb",
                              lambda on_event, name, cwd: KernelAdapter(on_event, kernel_name=name, cwd=cwd))
    tab = Tab()
    session.add_client(tab, [])
    session.start()
    return session, tab


async def test_namespace_follows_executions(tmp_path: Path, tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session, tab = session_over(tmp_path, tiny_gguf, monkeypatch, "numbers = [1, 2, 3]")
    try:
        await until(lambda: session.data.kernel.status == "idle")
        await session.handle(tab, p.GetSettings(type="get_settings", ref="s"))  # creates the completion service
        await session.handle(tab, p.ExecuteCells(type="execute_cells", cell_ids=["a"]))
        namespace = session._namespace
        assert namespace is not None
        await until(lambda: namespace.namespace_lines() == ["numbers: list len=3"])
        await until(lambda: session.completion.prewarms == 1)  # the model read the prompt for the next edit
        await session.handle(tab, p.Suggest(type="suggest", ref="r", cell_id="a", cursor=7, trigger="forced"))
        await until(lambda: any(m["type"] == "suggestion" and m.get("done") for m in tab.messages))
        await session.handle(tab, p.RestartKernel(type="restart_kernel"))
        await until(lambda: namespace.namespace_lines() == [])
    finally:
        await session.close()
        await loader.shared_registry().close()


async def test_a_suggestion_asked_the_moment_a_run_ends_sees_its_names(tmp_path: Path, tiny_gguf: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+Space right after a run: the request waits for the summary the run made owed, rather than
    reading the one before it (the refresh after a run otherwise waits for the kernel to stay quiet)."""
    monkeypatch.setattr(runtime, "AFTER_RUN_QUIET", 60.0)  # here only the request brings the summary up to date
    read: list[list[str]] = []
    lines = KernelNamespace.namespace_lines
    monkeypatch.setattr(KernelNamespace, "namespace_lines", lambda self: read.append(lines(self)) or lines(self))
    session, tab = session_over(tmp_path, tiny_gguf, monkeypatch, "numbers = [1, 2, 3]", "total = ")
    try:
        await until(lambda: session.data.kernel.status == "idle")
        namespace = session._namespace
        assert namespace is not None
        await until(lambda: not namespace._running)  # the first summary, of an empty namespace
        await session.handle(tab, p.ExecuteCells(type="execute_cells", cell_ids=["a"]))
        await until(lambda: any(m["type"] == "cell_state" and m.get("cell_id") == "a" and m.get("state") == "idle"
                                and m.get("execution_count") for m in tab.messages))
        read.clear()
        await session.handle(tab, p.Suggest(type="suggest", ref="r", cell_id="b", cursor=8, trigger="forced"))
        await until(lambda: any(m["type"] == "suggestion" and m.get("done") for m in tab.messages))
        assert read and all(seen == ["numbers: list len=3"] for seen in read)
    finally:
        await session.close()
        await loader.shared_registry().close()
