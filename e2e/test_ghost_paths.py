"""Ghost text at a reading call's path names a file that is there, as a user sees it with the shipped
model: the kernel's working folder (the notebook's) says which files there are."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .ghost_helpers import doc_text, shot, type_and_settle, wait_ghost_done
from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, type_in_cell, write_notebook


@pytest.fixture
def completion_settings() -> dict[str, object]:
    return {"model": "default"}  # the shipped model, automatic requests after the usual pause


def test_read_csv_gets_the_file_beside_the_notebook(server: Server, page: Page) -> None:
    project = server.root / "paths-project"
    (project / "data").mkdir(parents=True)
    (project / "data" / "sales_2024.csv").write_text("region,revenue\nnorth,120\nsouth,340\n")
    (project / "notes.txt").write_text("not data for read_csv's first place\n")
    write_notebook(project / "sales.ipynb", [("code", "import pandas as pd"), ("code", "")])
    open_notebook(page, server.url("/notebooks/paths-project/sales.ipynb"))
    cells(page).nth(0).get_by_test_id("run-cell").click()
    expect(cells(page).nth(0).get_by_test_id("cell-prompt")).to_have_text("[1]", timeout=KERNEL_TIMEOUT)
    cell = cells(page).nth(1)
    type_in_cell(page, cell, "")
    # the pause after the bracket (the editor closes it): the one CSV there shows without Ctrl+Space
    assert type_and_settle(page, cell, "df = pd.read_csv(") == "shown"
    assert wait_ghost_done(page) == "'data/sales_2024.csv'"
    shot(page, "ghost-path.png")
    page.keyboard.press("Tab")
    assert doc_text(cell) == "df = pd.read_csv('data/sales_2024.csv')"
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.keyboard.type("df")
    page.keyboard.press("Shift+Enter")
    expect(cell.get_by_test_id("cell-output")).to_contain_text("south", timeout=KERNEL_TIMEOUT)
