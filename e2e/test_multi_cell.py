"""Many cells at once (issue 37, part 2), as a JupyterLab user expects: Shift+↓/↑ and Shift+click extend the
selection, Ctrl+A selects all; dd, z, c/v, m, Ctrl+↓ and Shift+Enter act on all of it; Shift+M merges,
Ctrl+Shift+- splits, a cell dragged by its left column moves. Another tab sees each as one change."""

from __future__ import annotations

import json
import re

from playwright.sync_api import BrowserContext, Locator, Page, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, output, write_notebook

SELECTED = '[data-testid="cell"][aria-selected="true"]'
SELECTED_CLASS = re.compile(r"\bselected\b")  # the active cell
EDITING = re.compile(r"\bediting\b")


def lines(cell: Locator) -> str:
    return cell.locator(".cm-line").evaluate_all("(lines) => lines.map((line) => line.textContent).join('\\n')")


def texts(page: Page) -> list[str]:
    return [lines(cells(page).nth(i)) for i in range(cells(page).count())]


def expect_texts(page: Page, wanted: list[str]) -> None:
    expect(cells(page)).to_have_count(len(wanted))
    for i, text in enumerate(wanted):
        expect(cells(page).nth(i).locator(".cm-content")).to_have_text(text.replace("\n", ""))
    assert texts(page) == wanted


def selected_count(page: Page) -> int:
    return page.locator(SELECTED).count()


def click_prompt(page: Page, index: int, **kwargs: object) -> None:
    cells(page).nth(index).get_by_test_id("cell-drag-handle").click(**kwargs)  # type: ignore[arg-type]


def record_events(page: Page) -> list[str]:
    """The types of the document events this tab receives from now on."""
    seen: list[str] = []

    def on_ws(ws) -> None:  # type: ignore[no-untyped-def]
        ws.on("framereceived", lambda frame: seen.append(json.loads(frame)["type"]) if isinstance(frame, str) else None)

    page.on("websocket", on_ws)
    return seen


def five(server: Server) -> str:
    write_notebook(server.root / "m.ipynb", [("code", f"a{i}") for i in range(5)])
    return server.url("/notebooks/m.ipynb")


