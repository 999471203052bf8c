"""Find and replace across the notebook (issue 37.3): one bar (Ctrl+F in command mode or in a cell,
Ctrl+H for replace) over every cell's source and, on request, its outputs (read-only); Replace All is one
operation, undone in one step. Screenshots go to /tmp/find_*.png."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import BrowserContext, Locator, Page, expect

from .helpers import Server, cells, open_notebook, set_cell_source, write_notebook

RENDERED = re.compile(r"\brendered\b")

CELLS = [
    ("code", "data = load()\nprint(data)"),
    ("markdown", "# About the data\nThe Data here is fine."),
    ("code", "DATA2 = data_x + 1"),
    ("code", "x = 1"),
]


def lines(cell: Locator) -> str:
    """The editor's text, line by line."""
    return cell.locator(".cm-line").evaluate_all("(lines) => lines.map((line) => line.textContent).join('\\n')")


def count(page: Page) -> Locator:
    return page.get_by_test_id("search-count")


def saved_sources(path: Path) -> list[str]:
    notebook = json.loads(path.read_text())
    return ["".join(cell["source"]) for cell in notebook["cells"]]


def expect_everywhere(path: Path, page: Page, other: Page, sources: list[str]) -> None:
    """Both tabs show `sources`; saved (Ctrl+S), the file holds them."""
    for tab in (page, other):
        for i, text in enumerate(sources):
            expect(cells(tab).nth(i).locator(".cm-content")).to_have_text(text.replace("\n", ""))
    page.keyboard.press("Control+s")
    expect(page.get_by_test_id("save-status")).to_have_text("saved")
    assert saved_sources(path) == sources


def current_cell(page: Page) -> Locator:
    return cells(page).filter(has=page.locator(".cm-searchMatch-selected"))


