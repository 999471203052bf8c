"""What a new user trips over (issue 31): renames and deletes seen from open tabs, the name in the header,
the `?` shortcuts, kernel-death and restart wording, Esc then a command key, Markdown lists.

Screenshots go to /tmp/i31_*.png (to look at what the user sees)."""

from __future__ import annotations

import re
import time
from urllib.parse import unquote, urlparse

from playwright.sync_api import BrowserContext, Locator, Page, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, editor_text, open_notebook, wait_idle, write_notebook

EDITING = re.compile(r"\bediting\b")
SELECTED = re.compile(r"\bselected\b")
POPUP_SETTLE_MS = 150  # CodeMirror ignores keys for 75 ms after the popup changes


def shot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/i31_{name}.png")


def path_of(page: Page) -> str:
    return unquote(urlparse(page.url).path)


def lines(cell: Locator) -> str:
    """The editor's text, line by line (inner_text doubles blank lines)."""
    return cell.locator(".cm-line").evaluate_all("(lines) => lines.map((line) => line.textContent).join('\\n')")


def rename_in_browser(browser_page: Page, server: Server, path: str, new_name: str) -> None:
    browser_page.goto(server.url("/"))
    entry = browser_page.locator(f'[data-testid="file-entry"][data-path="{path}"]')
    entry.get_by_test_id("rename-entry").click()
    browser_page.get_by_test_id("rename-input").fill(new_name)
    browser_page.get_by_test_id("rename-input").press("Enter")
    expect(browser_page.locator(f'[data-testid="file-entry"][data-path="{new_name}"]')).to_be_visible()


