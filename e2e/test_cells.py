"""Cell operations with the mouse and in edit mode, and reconnecting after the server went away."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from playwright.sync_api import Page, expect

from .helpers import Server, cells, editor_text, launch_server, open_notebook, stop_server, write_notebook

EDITING = re.compile(r"\bediting\b")


def test_cell_buttons_markdown_and_edit_mode_navigation(server: Server, page: Page) -> None:
    write_notebook(server.root / "ops.ipynb", [("markdown", "## Notes\n\n- one"), ("code", "a = 1"), ("code", "b = 2")])
    open_notebook(page, server.url("/notebooks/ops.ipynb"))
    md = cells(page).nth(0)
    expect(md.get_by_test_id("markdown-rendered").locator("h2")).to_have_text("Notes")
    expect(md.get_by_test_id("cell-editor")).to_be_hidden()

    # double-click edits the source; running renders it again
    md.get_by_test_id("markdown-rendered").dblclick()
    expect(md.get_by_test_id("cell-editor")).to_be_visible()
    expect(md).to_have_class(EDITING)
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\n- two")
    page.keyboard.press("Shift+Enter")  # renders, selects the next cell
    expect(md.get_by_test_id("markdown-rendered").locator("li")).to_have_count(2)
    expect(cells(page).nth(1)).to_have_class(re.compile(r"\bselected\b"))
    # leaving edit mode with Esc renders it too
    md.get_by_test_id("markdown-rendered").dblclick()
    expect(md.get_by_test_id("cell-editor")).to_be_visible()
    page.keyboard.press("Escape")
    expect(md.get_by_test_id("markdown-rendered").locator("h2")).to_be_visible()
    expect(md.get_by_test_id("cell-editor")).to_be_hidden()

    # move buttons and the type chooser
    cells(page).nth(1).get_by_test_id("move-cell-down").click()
    expect(cells(page).nth(2).get_by_test_id("cell-editor")).to_contain_text("a = 1")
    expect(cells(page).nth(1).get_by_test_id("cell-editor")).to_contain_text("b = 2")
    cells(page).nth(2).get_by_test_id("move-cell-up").click()
    expect(cells(page).nth(1).get_by_test_id("cell-editor")).to_contain_text("a = 1")
    cells(page).nth(2).get_by_test_id("cell-type-select").select_option("markdown")
    expect(cells(page).nth(2)).to_have_attribute("data-cell-type", "markdown")
    cells(page).nth(2).get_by_test_id("cell-type-select").select_option("code")
    expect(cells(page).nth(2)).to_have_attribute("data-cell-type", "code")

    # arrows cross cell borders in edit mode; undo stays inside the cell
    cells(page).nth(1).get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.press("ArrowDown")
    expect(cells(page).nth(2)).to_have_class(EDITING)
    page.keyboard.type("x")
    assert editor_text(cells(page).nth(2)) == "xb = 2"
    page.keyboard.press("Control+z")
    assert editor_text(cells(page).nth(2)) == "b = 2"
    page.keyboard.press("ArrowUp")
    expect(cells(page).nth(1)).to_have_class(EDITING)

    # the delete button, and z brings it back
    cells(page).nth(2).get_by_test_id("delete-cell").click()
    expect(cells(page)).to_have_count(2)
    page.keyboard.press("Escape")
    page.keyboard.press("z")
    expect(cells(page)).to_have_count(3)
    expect(cells(page).nth(2).get_by_test_id("cell-editor")).to_contain_text("b = 2")


def test_reconnects_with_a_fresh_snapshot(server: Server, page: Page) -> None:
    write_notebook(server.root / "re.ipynb", [("code", "print('before')")])
    open_notebook(page, server.url("/notebooks/re.ipynb"))
    expect(page.get_by_test_id("connection-status")).to_have_text("connected")

    stop_server(server.process)
    expect(page.get_by_test_id("connection-status")).to_have_text("disconnected")
    write_notebook(server.root / "re.ipynb", [("code", "print('changed on disk')"), ("markdown", "# new")])
    port = urlparse(server.base_url).port
    assert port is not None
    server.process = launch_server(server.root, port, server.root.parent / "server.log")

    expect(page.get_by_test_id("connection-status")).to_have_text("connected", timeout=20_000)
    expect(cells(page)).to_have_count(2)
    expect(cells(page).nth(0).get_by_test_id("cell-editor")).to_contain_text("changed on disk")
    expect(cells(page).nth(1).get_by_test_id("markdown-rendered").locator("h1")).to_have_text("new")
