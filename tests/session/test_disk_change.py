"""Issue 41.5: the open .ipynb changed on disk (a `git pull`, another editor). The session never saves over
it: it tells every tab (JupyterLab's "File Changed"), keeps what is typed, and does as the user chooses:
Overwrite saves the session's version, Revert loads the file's (the kernel runs on). Real files throughout."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import nbformat
import pytest
import pytest_asyncio
from ghostbook import protocol as p
from ghostbook.documents.contents import Contents
from ghostbook.documents.stamp import stamp_file
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.session.autosave import Autosaver
from ghostbook.session.manager import SessionManager
from ghostbook.session.runtime import NotebookSession

from .test_variables import until

pytestmark = pytest.mark.timeout(120)


def write(path: Path, *sources: str, metadata: dict[str, Any] | None = None) -> None:
    """Write a notebook as another program would (nbformat), cells c0, c1, ..."""
    notebook = nbformat.v4.new_notebook(metadata=metadata or {})
    notebook.cells = [nbformat.v4.new_code_cell(source, id=f"c{i}") for i, source in enumerate(sources)]
    nbformat.write(notebook, path)


def sources(path: Path) -> list[str]:
    return [cell.source for cell in nbformat.read(path, as_version=4).cells]


def document(text: str) -> dict[str, Any]:
    return {"cells": [{"id": "c0", "cell_type": "code", "source": text, "metadata": {}, "outputs": [],
                       "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


# ---- the autosaver ------------------------------------------------------------------------------


def saver_for(path: Path, text: dict[str, str], statuses: list[str], **kwargs: Any) -> Autosaver:
    return Autosaver(path, lambda: document(text["now"]), lambda s: statuses.append(s["status"]),
                     delay=0.02, stamp=stamp_file(path), **kwargs)


async def test_a_change_on_disk_is_found_before_a_save_and_never_saved_over(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    text, statuses = {"now": "typed in the tab"}, []
    saver = saver_for(path, text, statuses, check_interval=3600)  # no timer: the save itself must look
    write(path, "pulled by git")
    saver.mark_dirty()
    await until(lambda: "conflict" in statuses)
    for more in ("more typing", "and more"):
        text["now"] = more
        saver.mark_dirty()
        await asyncio.sleep(0.1)
    assert await saver.save() is False  # Ctrl+S too
    await saver.flush()  # and closing the notebook
    assert sources(path) == ["pulled by git"]
    assert saver.conflict and saver.status["status"] == "conflict"
    assert statuses == ["dirty", "conflict"]  # never "saving"


async def test_the_timer_finds_a_change_with_nothing_to_save(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    statuses: list[str] = []
    saver = saver_for(path, {"now": "opened"}, statuses, check_interval=0.05)
    watch = asyncio.create_task(saver.watch())
    try:
        await asyncio.sleep(0.2)
        assert statuses == []
        write(path, "edited in another editor")
        await until(lambda: statuses == ["conflict"], seconds=2)
    finally:
        watch.cancel()
    assert sources(path) == ["edited in another editor"]


async def test_own_saves_a_touch_or_an_identical_copy_are_not_changes(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    text, statuses = {"now": "1"}, []
    saver = saver_for(path, text, statuses)
    for n in range(5):
        text["now"] = str(n)
        saver.mark_dirty()
        await until(lambda: statuses[-1] == "saved")
        assert await saver.check() is False
    os.utime(path, ns=(1, 1))  # touched
    assert await saver.check() is False
    copy = tmp_path / "copy"
    shutil.copy(path, copy)
    os.replace(copy, path)  # the same text, a new file (a checkout of an unchanged file)
    assert await saver.check() is False
    text["now"] = "after"
    saver.mark_dirty()
    await until(lambda: sources(path) == ["after"])
    assert "conflict" not in statuses


async def test_overwrite_saves_the_open_version_and_saving_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    text, statuses = {"now": "mine"}, []
    saver = saver_for(path, text, statuses)
    write(path, "theirs")
    assert await saver.check() is True
    saver.mark_dirty()
    assert await saver.overwrite() is True
    assert sources(path) == ["mine"] and not saver.conflict and statuses[-1] == "saved"
    text["now"] = "mine, later"  # later saves are ordinary ones again
    saver.mark_dirty()
    await until(lambda: sources(path) == ["mine, later"])
    assert statuses.count("conflict") == 1


async def test_a_deleted_file_is_written_again_as_before(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    text, statuses = {"now": "typed"}, []
    saver = saver_for(path, text, statuses)
    path.unlink()
    assert await saver.check() is False
    saver.mark_dirty()
    await until(lambda: path.exists() and statuses[-1] == "saved")
    assert sources(path) == ["typed"]


# ---- the session: every tab hears of it; Overwrite and Revert -----------------------------------


class Tab:
    def __init__(self, id: str) -> None:
        self.id = id
        self.messages: list[dict[str, Any]] = []

    def send(self, text: str, key: str | None = None) -> None:
        self.messages.append(json.loads(text))

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == type_]


class IdleKernel:
    """A kernel that starts and never runs anything: these tests are about the file."""

    kernel_name = "python3"
    display_name = "Python 3"

    async def start(self) -> None: ...
    def execute(self, code: str) -> str:
        raise RuntimeError("not in this test")
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


@pytest_asyncio.fixture
async def manager(tmp_path: Path) -> AsyncIterator[SessionManager]:
    manager = SessionManager(Contents(tmp_path), lambda on_event, name, cwd: IdleKernel())
    try:
        yield manager
    finally:
        await manager.close_all()


def edit(cell_id: str, source: str) -> p.SetSource:
    return p.SetSource(type="set_source", cell_id=cell_id, source=source)


def resolve(choice: str) -> p.ResolveFileChange:
    return p.ResolveFileChange.model_validate({"type": "resolve_file_change", "choice": choice, "ref": "r1"})


async def open_with_tabs(manager: SessionManager, path: Path, *tabs: Tab) -> NotebookSession:
    session = await manager.open(path.name)
    for tab in tabs:
        session.add_client(tab, [])
    return session


async def test_every_tab_hears_of_it_and_a_tab_that_comes_later_finds_it_in_the_snapshot(
        manager: SessionManager, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    a, b = Tab("a"), Tab("b")
    session = await open_with_tabs(manager, path, a, b)
    await session.handle(a, edit("c0", "typed in a"))
    write(path, "pulled")
    await until(lambda: a.of("file_changed_on_disk") and b.of("file_changed_on_disk"), seconds=5)  # the 2 s timer
    assert b.of("file_changed_on_disk") == [{"type": "file_changed_on_disk", "path": "n.ipynb"}]
    assert b.of("save_status")[-1]["save"]["status"] == "conflict"
    await session.handle(b, edit("c0", "typed in a, then b"))
    await asyncio.sleep(0.8)  # past the autosave delay
    assert sources(path) == ["pulled"]
    c = Tab("c")
    session.add_client(c, [])
    assert c.of("snapshot")[0]["save"]["status"] == "conflict"
    assert session.data.cells[0].source == "typed in a, then b"  # nothing typed is lost


async def test_overwrite_writes_the_tabs_version_over_the_file(manager: SessionManager, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    a, b = Tab("a"), Tab("b")
    session = await open_with_tabs(manager, path, a, b)
    write(path, "pulled")
    await session.handle(a, edit("c0", "mine"))
    await until(lambda: session.autosaver.conflict)  # found before the edit's save
    await session.handle(b, resolve("overwrite"))
    assert sources(path) == ["mine"]
    assert a.of("save_status")[-1]["save"]["status"] == "saved"
    await session.handle(a, resolve("revert"))  # a second answer, from a tab that had not heard: nothing
    assert sources(path) == ["mine"] and session.data.cells[0].source == "mine" and not a.of("error")
    await session.handle(a, edit("c0", "mine, later"))
    await until(lambda: sources(path) == ["mine, later"])


async def test_revert_reloads_the_file_and_sends_every_tab_a_snapshot(manager: SessionManager, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "one", "two")
    a, b = Tab("a"), Tab("b")
    session = await open_with_tabs(manager, path, a, b)
    await session.handle(a, edit("c1", "two, edited here"))
    await until(lambda: sources(path) == ["one", "two, edited here"])
    revision = session.data.revision
    write(path, "one", "two, from git", "three, from git", metadata={"tool": {"pulled": True}})
    await until(lambda: session.autosaver.conflict, seconds=5)
    await session.handle(a, edit("c0", "one, typed before choosing"))
    await session.handle(b, resolve("revert"))

    assert [cell.source for cell in session.data.cells] == ["one", "two, from git", "three, from git"]
    assert session.data.metadata["tool"] == {"pulled": True}
    assert session.data.revision > revision and session.data.undo == []
    for tab in (a, b):
        snapshot = tab.of("snapshot")[-1]
        assert snapshot["reloaded"] is True and snapshot["client_id"] == tab.id
        assert snapshot["save"] == {"status": "saved", "message": None}
        assert [c["source"] for c in snapshot["notebook"]["cells"]] == ["one", "two, from git", "three, from git"]
    assert sources(path) == ["one", "two, from git", "three, from git"]  # the file is untouched
    await session.handle(a, edit("c2", "three, edited after"))  # saving goes on, without a conflict
    await until(lambda: sources(path)[2] == "three, edited after")
    assert not session.autosaver.conflict


async def test_revert_to_a_broken_file_changes_nothing_and_says_why(manager: SessionManager, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    a = Tab("a")
    session = await open_with_tabs(manager, path, a)
    await session.handle(a, edit("c0", "mine"))
    path.write_text('{"cells": [')  # half written by another program
    await until(lambda: session.autosaver.conflict, seconds=5)
    await session.handle(a, resolve("revert"))
    assert "cannot revert" in a.of("error")[-1]["message"] and a.of("error")[-1]["ref"] == "r1"
    assert session.autosaver.conflict and session.data.cells[0].source == "mine"
    assert path.read_text() == '{"cells": ['


async def test_a_rename_in_the_file_browser_is_not_a_change(manager: SessionManager, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    a = Tab("a")
    session = await open_with_tabs(manager, path, a)
    manager.renamed("n.ipynb", manager.contents.rename("n.ipynb", "renamed.ipynb"))
    await session.handle(a, edit("c0", "typed after the rename"))
    await until(lambda: sources(tmp_path / "renamed.ipynb") == ["typed after the rename"])
    assert await session.autosaver.check() is False and not a.of("file_changed_on_disk")


async def test_a_delete_in_the_file_browser_discards_as_before(manager: SessionManager, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    write(path, "opened")
    a = Tab("a")
    session = await open_with_tabs(manager, path, a)
    manager.contents.delete("n.ipynb")
    await manager.deleted("n.ipynb")
    await session.handle(a, edit("c0", "typed after the delete"))
    await asyncio.sleep(0.8)
    assert a.of("notebook_deleted") and not a.of("file_changed_on_disk")
    assert not path.exists()


async def test_revert_keeps_the_kernel_running(tmp_path: Path) -> None:
    path = tmp_path / "k.ipynb"
    write(path, "x = 41", "x + 1")
    manager = SessionManager(Contents(tmp_path),
                             lambda on_event, name, cwd: KernelAdapter(on_event, kernel_name=name, cwd=cwd))
    try:
        a = Tab("a")
        session = await open_with_tabs(manager, path, a)
        await until(lambda: session.data.kernel.status == "idle", seconds=60)
        await session.handle(a, p.ExecuteCells(type="execute_cells", cell_ids=["c0"]))
        await until(lambda: session.data.cells[0].execution_count == 1, seconds=30)
        write(path, "x = 41", "x + 1  # from git")
        await until(lambda: session.autosaver.conflict, seconds=5)
        await session.handle(a, resolve("revert"))
        assert session.data.cells[1].source == "x + 1  # from git"
        assert session.data.kernel.status == "idle"
        await session.handle(a, p.ExecuteCells(type="execute_cells", cell_ids=["c1"]))
        await until(lambda: session.data.cells[1].execution_count == 2, seconds=30)
        assert session.data.cells[1].outputs.to_json()[0]["data"]["text/plain"] == "42"
    finally:
        await manager.close_all()
