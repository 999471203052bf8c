"""#14.3 in the browser: opening a notebook (and leaving it open) never rewrites the file; a file
that is not a valid nbformat 4 notebook shows a clear error and keeps its bytes."""

from __future__ import annotations

import json
import os
import time

from playwright.sync_api import Page, expect

from .helpers import Server, cells, open_notebook, wait_idle

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "md", "metadata": {"tool": {"x": 1}}, "source": "# Kept as it is"},
        {"cell_type": "code", "id": "code", "execution_count": 3, "metadata": {"custom": True},
         "source": "x = 1\nx", "outputs": [{"output_type": "execute_result", "execution_count": 3,
                                             "metadata": {}, "data": {"text/plain": "1"}}]},
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "A label that differs", "language": "python"},
                 "my_tool": {"keep": [1, 2]}},
    "nbformat": 4, "nbformat_minor": 5,
}


def test_opening_in_the_browser_leaves_the_file_alone(server: Server, page: Page) -> None:
    path = server.root / "kept.ipynb"
    path.write_text(json.dumps(NOTEBOOK, indent=4))
    before = path.read_bytes(), os.stat(path).st_mtime_ns
    open_notebook(page, server.url("/notebooks/kept.ipynb"))
    wait_idle(page)
    expect(cells(page)).to_have_count(2)
    time.sleep(4)  # past every autosave delay
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before
    assert not page.js_errors  # type: ignore[attr-defined]


def test_a_file_without_nbformat_shows_an_error_and_keeps_its_bytes(server: Server, page: Page) -> None:
    path = server.root / "old.ipynb"
    content = json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# mine"}], "metadata": {}})
    path.write_text(content)
    page.goto(server.url("/notebooks/old.ipynb"))
    error = page.get_by_test_id("notebook-error")
    expect(error).to_contain_text("cannot be opened")
    expect(error).to_contain_text("no nbformat version")
    time.sleep(1)
    assert path.read_text() == content