def new_page(context: BrowserContext) -> tuple[Page, list[str]]:
    """A second tab, with its page errors collected."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


def open_search(page: Page, path: str) -> None:
    open_notebook(page, path)
    expect(cells(page)).to_have_count(len(CELLS))


def test_ctrl_f_in_command_mode_counts_across_cells_and_moves(server: Server, page: Page) -> None:
    write_notebook(server.root / "f.ipynb", CELLS)
    open_search(page, server.url("/notebooks/f.ipynb"))
    expect(cells(page).nth(1)).to_have_class(RENDERED)
    page.keyboard.press("Control+f")  # command mode: the first cell is selected
    bar = page.get_by_test_id("search-bar")
    expect(bar).to_be_visible()
    expect(page.get_by_test_id("search-input")).to_be_focused()
    page.keyboard.type("data")
    # data ×2 in cell 1, data + Data in the markdown, DATA and data in cell 3
    expect(count(page)).to_have_text("1 of 6")
    expect(cells(page).nth(0).locator(".cm-searchMatch")).to_have_count(2)
    expect(cells(page).nth(2).locator(".cm-searchMatch")).to_have_count(2)
    expect(cells(page).nth(3).locator(".cm-searchMatch")).to_have_count(0)
    expect(current_cell(page)).to_have_attribute("data-cell-id", "cell0")

    page.keyboard.press("Enter")
    expect(count(page)).to_have_text("2 of 6")
    page.keyboard.press("Enter")  # the markdown cell: its source opens to show the match
    expect(count(page)).to_have_text("3 of 6")
    expect(current_cell(page)).to_have_attribute("data-cell-id", "cell1")
    expect(cells(page).nth(1)).not_to_have_class(RENDERED)
    page.screenshot(path="/tmp/find_markdown.png")
    page.keyboard.press("F3")
    page.keyboard.press("Control+g")
    expect(count(page)).to_have_text("5 of 6")
    expect(current_cell(page)).to_have_attribute("data-cell-id", "cell2")
    expect(cells(page).nth(1)).to_have_class(RENDERED)  # the search moved on: rendered again
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+F3")
    page.keyboard.press("Control+Shift+g")
    expect(count(page)).to_have_text("2 of 6")
    page.get_by_test_id("search-prev").click()
    page.get_by_test_id("search-prev").click()  # round the notebook to the last match
    expect(count(page)).to_have_text("6 of 6")
    page.screenshot(path="/tmp/find_matches.png")

    # toggles: case, whole word, regex
    page.get_by_test_id("search-case").click()
    expect(count(page)).to_have_text(re.compile(r"^\d of 4$"))  # data data data data_x
    page.get_by_test_id("search-word").click()
    expect(count(page)).to_have_text(re.compile(r"^\d of 3$"))  # data_x is no whole word
    page.get_by_test_id("search-case").click()
    expect(count(page)).to_have_text(re.compile(r"^\d of 4$"))  # + Data
    page.get_by_test_id("search-word").click()
    page.get_by_test_id("search-regex").click()
    page.get_by_test_id("search-input").fill(r"data\d|x = \d")
    expect(count(page)).to_have_text(re.compile(r"^\d of 2$"))
    page.get_by_test_id("search-input").fill("data(")  # invalid: a clear message, no crash
    expect(page.get_by_test_id("search-error")).to_contain_text("Invalid regular expression")
    expect(count(page)).to_have_text("")
    expect(page.locator(".cm-searchMatch")).to_have_count(0)
    page.get_by_test_id("search-input").fill("zzz")
    expect(count(page)).to_have_text("No results")
    expect(page.get_by_test_id("search-error")).to_be_hidden()

    page.keyboard.press("Escape")
    expect(bar).to_be_hidden()
    expect(page.locator(".cm-searchMatch")).to_have_count(0)
    expect(cells(page).nth(0)).to_be_focused()  # back where it was: the selected cell, command mode
    page.keyboard.press("Control+f")
    expect(page.get_by_test_id("search-input")).to_have_value("zzz")  # the last query, ready to change
    cells(page).nth(3).get_by_test_id("cell-prompt").click()  # command mode, the bar still open
    page.keyboard.press("Escape")
    expect(bar).to_be_hidden()
    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcuts-panel")).to_contain_text("Find in the whole notebook")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_ctrl_f_in_a_cell_opens_the_notebook_bar_not_codemirrors(server: Server, page: Page) -> None:
    write_notebook(server.root / "f.ipynb", CELLS)
    open_search(page, server.url("/notebooks/f.ipynb"))
    content = cells(page).nth(2).get_by_test_id("cell-editor").locator(".cm-content")
    content.click()
    page.keyboard.press("Home")
    for _ in range(8):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+Control+ArrowRight")  # selects the word data_x
    page.keyboard.press("Control+f")
    expect(page.get_by_test_id("search-bar")).to_be_visible()
    expect(page.locator(".cm-search")).to_have_count(0)  # CodeMirror's own per-cell panel stays closed
    expect(page.get_by_test_id("search-input")).to_have_value("data_x")
    expect(count(page)).to_have_text("1 of 1")
    page.get_by_test_id("search-input").fill("data")
    expect(count(page)).to_have_text("6 of 6")  # from the cursor on: the match after it, in cell 3
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("search-bar")).to_be_hidden()
    expect(content).to_be_focused()  # back in the cell's editor
    page.keyboard.type("!")  # the current match was left selected (as in any editor's find): typed over
    expect(cells(page).nth(2)).to_have_class(re.compile(r"\bediting\b"))
    expect(content).to_have_text("DATA2 = !_x + 1")
    page.keyboard.press("Control+f")  # open again: the last query, and the count follows typing
    expect(count(page)).to_have_text(re.compile(r"^\d of 5$"))
    cells(page).nth(3).get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.press("End")
    page.keyboard.type(" + data")
    expect(count(page)).to_have_text(re.compile(r"^\d of 6$"))


def test_replace_one_replace_all_saved_and_undone_in_one_step(server: Server, context: BrowserContext) -> None:
    path = server.root / "f.ipynb"
    write_notebook(path, CELLS)
    (page, errors), (other, _) = new_page(context), new_page(context)
    open_search(page, server.url("/notebooks/f.ipynb"))
    open_search(other, server.url("/notebooks/f.ipynb"))
    page.keyboard.press("Control+h")
    expect(page.get_by_test_id("replace-input")).to_be_visible()
    page.keyboard.type("data")
    page.get_by_test_id("replace-input").fill("frame")
    expect(count(page)).to_have_text("1 of 6")
    page.get_by_test_id("replace-one").click()  # the current match only, then the next is current
    expect(cells(page).nth(0).locator(".cm-content")).to_have_text("frame = load()print(data)")
    expect(count(page)).to_have_text("1 of 5")
    page.get_by_test_id("replace-all").click()
    expect(page.get_by_test_id("search-status")).to_have_text("Replaced 5 matches in 3 cells")
    expect(count(page)).to_have_text("No results")
    expect(page.get_by_test_id("search-undo")).to_be_visible()
    page.screenshot(path="/tmp/find_replace.png")
    after = ["frame = load()\nprint(frame)", "# About the frame\nThe frame here is fine.",
             "frame2 = frame_x + 1", "x = 1"]
    expect_everywhere(path, page, other, after)

    page.keyboard.press("Escape")  # the bar closes; focus goes back to the selected cell (command mode)
    page.keyboard.press("Control+z")  # one step: every cell comes back (as it was after Replace)
    before = ["frame = load()\nprint(data)", *(text for _, text in CELLS[1:])]
    expect_everywhere(path, page, other, before)

    # regex groups: $1 as JupyterLab's replace
    page.keyboard.press("Control+h")
    page.get_by_test_id("search-regex").click()
    page.get_by_test_id("search-input").fill(r"(\w+) = (\w+)")
    page.get_by_test_id("replace-input").fill("$2 = $1")
    page.get_by_test_id("replace-all").click()
    expect(cells(page).nth(3).locator(".cm-content")).to_have_text("1 = x")
    expect(cells(page).nth(0).locator(".cm-content")).to_have_text("load = frame()print(data)")
    page.get_by_test_id("search-undo").click()
    expect(cells(page).nth(3).locator(".cm-content")).to_have_text("x = 1")
    expect(page.get_by_test_id("search-undo")).to_be_hidden()
    assert errors == []


def test_outputs_are_searched_read_only_and_counts_follow_other_tabs(server: Server, context: BrowserContext) -> None:
    path = server.root / "o.ipynb"
    notebook = {
        "cells": [
            {"cell_type": "code", "id": "c0", "metadata": {}, "source": "print('total')", "execution_count": 1,
             "outputs": [{"output_type": "stream", "name": "stdout", "text": "the total is 3\ntotal done\n"}]},
            {"cell_type": "code", "id": "c1", "metadata": {}, "source": "total = 3", "execution_count": 2,
             "outputs": [{"output_type": "execute_result", "execution_count": 2, "metadata": {},
                          "data": {"text/plain": "'grand total'"}}]},
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook))
    (page, errors), (other, _) = new_page(context), new_page(context)
    open_notebook(page, server.url("/notebooks/o.ipynb"))
    open_notebook(other, server.url("/notebooks/o.ipynb"))
    page.keyboard.press("Control+f")
    page.keyboard.type("total")
    expect(count(page)).to_have_text("1 of 2")  # sources only
    page.get_by_test_id("search-outputs").check()
    expect(count(page)).to_have_text("1 of 5")  # + 2 in the stream, 1 in the result
    page.keyboard.press("Enter")
    expect(count(page)).to_have_text("2 of 5")  # the first output match: painted as the current one
    # 3 matches in outputs: the current one and 2 others
    assert page.evaluate("CSS.highlights.has('gb-search-current') && CSS.highlights.get('gb-search-match').size === 2")
    page.screenshot(path="/tmp/find_outputs.png")

    page.keyboard.press("Control+h")
    page.get_by_test_id("replace-input").fill("sum")
    page.get_by_test_id("replace-all").click()
    expect(page.get_by_test_id("search-status")).to_have_text("Replaced 2 matches in 2 cells")
    expect(count(page)).to_have_text("1 of 3")  # the outputs are untouched
    expect(cells(page).nth(0).get_by_test_id("cell-output")).to_contain_text("the total is 3")
    expect(cells(page).nth(1).locator(".cm-content")).to_have_text("sum = 3")

    # an edit here, then one in another tab: the count follows
    cells(page).nth(0).get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.press("End")
    page.keyboard.type("  # total")
    expect(count(page)).to_have_text(re.compile(r"^\d of 4$"))
    set_cell_source(other, cells(other).nth(1), "total = total + 1")
    expect(count(page)).to_have_text(re.compile(r"^\d of 6$"))
    assert errors == []