def test_every_tab_follows_a_rename_and_a_move(server: Server, context: BrowserContext) -> None:
    write_notebook(server.root / "Untitled.ipynb", [("code", "x = 1")])
    (server.root / "reports").mkdir()
    a, b, files = context.new_page(), context.new_page(), context.new_page()
    open_notebook(a, server.url("/notebooks/Untitled.ipynb"))
    open_notebook(b, server.url("/notebooks/Untitled.ipynb"))

    rename_in_browser(files, server, "Untitled.ipynb", "Analysis.ipynb")
    for tab in (a, b):
        expect(tab.get_by_test_id("notebook-name")).to_have_text("Analysis.ipynb")
        expect(tab).to_have_title("Analysis.ipynb – Ghostbook")
        assert path_of(tab) == "/notebooks/Analysis.ipynb"

    # a move into a folder: the folder shows before the name, the address has it
    response = files.request.patch(server.url("/api/contents"),
                                   data={"path": "Analysis.ipynb", "new_path": "reports/Analysis.ipynb"})
    assert response.ok, response.text()
    for tab in (a, b):
        expect(tab.get_by_test_id("notebook-dir")).to_have_text("reports/")
        expect(tab.get_by_test_id("notebook-name")).to_have_text("Analysis.ipynb")
        expect(tab.get_by_test_id("back-to-files")).to_have_attribute("href", "/tree/reports")
    assert path_of(a) == "/notebooks/reports/Analysis.ipynb"
    shot(a, "renamed_tab")

    # edits keep saving into the moved file, and a reload finds the notebook where it now is
    cell = cells(a).nth(0)
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    a.keyboard.press("Control+End")
    a.keyboard.type("  # moved")
    expect(a.get_by_test_id("save-status")).to_have_text("saved")
    saved = server.root / "reports" / "Analysis.ipynb"
    for _ in range(100):  # "saved" may still be the status from before the edit reached the server
        if "# moved" in saved.read_text():
            break
        time.sleep(0.1)
    assert "# moved" in saved.read_text()
    b.reload()
    expect(b.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    expect(b.get_by_test_id("notebook-error")).to_have_count(0)
    assert editor_text(cells(b).nth(0)) == "x = 1  # moved"


def test_a_deleted_notebook_says_so_and_keeps_the_text_for_copying(server: Server, context: BrowserContext) -> None:
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    write_notebook(server.root / "gone.ipynb", [("markdown", "# Notes"), ("code", "result = 6 * 7")])
    tab, files = context.new_page(), context.new_page()
    open_notebook(tab, server.url("/notebooks/gone.ipynb"))
    code = cells(tab).nth(1)
    code.get_by_test_id("cell-editor").locator(".cm-content").click()
    tab.keyboard.press("Control+End")
    tab.keyboard.type("\nprint(result)")

    files.goto(server.url("/"))
    entry = files.locator('[data-testid="file-entry"][data-path="gone.ipynb"]')
    entry.get_by_test_id("delete-entry").click()
    entry.get_by_test_id("confirm-delete").click()

    banner = tab.get_by_test_id("notebook-deleted")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("gone.ipynb was deleted")
    # the cells are still there, readable and selectable, but no longer editable
    expect(cells(tab)).to_have_count(2)
    assert editor_text(code) == "result = 6 * 7\nprint(result)"
    code.get_by_test_id("cell-editor").locator(".cm-content").click()
    tab.keyboard.type("zzz")
    assert editor_text(code) == "result = 6 * 7\nprint(result)"
    tab.keyboard.press("Control+a")
    assert tab.evaluate("() => getSelection().toString()").startswith("result = 6 * 7")
    banner.get_by_test_id("copy-all-cells").click()
    expect(banner.get_by_test_id("copy-all-cells")).to_have_text("Copied")
    assert tab.evaluate("() => navigator.clipboard.readText()") == "# Notes\n\nresult = 6 * 7\nprint(result)"
    shot(tab, "deleted_tab")
    tab.wait_for_timeout(1000)
    assert not (server.root / "gone.ipynb").exists()  # nothing brought it back


def test_the_name_in_the_header_renames_the_notebook(server: Server, page: Page) -> None:
    write_notebook(server.root / "Untitled.ipynb", [("code", "")])
    write_notebook(server.root / "Taken.ipynb", [("code", "")])
    open_notebook(page, server.url("/notebooks/Untitled.ipynb"))
    page.get_by_test_id("notebook-name").click()
    field = page.get_by_test_id("notebook-name-input")
    expect(field).to_be_focused()
    assert page.evaluate("() => getSelection().toString() || document.activeElement.value.slice("
                         "document.activeElement.selectionStart, document.activeElement.selectionEnd)") == "Untitled"
    page.keyboard.type("Sales")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("notebook-name")).to_have_text("Sales.ipynb")
    expect(page).to_have_title("Sales.ipynb – Ghostbook")
    assert path_of(page) == "/notebooks/Sales.ipynb"
    assert (server.root / "Sales.ipynb").is_file() and not (server.root / "Untitled.ipynb").exists()

    # the file browser's rules and errors, shown inline; the field stays for another try
    page.get_by_test_id("notebook-name").click()
    page.keyboard.type("Taken")
    page.keyboard.press("Enter")
    error = page.get_by_test_id("notebook-name-error")
    expect(error).to_have_text("Taken.ipynb already exists")
    expect(field).to_be_visible()
    shot(page, "header_rename_error")
    field.fill("Sales.txt")
    page.keyboard.press("Enter")
    expect(error).to_have_text("a notebook's name must end in .ipynb")
    # Esc cancels: the name is what it was, nothing moved
    page.keyboard.press("Escape")
    expect(field).to_have_count(0)
    expect(page.get_by_test_id("notebook-name")).to_have_text("Sales.ipynb")
    assert (server.root / "Sales.ipynb").is_file()
    # and the notebook's keys are back: command mode on the selected cell
    page.keyboard.press("b")
    expect(cells(page)).to_have_count(2)
    shot(page, "header_renamed")


def test_question_mark_and_the_question_mark_button_open_the_shortcuts(server: Server, page: Page) -> None:
    write_notebook(server.root / "keys.ipynb", [("code", "x = 1")])
    open_notebook(page, server.url("/notebooks/keys.ipynb"))
    panel = page.get_by_test_id("shortcuts-panel")
    expect(cells(page).nth(0)).to_have_class(SELECTED)
    page.keyboard.press("?")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("? / h")
    page.keyboard.press("?")
    expect(panel).to_be_hidden()
    button = page.get_by_test_id("shortcuts-help")
    expect(button).to_have_text("?")
    button.click()
    expect(panel).to_be_visible()
    shot(page, "shortcuts")
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()


