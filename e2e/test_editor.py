"""Editor behaviour: Jupyter command-mode keys, run shortcuts, kernel intellisense, inspect."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .helpers import (
    KERNEL_TIMEOUT,
    HeldFrames,
    Server,
    cells,
    editor_text,
    open_notebook,
    output,
    wait_idle,
    write_notebook,
)

SELECTED = re.compile(r"\bselected\b")
EDITING = re.compile(r"\bediting\b")
# CodeMirror ignores keys for 75 ms after the popup changes (so a fast Enter meant as a newline is
# not taken as "accept"); a person reading the popup is slower than that.
POPUP_SETTLE_MS = 150


def test_command_mode_keys(server: Server, page: Page) -> None:
    write_notebook(server.root / "keys.ipynb", [("code", "first = 1"), ("code", "second = 2")])
    open_notebook(page, server.url("/notebooks/keys.ipynb"))
    first = cells(page).nth(0)
    first.get_by_test_id("cell-editor").locator(".cm-content").click()
    expect(first).to_have_class(EDITING)

    page.keyboard.press("Escape")  # command mode: selected, editor blurred
    expect(first).to_have_class(SELECTED)
    expect(first).not_to_have_class(EDITING)
    assert page.evaluate("() => !document.activeElement.closest('.cm-editor')")

    page.keyboard.press("b")  # insert below
    expect(cells(page)).to_have_count(3)
    expect(cells(page).nth(1)).to_have_class(SELECTED)
    assert editor_text(cells(page).nth(1)).strip() == ""
    page.keyboard.press("a")  # insert above the new one
    expect(cells(page)).to_have_count(4)
    expect(cells(page).nth(1)).to_have_class(SELECTED)

    page.keyboard.press("j")
    expect(cells(page).nth(2)).to_have_class(SELECTED)
    page.keyboard.press("ArrowDown")
    expect(cells(page).nth(3)).to_have_class(SELECTED)
    page.keyboard.press("k")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    expect(cells(page).nth(0)).to_have_class(SELECTED)

    page.keyboard.press("d")
    page.keyboard.press("d")  # delete "first = 1"
    expect(cells(page)).to_have_count(3)
    assert "first = 1" not in [editor_text(c) for c in cells(page).all()]
    page.keyboard.press("z")  # restore it where it was
    expect(cells(page)).to_have_count(4)
    expect(cells(page).nth(0).get_by_test_id("cell-editor")).to_contain_text("first = 1")

    # c copies, v pastes below; x cuts
    page.keyboard.press("ArrowUp")
    expect(cells(page).nth(0)).to_have_class(SELECTED)
    page.keyboard.press("c")
    page.keyboard.press("v")
    expect(cells(page)).to_have_count(5)
    expect(cells(page).nth(1).get_by_test_id("cell-editor")).to_contain_text("first = 1")
    expect(cells(page).nth(1)).to_have_class(SELECTED)
    page.keyboard.press("x")
    expect(cells(page)).to_have_count(4)
    expect(cells(page).nth(1)).not_to_contain_text("first = 1")

    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    target = cells(page).nth(3)
    expect(target).to_have_class(SELECTED)
    page.keyboard.press("m")
    expect(target).to_have_attribute("data-cell-type", "markdown")
    page.keyboard.press("y")
    expect(target).to_have_attribute("data-cell-type", "code")

    page.keyboard.press("Enter")  # edit mode again
    expect(target).to_have_class(EDITING)
    assert page.evaluate("() => !!document.activeElement.closest('[data-testid=cell-editor]')")

    # Alt+Enter runs and inserts a cell below in edit mode
    page.keyboard.type("print('alt')")
    page.keyboard.press("Alt+Enter")
    expect(cells(page)).to_have_count(5)
    expect(cells(page).nth(4)).to_have_class(EDITING)
    expect(output(target)).to_contain_text("alt", timeout=KERNEL_TIMEOUT)

    # the shortcuts panel lists the keys
    page.keyboard.press("Escape")
    page.get_by_test_id("shortcuts-help").click()
    panel = page.get_by_test_id("shortcuts-panel")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("Shift+Enter")
    expect(panel).to_contain_text("d d")
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()

    # Ctrl+S saves
    page.keyboard.press("Control+s")
    expect(page.get_by_test_id("save-status")).to_have_text("saved")


def test_intellisense_enter_accepts_tab_does_not(server: Server, page: Page) -> None:
    write_notebook(server.root / "complete.ipynb", [("code", "import os\nmy_variable_alpha = 1"), ("code", "")])
    open_notebook(page, server.url("/notebooks/complete.ipynb"))
    wait_idle(page)
    cells(page).nth(0).get_by_test_id("run-cell").click()
    expect(cells(page).nth(0).get_by_test_id("cell-prompt")).to_have_text("[1]", timeout=KERNEL_TIMEOUT)

    cell = cells(page).nth(1)
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type("my_var")
    popup = page.get_by_test_id("completion-popup")
    expect(popup).to_be_visible()
    expect(popup).to_contain_text("my_variable_alpha")
    page.wait_for_timeout(POPUP_SETTLE_MS)
    page.keyboard.press("Enter")
    expect(popup).to_be_hidden()
    assert editor_text(cell) == "my_variable_alpha"

    # after a dot; arrows move; Enter takes the selected item
    page.keyboard.press("Enter")
    page.keyboard.type("os.pa")
    expect(popup).to_be_visible()
    expect(popup).to_contain_text("path")
    page.wait_for_timeout(POPUP_SETTLE_MS)
    page.keyboard.press("Enter")
    assert editor_text(cell).splitlines()[-1] in ("os.path", "os.pardir")

    # Esc closes the popup and stays in edit mode
    page.keyboard.press("Enter")
    page.keyboard.type("os.getc")
    expect(popup).to_be_visible()
    expect(popup).to_contain_text("getcwd")
    page.keyboard.press("Escape")
    expect(popup).to_be_hidden()
    expect(cell).to_have_class(EDITING)

    # Ctrl+Space is reserved for ghost text: it neither opens the popup nor types anything
    page.keyboard.press("Control+Space")
    page.wait_for_timeout(400)
    expect(popup).to_be_hidden()
    assert editor_text(cell).splitlines()[-1] == "os.getc"

    # Tab does not accept the popup item (it is reserved for ghost text): it indents
    page.keyboard.type("w")
    expect(popup).to_be_visible()
    expect(popup).to_contain_text("getcwd")
    page.wait_for_timeout(POPUP_SETTLE_MS)
    page.keyboard.press("Tab")
    assert "getcwd" not in editor_text(cell)
    assert editor_text(cell).splitlines()[-1].startswith("os.getcw ")
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")

    # Shift+Tab shows the docs; Esc closes them
    page.keyboard.type("len(")
    page.keyboard.press("Shift+Tab")
    inspect = cell.get_by_test_id("inspect-panel")
    expect(inspect).to_be_visible(timeout=KERNEL_TIMEOUT)
    expect(inspect).to_contain_text("Return the number of items")
    page.keyboard.press("Escape")
    expect(inspect).to_be_hidden()


def test_a_kernel_completion_answered_after_the_cell_was_left_shows_no_popup(server: Server, page: Page) -> None:
    """`data.` typed, then another cell clicked before the kernel's completions arrive: the popup must not
    open in the cell left behind (it would float there, out of reach of Esc)."""
    write_notebook(server.root / "late.ipynb", [("code", "import os"), ("code", "")])
    replies = HeldFrames(page, lambda message: isinstance(message, str) and '"complete_reply"' in message)
    open_notebook(page, server.url("/notebooks/late.ipynb"))
    wait_idle(page)
    first, second = cells(page).nth(0), cells(page).nth(1)
    first.get_by_test_id("run-cell").click()
    expect(first.get_by_test_id("cell-prompt")).to_have_text("[1]", timeout=KERNEL_TIMEOUT)
    second.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type("os.pa")
    replies.wait_for(1)  # the kernel has answered; the answer is held back
    first.get_by_test_id("cell-editor").locator(".cm-content").click()  # the user moved on
    replies.on = False
    replies.release()
    page.wait_for_timeout(300)
    expect(page.get_by_test_id("completion-popup")).to_have_count(0)
    expect(page.locator(".cm-tooltip-autocomplete")).to_have_count(0)
    second.get_by_test_id("cell-editor").locator(".cm-content").click()  # back, and asking again works
    page.keyboard.press("End")
    page.keyboard.type("t")
    expect(page.get_by_test_id("completion-popup")).to_be_visible()
    assert not page.js_errors  # type: ignore[attr-defined]


def test_escape_works_while_the_kernel_is_busy(server: Server, page: Page) -> None:
    """A completion request waiting on a busy kernel must not swallow Esc (or Enter)."""
    write_notebook(server.root / "busy.ipynb", [("code", "import time\ntime.sleep(4)"), ("code", "")])
    open_notebook(page, server.url("/notebooks/busy.ipynb"))
    wait_idle(page)
    cells(page).nth(0).get_by_test_id("run-cell").click()
    expect(page.get_by_test_id("kernel-status")).to_have_text("busy", timeout=KERNEL_TIMEOUT)
    cell = cells(page).nth(1)
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type("pri")
    page.wait_for_timeout(300)  # the completion request is now queued behind the sleep
    page.keyboard.press("Enter")
    page.keyboard.type("x")
    assert editor_text(cell).splitlines() == ["pri", "x"]
    page.keyboard.press("Escape")
    expect(cell).not_to_have_class(EDITING)
    expect(cell).to_have_class(SELECTED)
    expect(page.get_by_test_id("completion-popup")).to_have_count(0)
    expect(cells(page).nth(0)).to_have_attribute("data-state", "running")  # still sleeping: the point
