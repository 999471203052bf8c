import asyncio
import errno
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from ghostbook.session.autosave import Autosaver


def notebook(text: str) -> dict[str, Any]:
    return {"cells": [{"id": "a", "cell_type": "code", "source": text, "metadata": {}, "outputs": [],
                       "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def saved_text(path: Path) -> str | None:
    return "".join(json.loads(path.read_text())["cells"][0]["source"]) if path.exists() else None


async def test_saves_shortly_after_the_first_change(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    state = {"text": "1"}
    statuses: list[str] = []
    saver = Autosaver(path, lambda: notebook(state["text"]), lambda s: statuses.append(s["status"]), delay=0.1)
    saver.mark_dirty()
    state["text"] = "2"
    saver.mark_dirty()  # the changes before the save's turn go into one save, with the latest text
    await asyncio.sleep(0.4)
    assert saved_text(path) == "2"
    assert statuses == ["dirty", "saving", "saved"]


async def test_steady_typing_cannot_starve_the_save(tmp_path: Path) -> None:
    """#14.2: a change every 50 ms for 1.5 s (the old debounce restarted on each, saving nothing)."""
    path = tmp_path / "n.ipynb"
    state = {"text": ""}
    saver = Autosaver(path, lambda: notebook(state["text"]), lambda s: None, delay=0.2)
    loop = asyncio.get_running_loop()
    typed: list[tuple[float, str]] = []
    late = 0.0
    for index in range(30):
        state["text"] += str(index % 10)
        typed.append((loop.time(), state["text"]))
        saver.mark_dirty()
        await asyncio.sleep(0.05)
        on_disk = saved_text(path) or ""
        # everything typed more than delay + slack ago is on disk
        due = [text for at, text in typed if loop.time() - at > 0.45]
        if due:
            late = max(late, len(due[-1]) - len(on_disk))
    assert late == 0
    await saver.flush()
    assert saved_text(path) == state["text"]


async def test_kernel_changes_never_delay_saving_an_edit(tmp_path: Path) -> None:
    """#14.2: outputs every 20 ms neither push back an edit's save nor save sooner than their own delay."""
    path = tmp_path / "n.ipynb"
    state = {"text": "before"}
    saver = Autosaver(path, lambda: notebook(state["text"]), lambda s: None, delay=0.2, output_delay=0.6)
    loop = asyncio.get_running_loop()
    start = loop.time()
    while loop.time() - start < 0.4:  # a printing cell alone waits its own, longer delay
        saver.mark_dirty(by_kernel=True)
        await asyncio.sleep(0.02)
    assert not path.exists()
    state["text"] = "edited"
    saver.mark_dirty()
    edited = loop.time()
    while saved_text(path) != "edited":
        saver.mark_dirty(by_kernel=True)
        await asyncio.sleep(0.02)
        assert loop.time() - edited < 0.35, "the edit waited for the outputs"
    await saver.flush()


async def test_saves_run_one_at_a_time_and_the_latest_wins(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    state = {"text": "1"}
    saver = Autosaver(path, lambda: notebook(state["text"]), lambda s: None, delay=0.01)
    saver.mark_dirty()
    first = asyncio.create_task(saver.save())
    state["text"] = "2"
    saver.mark_dirty()
    second = asyncio.create_task(saver.save())
    assert await first and await second
    await asyncio.sleep(0.05)
    assert saved_text(path) == "2"
    assert saver.status["status"] == "saved"


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


async def test_a_notebook_slow_to_serialise_is_saved_less_often(tmp_path: Path) -> None:
    """Saving holds the event loop while it serialises: a big notebook waits twice that long between saves."""
    path = tmp_path / "n.ipynb"
    writes: list[float] = []
    loop = asyncio.get_running_loop()

    def slow_snapshot() -> dict[str, Any]:
        writes.append(loop.time())
        time.sleep(0.1)  # as serialising a notebook of tens of MB does
        return notebook("big")

    saver = Autosaver(path, slow_snapshot, lambda s: None, delay=0.02)
    start = loop.time()
    while loop.time() - start < 1.2:
        saver.mark_dirty()
        await asyncio.sleep(0.01)
    gaps = [b - a for a, b in zip(writes, writes[1:], strict=False)]
    assert gaps and min(gaps) >= 0.2 + 0.1 - 0.02
    await saver.flush()


async def test_a_save_cancels_the_timer_of_the_changes_it_holds(tmp_path: Path) -> None:
    """A change made before a save (its timer pending) and one made after it: the next save waits from
    the save, not from the first change's timer (which once fired 0.2 s after the save began)."""
    writes: list[float] = []
    loop = asyncio.get_running_loop()

    def slow_snapshot() -> dict[str, Any]:
        writes.append(loop.time())
        time.sleep(0.1)
        return notebook("big")

    saver = Autosaver(tmp_path / "n.ipynb", slow_snapshot, lambda s: None, delay=0.02)
    saver.mark_dirty()
    await saver.flush()  # the cost is known: 0.1 s
    saver.mark_dirty()  # its timer: 0.2 s from now
    await saver.save()  # holds that change
    await asyncio.sleep(0.02)
    saver.mark_dirty()  # a change after the save: 0.2 s from now
    await asyncio.sleep(0.5)
    assert len(writes) == 3 and writes[2] - writes[1] >= 0.2 + 0.02
    await saver.flush()
