"""The user's own completion statistics in the settings panel (issue 30.7): accepting ghost text is
counted per day, kind and model in the server's SQLite file, charted, and Reset forgets it all."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import Page, expect

from .ghost_helpers import PROMPT, ghost, ghost_model, open_settings, wait_ghost_done  # noqa: F401
from .helpers import Server, cells, open_notebook, wait_idle, write_notebook


@pytest.fixture
def completion_settings(ghost_model: str) -> dict[str, object]:  # noqa: F811
    return {"model": ghost_model, "max_new_tokens": 16, "debounce_ms": 300}


def test_accepted_suggestions_are_charted_and_reset(server: Server, page: Page, ghost_model: str) -> None:  # noqa: F811
    write_notebook(server.root / "t.ipynb", [("code", "import math"), ("code", "")])
    open_notebook(page, server.url("/notebooks/t.ipynb"))
    wait_idle(page)
    cells(page).nth(1).get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type(PROMPT)
    wait_ghost_done(page)
    page.keyboard.press("Tab")  # the whole suggestion
    expect(ghost(page)).to_have_count(0)
    page.keyboard.type(" +")
    wait_ghost_done(page)
    page.keyboard.press("Control+ArrowRight")  # one word of the next

    panel = open_settings(page)
    section = panel.get_by_test_id("telemetry")
    section.scroll_into_view_if_needed()
    summary = section.get_by_test_id("telemetry-summary")
    expect(summary).to_have_attribute("data-accepted", "2")
    expect(summary).to_have_attribute("data-whole", "1")
    expect(summary).to_have_attribute("data-word", "1")
    assert int(summary.get_attribute("data-shown") or 0) >= 2
    expect(summary).to_contain_text("accepted 2")
    expect(section.get_by_test_id("telemetry-note")).to_contain_text("on this machine only")
    table = section.get_by_test_id("telemetry-table")
    expect(table.locator('tr[data-kind="end_of_line"]')).to_be_visible()
    expect(table.locator("tr[data-model]")).to_have_count(1)  # the one model
    chart = section.get_by_test_id("telemetry-chart")
    expect(chart).to_have_attribute("data-days", "14")
    expect(chart.locator("canvas")).to_be_visible()
    expect(chart.locator(".u-legend")).to_contain_text("accepted")
    expect(section.get_by_test_id("telemetry-error")).to_be_hidden()
    assert (server.root.parent / "telemetry.sqlite").stat().st_size > 0  # the server's own file
    shots = os.environ.get("GHOSTBOOK_E2E_SHOTS")
    if shots:
        section.screenshot(path=os.path.join(shots, "telemetry.png"))

    # a filter by kind: nothing was asked mid-line
    section.get_by_test_id("telemetry-kind").select_option("mid_line")
    expect(summary).to_have_attribute("data-shown", "0")
    section.get_by_test_id("telemetry-kind").select_option("")
    expect(summary).to_have_attribute("data-accepted", "2")

    # Reset asks first: Cancel keeps everything, Reset forgets it
    section.get_by_test_id("telemetry-reset").click()
    dialog = page.get_by_test_id("telemetry-reset-dialog")
    expect(dialog).to_contain_text("Forget your completion statistics?")
    dialog.get_by_test_id("telemetry-reset-cancel").click()
    expect(dialog).to_have_count(0)
    expect(summary).to_have_attribute("data-accepted", "2")
    section.get_by_test_id("telemetry-reset").click()
    page.get_by_test_id("telemetry-reset-confirm").click()
    expect(summary).to_have_attribute("data-shown", "0")
    expect(summary).to_have_text(re.compile("no suggestions recorded"))
    expect(table).to_be_hidden()
    expect(panel).to_be_visible()  # the dialog's keys and clicks did not close the panel
    assert page.js_errors == []  # type: ignore[attr-defined]
