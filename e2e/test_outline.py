"""The outline (issue 37, item 4): the table of contents lists the headings and jumps to them, Ctrl+Shift+K
shows it, heading sections collapse (saved as JupyterLab's `jp-MarkdownHeadingCollapsed`, the classic
Notebook's `heading_collapsed` read too), arrow keys skip hidden cells, `#heading` links jump."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from .helpers import Server, cells, open_notebook, write_notebook

SELECTED = re.compile(r"\bselected\b")
ACTIVE = re.compile(r"\bactive\b")
NOTEBOOK = [
    ("markdown", "# Intro\n\nSee [the part](#Part-A)."),
    ("code", "x = 1"),
    ("markdown", "## Part A"),
    ("code", "y = 2"),
    ("markdown", "### Detail\n\ntext"),
    ("code", "z = 3"),
    ("markdown", "Setext part\n-----------"),
    ("code", "w = 4"),
]


def saved_cells(path: Path, wanted: Any = None) -> list[dict[str, Any]]:
    """The saved file's cells, once `wanted(cells)` holds (saving is asynchronous)."""
    for _ in range(100):
        found = json.loads(path.read_text())["cells"]
        if wanted is None or wanted(found):
            return found
        time.sleep(0.1)
    raise AssertionError(f"the saved file never matched: {path.read_text()}")


def edit_markdown(page: Page, index: int, text: str) -> None:
    """Open a rendered Markdown cell's editor, replace its text and render it again."""
    cells(page).nth(index).get_by_test_id("markdown-rendered").dblclick()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)
    page.keyboard.press("Escape")


def test_outline_lists_headings_jumps_and_follows_edits(server: Server, context: BrowserContext) -> None:
    write_notebook(server.root / "toc.ipynb", NOTEBOOK)
    page, other = context.new_page(), context.new_page()
    open_notebook(page, server.url("/notebooks/toc.ipynb"))
    panel = page.get_by_test_id("outline-panel")
    expect(panel).to_be_hidden()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Shift+K")  # JupyterLab's key for the table of contents
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("outline-item")).to_have_text(["Intro", "Part A", "Detail", "Setext part"])
    expect(page.get_by_test_id("outline-item").nth(2)).to_have_attribute("data-level", "3")

    page.get_by_test_id("outline-item").filter(has_text="Detail").click()
    expect(cells(page).nth(4)).to_have_class(SELECTED)
    page.keyboard.press("ArrowDown")  # the code cell under "Detail": its section stays highlighted
    expect(cells(page).nth(5)).to_have_class(SELECTED)
    expect(page.get_by_test_id("outline-item").filter(has_text="Detail")).to_have_class(ACTIVE)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(page.get_by_test_id("outline-item").filter(has_text="Setext part")).to_have_class(ACTIVE)

    # live: a heading typed here, and one typed in another tab
    edit_markdown(page, 2, "## Part A renamed")
    expect(page.get_by_test_id("outline-item").nth(1)).to_have_text("Part A renamed")
    open_notebook(other, server.url("/notebooks/toc.ipynb"))
    edit_markdown(other, 6, "# Finale")
    expect(page.get_by_test_id("outline-item").last).to_have_text("Finale")

    # Ctrl+Shift+K and the toolbar button both toggle it
    page.keyboard.press("Control+Shift+K")
    expect(panel).to_be_hidden()
    page.get_by_test_id("toggle-outline").click()
    expect(panel).to_be_visible()
    assert not getattr(page, "js_errors", [])