def test_a_kernel_killed_on_purpose_is_not_blamed_on_memory(server: Server, page: Page) -> None:
    write_notebook(server.root / "kill.ipynb", [("code", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")])
    open_notebook(page, server.url("/notebooks/kill.ipynb"))
    wait_idle(page)
    cells(page).nth(0).get_by_test_id("run-cell").click()
    expect(page.get_by_test_id("kernel-status")).to_have_text("dead", timeout=KERNEL_TIMEOUT)
    message = page.get_by_test_id("kernel-message")
    expect(message).to_have_text("Kernel died: killed by signal 9 (SIGKILL)")
    page.get_by_test_id("restart-kernel").click()
    dialog = page.get_by_test_id("restart-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).not_to_contain_text("All variables will be lost")
    expect(dialog).to_contain_text("The kernel is not running")
    shot(page, "dead_kernel_restart")
    page.get_by_test_id("confirm-restart").click()
    wait_idle(page)


def test_a_command_key_right_after_an_esc_that_closed_the_popup_is_a_command(server: Server, page: Page) -> None:
    write_notebook(server.root / "esc.ipynb", [("code", "my_variable_alpha = 1"), ("code", "")])
    open_notebook(page, server.url("/notebooks/esc.ipynb"))
    wait_idle(page)
    cells(page).nth(0).get_by_test_id("run-cell").click()
    expect(cells(page).nth(0).get_by_test_id("cell-prompt")).to_have_text("[1]", timeout=KERNEL_TIMEOUT)
    popup = page.get_by_test_id("completion-popup")

    def popup_then_escape(cell_index: int) -> None:
        cell = cells(page).nth(cell_index)
        cell.get_by_test_id("cell-editor").locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.type("my_var")
        expect(popup).to_be_visible()
        page.wait_for_timeout(POPUP_SETTLE_MS)
        page.keyboard.press("Escape")  # closes the popup only: still in edit mode

    # Esc, a: a cell above, as in command mode; nothing typed into the cell
    popup_then_escape(1)
    page.keyboard.press("a")
    expect(cells(page)).to_have_count(3)
    expect(cells(page).nth(1)).to_have_class(SELECTED)
    expect(cells(page).nth(1)).not_to_have_class(EDITING)
    assert editor_text(cells(page).nth(2)) == "my_var"

    # Esc, ?: the shortcuts, not `my_var?`
    popup_then_escape(2)
    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcuts-panel")).to_be_visible()
    expect(cells(page).nth(2)).not_to_have_class(EDITING)
    assert editor_text(cells(page).nth(2)) == "my_var"
    shot(page, "escape_then_command")
    page.keyboard.press("?")

    # the order stays: Esc first closes the popup, and a key typed a moment later is text again
    popup_then_escape(2)
    expect(popup).to_be_hidden()
    expect(cells(page).nth(2)).to_have_class(EDITING)
    page.wait_for_timeout(600)
    page.keyboard.type("a")
    assert editor_text(cells(page).nth(2)) == "my_vara"
    expect(cells(page)).to_have_count(3)


def test_markdown_lists_continue_without_doubled_markers(server: Server, page: Page) -> None:
    write_notebook(server.root / "lists.ipynb", [("markdown", "")])
    open_notebook(page, server.url("/notebooks/lists.ipynb"))
    md = cells(page).nth(0)
    md.get_by_test_id("cell-editor").locator(".cm-content").click()
    expect(md).to_have_class(EDITING)
    # typed as people do: their own marker on each line, after Enter has put one there
    page.keyboard.type("Shopping:\n\n- apples\n- pears\n")
    assert lines(md).endswith("- pears\n- ")  # Enter continues the list
    page.keyboard.type("- plums\n1. first\n2. second")
    assert lines(md) == "Shopping:\n\n- apples\n- pears\n- plums\n1. first\n2. second"
    # Backspace right after Enter's marker takes it away (the command as it is meant to be used)
    page.keyboard.press("Enter")
    page.keyboard.press("Backspace")
    assert lines(md).splitlines()[-1].strip() == ""
    shot(page, "markdown_list_editing")
    page.keyboard.press("Shift+Enter")
    rendered = md.get_by_test_id("markdown-rendered")
    expect(rendered.locator("ul > li")).to_have_count(3)
    expect(rendered.locator("ol > li")).to_have_count(2)
    expect(rendered.locator("li ul, li ol")).to_have_count(0)  # nothing nested: no "- - item"
    shot(page, "markdown_list_rendered")