def test_shift_arrows_shift_click_and_ctrl_a_select_then_dd_deletes_all_and_z_restores(
        server: Server, page: Page) -> None:
    open_notebook(page, five(server))
    click_prompt(page, 1)
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowDown")
    expect(page.locator(SELECTED)).to_have_count(3)
    expect(page.locator(".cell.multi-selected")).to_have_count(3)
    expect(cells(page).nth(3)).to_have_class(SELECTED_CLASS)  # the active cell moved with the keys
    page.keyboard.press("Shift+ArrowUp")
    expect(page.locator(SELECTED)).to_have_count(2)
    click_prompt(page, 4, modifiers=["Shift"])
    expect(page.locator(SELECTED)).to_have_count(4)
    page.screenshot(path="/work/notes/multicell-selection.png")

    page.keyboard.press("d")
    page.keyboard.press("d")
    expect_texts(page, ["a0"])
    page.keyboard.press("z")
    expect_texts(page, ["a0", "a1", "a2", "a3", "a4"])

    click_prompt(page, 2)
    expect(page.locator(SELECTED)).to_have_count(1)
    page.keyboard.press("Control+a")
    expect(page.locator(SELECTED)).to_have_count(5)
    page.keyboard.press("ArrowUp")  # a plain arrow collapses the selection
    expect(page.locator(SELECTED)).to_have_count(1)
    page.keyboard.press("Shift+End")  # from the active cell (a1) to the last
    expect(page.locator(SELECTED)).to_have_count(4)
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_merge_is_one_change_in_another_tab_and_z_undoes_it(server: Server, context: BrowserContext) -> None:
    url = five(server)
    a, b = context.new_page(), context.new_page()
    open_notebook(a, url)
    open_notebook(b, url)
    seen = record_events(b)
    b.reload()
    expect(b.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")

    click_prompt(a, 1)
    a.keyboard.press("Shift+ArrowDown")
    a.keyboard.press("Shift+ArrowDown")
    a.keyboard.press("Shift+M")
    merged = ["a0", "a1\n\na2\n\na3", "a4"]
    expect_texts(a, merged)
    expect_texts(b, merged)
    assert [t for t in seen if t.startswith("cell")] == ["cells_replaced"]  # one change, not five
    expect(cells(a).nth(1)).to_have_class(SELECTED_CLASS)

    a.keyboard.press("Shift+M")  # one cell selected: merged with the one below
    expect_texts(b, ["a0", "a1\n\na2\n\na3\n\na4"])
    a.keyboard.press("z")
    a.keyboard.press("z")
    expect_texts(b, ["a0", "a1", "a2", "a3", "a4"])
    expect_texts(a, ["a0", "a1", "a2", "a3", "a4"])


def test_split_at_the_cursor_and_around_a_selection(server: Server, page: Page) -> None:
    write_notebook(server.root / "s.ipynb", [("code", "x = 1\ny = 2\nz = 3")])
    open_notebook(page, server.url("/notebooks/s.ipynb"))
    editor = cells(page).nth(0).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("ArrowDown")  # the start of "y = 2"
    page.keyboard.press("Control+Shift+Minus")
    expect_texts(page, ["x = 1", "y = 2\nz = 3"])
    expect(cells(page).nth(1)).to_have_class(EDITING)  # the part after the cursor, in edit mode
    page.keyboard.press("Shift+End")  # select "y = 2"
    page.keyboard.press("Control+Shift+Minus")
    expect_texts(page, ["x = 1", "", "y = 2", "z = 3"])
    page.keyboard.press("Escape")
    page.keyboard.press("z")
    page.keyboard.press("z")
    expect_texts(page, ["x = 1\ny = 2\nz = 3"])


def test_drag_by_the_left_column_moves_a_cell_or_the_whole_selection(server: Server, context: BrowserContext) -> None:
    url = five(server)
    a, b = context.new_page(), context.new_page()
    open_notebook(a, url)
    open_notebook(b, url)
    handle = cells(a).nth(0).get_by_test_id("cell-drag-handle")
    box = cells(a).nth(2).bounding_box()
    assert box is not None
    handle.drag_to(cells(a).nth(2), target_position={"x": 100, "y": box["height"] - 4})  # below a2
    expect_texts(a, ["a1", "a2", "a0", "a3", "a4"])
    expect_texts(b, ["a1", "a2", "a0", "a3", "a4"])

    click_prompt(a, 3)
    a.keyboard.press("Shift+ArrowDown")  # a3, a4 selected
    cells(a).nth(4).get_by_test_id("cell-drag-handle").drag_to(cells(a).nth(0), target_position={"x": 100, "y": 3})
    expect_texts(b, ["a3", "a4", "a1", "a2", "a0"])
    a.keyboard.press("z")
    expect_texts(a, ["a1", "a2", "a0", "a3", "a4"])


def test_copy_paste_type_move_and_run_act_on_the_selection(server: Server, context: BrowserContext) -> None:
    write_notebook(server.root / "r.ipynb",
                   [("code", "print('one')"), ("markdown", "# two"), ("code", "print('three')"), ("code", "x")])
    url = server.url("/notebooks/r.ipynb")
    a, b = context.new_page(), context.new_page()
    open_notebook(a, url)
    open_notebook(b, url)
    click_prompt(a, 0)
    a.keyboard.press("Shift+ArrowDown")
    a.keyboard.press("Shift+ArrowDown")
    a.keyboard.press("c")
    click_prompt(a, 3)
    a.keyboard.press("v")  # three cells pasted below x, in order, with their types
    expect_texts(b, ["print('one')", "# two", "print('three')", "x", "print('one')", "# two", "print('three')"])
    expect(cells(b).nth(5)).to_have_attribute("data-cell-type", "markdown")
    expect(a.locator(SELECTED)).to_have_count(3)  # the pasted cells are selected

    a.keyboard.press("Control+ArrowUp")  # the three move up past x
    expect_texts(b, ["print('one')", "# two", "print('three')", "print('one')", "# two", "print('three')", "x"])
    a.keyboard.press("r")
    for i in (3, 4, 5):
        expect(cells(b).nth(i)).to_have_attribute("data-cell-type", "raw")
    a.keyboard.press("z")  # the type change is one step
    expect(cells(b).nth(4)).to_have_attribute("data-cell-type", "markdown")
    expect(cells(b).nth(3)).to_have_attribute("data-cell-type", "code")

    click_prompt(a, 0)
    a.keyboard.press("Shift+ArrowDown")
    a.keyboard.press("Shift+ArrowDown")
    a.keyboard.press("Shift+Enter")  # runs all three, then selects the next cell
    expect(output(cells(a).nth(0))).to_contain_text("one", timeout=KERNEL_TIMEOUT)
    expect(output(cells(a).nth(2))).to_contain_text("three", timeout=KERNEL_TIMEOUT)
    expect(cells(a).nth(1).get_by_test_id("markdown-rendered")).to_be_visible()
    expect(cells(a).nth(3)).to_have_class(SELECTED_CLASS)
    expect(a.locator(SELECTED)).to_have_count(1)