def test_collapsed_section_hides_cells_persists_and_expands(server: Server, context: BrowserContext) -> None:
    write_notebook(server.root / "fold.ipynb", NOTEBOOK)
    saved = server.root / "fold.ipynb"
    page, other = context.new_page(), context.new_page()
    open_notebook(page, server.url("/notebooks/fold.ipynb"))
    open_notebook(other, server.url("/notebooks/fold.ipynb"))
    part = cells(page).nth(2)
    part.get_by_test_id("heading-toggle").click()
    # "## Part A" hides everything to the next heading of level 2 or higher (the setext "Setext part")
    for index in (3, 4, 5):
        expect(cells(page).nth(index)).to_be_hidden()
    expect(cells(page).nth(6)).to_be_visible()
    expect(part.get_by_test_id("hidden-cells-button")).to_have_text("3 cells hidden")
    for index in (3, 4, 5):  # the other tab follows
        expect(cells(other).nth(index)).to_be_hidden()

    # command-mode arrows skip the hidden cells
    part.get_by_test_id("markdown-rendered").click()
    page.keyboard.press("ArrowDown")
    expect(cells(page).nth(6)).to_have_class(SELECTED)
    page.keyboard.press("ArrowUp")
    expect(part).to_have_class(SELECTED)

    page.keyboard.press("Control+s")
    found = saved_cells(saved, lambda c: c[2]["metadata"].get("jp-MarkdownHeadingCollapsed") is True)
    assert "heading_collapsed" not in found[2]["metadata"]

    page.reload()  # a reopen shows it collapsed
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    expect(cells(page).nth(4)).to_be_hidden()

    # selecting a hidden cell (from the outline) expands its section, as JupyterLab does
    if not page.get_by_test_id("outline-panel").is_visible():
        page.get_by_test_id("toggle-outline").click()
    page.get_by_test_id("outline-item").filter(has_text="Detail").click()
    expect(cells(page).nth(4)).to_be_visible()
    expect(cells(page).nth(4)).to_have_class(SELECTED)
    expect(cells(other).nth(4)).to_be_visible()
    page.keyboard.press("Control+s")
    saved_cells(saved, lambda c: "jp-MarkdownHeadingCollapsed" not in c[2]["metadata"])

    # the "N cells hidden" button expands too
    cells(page).nth(0).get_by_test_id("heading-toggle").click()
    expect(cells(page).nth(1)).to_be_hidden()
    cells(page).nth(0).get_by_test_id("hidden-cells-button").click()
    expect(cells(page).nth(1)).to_be_visible()


def test_classic_heading_collapsed_opens_collapsed(server: Server, page: Page) -> None:
    path = server.root / "classic.ipynb"
    write_notebook(path, [("markdown", "# Top"), ("markdown", "## Folded"), ("code", "a = 1"), ("markdown", "## Open"),
                          ("code", "b = 2")])
    notebook = json.loads(path.read_text())
    notebook["cells"][1]["metadata"] = {"heading_collapsed": True}  # what the classic nbextension writes
    notebook["cells"][2]["metadata"] = {"hidden": True}
    path.write_text(json.dumps(notebook))
    open_notebook(page, server.url("/notebooks/classic.ipynb"))
    expect(cells(page).nth(2)).to_be_hidden()
    expect(cells(page).nth(4)).to_be_visible()
    cells(page).nth(1).get_by_test_id("heading-toggle").click()
    expect(cells(page).nth(2)).to_be_visible()
    page.keyboard.press("Control+s")
    found = saved_cells(path, lambda c: "heading_collapsed" not in c[1]["metadata"])
    assert "jp-MarkdownHeadingCollapsed" not in found[1]["metadata"]


def test_heading_link_jumps_to_its_cell(server: Server, page: Page) -> None:
    many = [NOTEBOOK[0]] + [("code", f"v{i} = {i}") for i in range(12)] + NOTEBOOK[2:]
    write_notebook(server.root / "links.ipynb", many)
    open_notebook(page, server.url("/notebooks/links.ipynb"))
    link = cells(page).nth(0).get_by_test_id("markdown-rendered").get_by_role("link", name="the part")
    expect(link).not_to_have_attribute("target", "_blank")
    link.click()
    target = cells(page).nth(13)
    expect(target).to_have_class(SELECTED)
    expect(target).to_be_in_viewport()
    assert "#" not in page.url
