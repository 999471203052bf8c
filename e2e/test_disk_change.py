"""Issue 41.5: the open notebook's file changes on disk (here: rewritten with nbformat, as another program
would). Every tab shows the "File Changed" bar, typing goes on, nothing is saved over the file; Revert
loads the file's text into every tab, Overwrite saves the tab's text over it."""

from __future__ import annotations

import os
import time

import nbformat
from playwright.sync_api import BrowserContext, Locator, Page, expect

from .helpers import Server, cells, open_notebook, type_in_cell, write_notebook

CHANGED = "has changed on disk since the last time it was opened or saved"


def change_on_disk(path: os.PathLike[str], source: str) -> None:
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[0].source = source
    nbformat.write(notebook, path)


def first_source(path: os.PathLike[str]) -> str:
    return str(nbformat.read(path, as_version=4).cells[0].source)


def editor(page: Page, index: int = 0) -> Locator:
    return cells(page).nth(index).get_by_test_id("cell-editor").locator(".cm-content")


def wait_for_file(path: os.PathLike[str], text: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while first_source(path) != text:
        assert time.monotonic() < deadline, f"the file holds {first_source(path)!r}, not {text!r}"
        time.sleep(0.1)


def shot(page: Page, name: str) -> None:
    """A screenshot into `$GHOSTBOOK_E2E_SHOTS`, if set (to look at what the user sees)."""
    folder = os.environ.get("GHOSTBOOK_E2E_SHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, name))


def test_every_tab_shows_the_change_and_revert_loads_the_file(server: Server, context: BrowserContext) -> None:
    path = server.root / "changed.ipynb"
    write_notebook(path, [("code", "a = 1"), ("markdown", "# Title")])
    url = server.url("/notebooks/changed.ipynb")
    a, b = context.new_page(), context.new_page()
    open_notebook(a, url)
    open_notebook(b, url)
    type_in_cell(a, cells(a).nth(0), "  # typed")
    expect(a.get_by_test_id("save-status")).to_have_text("saved")
    wait_for_file(path, "a = 1  # typed")  # the session's own saves are no change

    change_on_disk(path, "a = 2  # from outside")
    a.keyboard.type(" and more")  # the tab types on: its save finds the change first
    for page in (a, b):
        expect(page.get_by_test_id("file-changed-bar")).to_be_visible()
        expect(page.get_by_test_id("file-changed-bar")).to_contain_text(CHANGED)
        expect(page.get_by_test_id("save-status")).to_have_text("not saved: changed on disk")
    a.keyboard.type(", still typing")  # not modal: the editor keeps the focus and the keys
    expect(editor(a)).to_have_text("a = 1  # typed and more, still typing")
    expect(editor(b)).to_have_text("a = 1  # typed and more, still typing")
    time.sleep(1.5)  # past the autosave delay
    assert first_source(path) == "a = 2  # from outside"

    c = context.new_page()  # a tab opened now learns of it from its snapshot
    open_notebook(c, url)
    expect(c.get_by_test_id("file-changed-bar")).to_be_visible()

    b.get_by_test_id("file-changed-revert").click()
    for page in (a, b, c):
        expect(editor(page)).to_have_text("a = 2  # from outside")
        expect(page.get_by_test_id("file-changed-bar")).to_be_hidden()
        expect(page.get_by_test_id("save-status")).to_have_text("saved")
        expect(cells(page)).to_have_count(2)
    assert first_source(path) == "a = 2  # from outside"

    type_in_cell(a, cells(a).nth(0), "  # after")  # saving goes on as before
    wait_for_file(path, "a = 2  # from outside  # after")
    expect(editor(c)).to_have_text("a = 2  # from outside  # after")
    expect(a.get_by_test_id("file-changed-bar")).to_be_hidden()


def test_overwrite_saves_the_tabs_text_over_the_file(server: Server, page: Page) -> None:
    path = server.root / "mine.ipynb"
    write_notebook(path, [("code", "x = 1")])
    open_notebook(page, server.url("/notebooks/mine.ipynb"))
    type_in_cell(page, cells(page).nth(0), "  # mine")
    wait_for_file(path, "x = 1  # mine")

    change_on_disk(path, "x = 'theirs'")  # nothing typed meanwhile: the server's timer finds it
    bar = page.get_by_test_id("file-changed-bar")
    expect(bar).to_be_visible()
    expect(bar).to_contain_text('"mine.ipynb" ' + CHANGED)
    page.keyboard.type(" and more")
    shot(page, "diskchange-light.png")
    page.get_by_test_id("open-settings").click()
    page.get_by_test_id("setting-theme").select_option("dark")
    page.get_by_test_id("close-settings").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert bar.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(43, 38, 17)"  # --warn-bg, dark
    shot(page, "diskchange-dark.png")
    assert first_source(path) == "x = 'theirs'"

    bar.get_by_test_id("file-changed-overwrite").click()
    expect(bar).to_be_hidden()
    expect(page.get_by_test_id("save-status")).to_have_text("saved")
    assert first_source(path) == "x = 1  # mine and more"
    type_in_cell(page, cells(page).nth(0), "  # later")
    wait_for_file(path, "x = 1  # mine and more  # later")
    assert page.js_errors == []  # type: ignore[attr-defined]
