import asyncio
import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest
from ghostbook.session.autosave import Autosaver


def notebook(text: str) -> dict[str, Any]:
    return {"cells": [{"id": "a", "cell_type": "code", "source": text, "metadata": {}, "outputs": [],
                       "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


async def test_saves_shortly_after_the_last_change(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    state = {"text": "1"}
    statuses: list[str] = []
    saver = Autosaver(path, lambda: notebook(state["text"]), lambda s: statuses.append(s["status"]), delay=0.1)
    saver.mark_dirty()
    state["text"] = "2"
    saver.mark_dirty()  # debounced: one save with the latest text
    await asyncio.sleep(0.4)
    assert json.loads(path.read_text())["cells"][0]["source"] == ["2"]
    assert statuses == ["dirty", "saving", "saved"]


async def test_a_failed_save_reports_and_keeps_the_document(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text("precious")
    statuses: list[dict[str, Any]] = []
    saver = Autosaver(path, lambda: notebook("new"), statuses.append, delay=0.05)

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    assert await saver.save() is False
    assert statuses[-1] == {"status": "error", "message": "No space left on device"}
    assert path.read_text() == "precious"
    monkeypatch.undo()
    await saver.flush()  # still dirty: the next save writes it
    assert json.loads(path.read_text())["cells"][0]["source"] == ["new"]
    assert statuses[-1]["status"] == "saved"


async def test_an_unexpected_error_does_not_leave_it_saving(tmp_path: Path) -> None:
    statuses: list[dict[str, Any]] = []

    def broken() -> dict[str, Any]:
        raise ValueError("cannot serialise")

    saver = Autosaver(tmp_path / "n.ipynb", broken, statuses.append)
    assert await saver.save() is False
    assert statuses[-1] == {"status": "error", "message": "cannot serialise"}
