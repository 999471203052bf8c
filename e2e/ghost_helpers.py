"""Helpers and fixtures shared by the ghost-text e2e tests (test_ghost_text.py, test_settings.py,
test_ghost_latency.py). The model is the tiny deterministic one from ghost_model.py, or whatever
GHOSTBOOK_E2E_MODEL names ("default" for the shipped model, or a .gguf path): no test assumes
particular text, only that the model suggests something after `PROMPT`."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from .ghost_model import build_cycle_gguf

# A line that does not parse yet, so no model's suggestion is dropped for breaking the cell's syntax.
PROMPT = "total = 1 +"
GHOST_TIMEOUT = 20_000  # the first request may wait for the model to load


@pytest.fixture(scope="session")
def ghost_model() -> Iterator[str]:
    chosen = os.environ.get("GHOSTBOOK_E2E_MODEL")
    if chosen:
        yield chosen
        return
    folder = Path(tempfile.mkdtemp(prefix="ghostbook-e2e-model-"))
    try:
        yield str(build_cycle_gguf(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def ghost(page: Page) -> Locator:
    return page.get_by_test_id("ghost-text")


def wait_ghost_done(page: Page) -> str:
    """Wait until a suggestion has finished streaming; its text."""
    expect(ghost(page)).to_be_visible(timeout=GHOST_TIMEOUT)
    expect(ghost(page)).to_have_attribute("data-done", "true", timeout=GHOST_TIMEOUT)
    return ghost(page).text_content() or ""


def doc_text(cell: Locator) -> str:
    """The editor's text without the ghost text (which is drawn inside the editor's lines)."""
    return cell.get_by_test_id("cell-editor").locator(".cm-content").evaluate(
        """(content) => [...content.querySelectorAll('.cm-line')].map((line) => {
            const copy = line.cloneNode(true);
            copy.querySelectorAll('[data-testid="ghost-text"]').forEach((g) => g.remove());
            return copy.textContent;
        }).join('\\n')"""
    )


def open_settings(page: Page) -> Locator:
    panel = page.get_by_test_id("settings-panel")
    if not panel.is_visible():
        page.get_by_test_id("open-settings").click()
    expect(panel).to_be_visible()
    return panel


def stats(page: Page) -> dict[str, int]:
    """The live stats as the settings panel shows them (opening it moves the focus off the editor)."""
    panel = open_settings(page)
    element = panel.get_by_test_id("completion-stats")
    expect(element).to_have_attribute("data-requests", re.compile(r"^\d+$"))
    keys = ("shown", "accepted", "requests", "model-calls", "cache-hits")
    return {key: int(element.get_attribute(f"data-{key}") or 0) for key in keys}


def last_result(cell: Locator) -> str:
    """How the cell's last answered suggestion request ended: "shown", "empty" or "error"."""
    value = cell.locator(".cm-editor").get_attribute("data-ghost-last") or ""
    return value.split()[-1] if value else ""


def type_and_settle(page: Page, cell: Locator, text: str, timeout: float = GHOST_TIMEOUT) -> str:
    """Type `text`, then wait for the request the pause starts to be answered; its result."""
    editor = cell.locator(".cm-editor")
    before = editor.get_attribute("data-ghost-last")
    page.keyboard.type(text)
    if before is None:
        expect(editor).to_have_attribute("data-ghost-last", re.compile(r" \w+$"), timeout=timeout)
    else:
        expect(editor).not_to_have_attribute("data-ghost-last", before, timeout=timeout)
    return last_result(cell)


# Lines a person might pause after, that no model's suggestion can make stop parsing (they do not
# parse yet, even with the bracket the editor closes).
LINES = [PROMPT, "for r in range(", "values = [area(r) for r in", "if total >", "x = math.pi *"]


def find_suggestion(page: Page, cell: Locator, lines: list[str], long: int = 1) -> tuple[str, str]:
    """Replace the cell's text with each line in turn until the model suggests at least `long`
    characters (the first of them not a line break); the line and the suggestion."""
    for line in lines:
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        if type_and_settle(page, cell, line) == "shown":
            text = wait_ghost_done(page)
            if len(text) >= long and "\n" not in text[:long]:
                return line, text
    pytest.fail(f"the model suggested nothing of {long}+ characters after any of {lines}")


def shot(page: Page, name: str) -> None:
    """A screenshot into `$GHOSTBOOK_E2E_SHOTS`, if set (to look at what the user sees)."""
    folder = os.environ.get("GHOSTBOOK_E2E_SHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, name))
