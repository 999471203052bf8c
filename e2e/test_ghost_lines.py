"""Line-by-line suggestions with the shipped default model (`completion/further_lines.py`): a function
body found line by line shows as one ghost text of several lines, none that the loop rules forbid, and
Tab inserts it whole."""

from __future__ import annotations

import ast

import pytest
from ghostbook.decoding.repetition import looping_lines
from playwright.sync_api import Page

from .ghost_helpers import doc_text, wait_ghost_done
from .helpers import Server, cells, open_notebook, write_notebook

# HumanEval/14 with its body masked after `result = []`
SOURCE = '''from typing import List


def all_prefixes(string: str) -> List[str]:
    """ Return list of all prefixes from shortest to longest of the input string
    >>> all_prefixes('abc')
    ['a', 'ab', 'abc']
    """
    result = []

'''


@pytest.fixture
def completion_settings() -> dict[str, object]:
    # the shipped model with the editor's default decoding (beam 8, read check); no automatic requests
    return {"model": "default", "debounce_ms": 10_000}


def test_a_body_comes_line_by_line_without_loops(server: Server, page: Page) -> None:
    write_notebook(server.root / "lines.ipynb", [("code", SOURCE)])
    open_notebook(page, server.url("/notebooks/lines.ipynb"))
    cell = cells(page).nth(0)
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.press("Control+Space")
    text = wait_ghost_done(page)
    lines = text.split("\n")
    assert len(lines) >= 2 and all(line.strip() for line in lines), text  # several lines, none blank
    assert not any(lines[i].rstrip().encode() in looping_lines(lines[:i]) for i in range(1, len(lines))), text
    page.keyboard.press("Tab")
    source = doc_text(cell)
    assert source == SOURCE + text
    ast.parse(source)  # the suggestion leaves the cell parseable
