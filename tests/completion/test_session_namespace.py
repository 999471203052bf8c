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
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.models import loader
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


async def test_namespace_follows_executions(tmp_path: Path, tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings_module, "_shared", settings_module.SettingsStore(tmp_path / "settings.json"))
    monkeypatch.setattr(loader, "_shared", loader.ModelRegistry())
    settings_module.shared_store().update({"model": str(tiny_gguf)})
    notebook = {"cells": [{"cell_type": "code", "id": "a", "source": "numbers = [1, 2, 3]", "metadata": {},
                           "outputs": [], "execution_count": None}], "metadata": {}, "nbformat": 4,
                "nbformat_minor": 5}
    session = NotebookSession(NotebookData.from_nbformat("n.ipynb", notebook), tmp_path / "n.ipynb",
                              lambda on_event, name, cwd: KernelAdapter(on_event, kernel_name=name, cwd=cwd))
    tab = Tab()
    session.add_client(tab, [])
    session.start()
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
