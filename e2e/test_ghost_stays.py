"""A ghost text once drawn is never taken back by the server (#30): on notebook benchmark cells from
repositories nobody trained on (`unseen-test`), with the shipped model and the default settings, the
page records every ghost text it draws, and each one after the first either extends the one before or
follows something the user did (typed, pasted, pressed a key). Both kinds of request run at each
cursor: the automatic one after the pause, then Ctrl+Space."""

from __future__ import annotations

import re

import pytest
from ghostbook.eval.notebook_data import load_notebooks, packaged_split
from ghostbook.eval.notebook_tasks import notebook_tasks
from playwright.sync_api import Page, expect

from .helpers import Server, cells, open_notebook, wait_idle, write_notebook

NOTEBOOKS = 3  # the first notebooks of the split with at least `MIN_CELLS` code cells
MIN_CELLS = 4

RECORDER = """
window.__ghostEvents = [];
const ghostText = () => [...document.querySelectorAll('[data-testid="ghost-text"]')]
  .map((g) => g.textContent).join('\\n');
let last = '';
new MutationObserver(() => {
  const now = ghostText();
  if (now !== last) { window.__ghostEvents.push({kind: 'ghost', text: now}); last = now; }
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
document.addEventListener('keydown', (e) => window.__ghostEvents.push({kind: 'user', key: e.key}), true);
"""


@pytest.fixture
def completion_settings() -> dict[str, object]:
    return {"model": "default", "debounce_ms": 250}  # the rest: the defaults


def withdrawals(events: list[dict[str, str]]) -> list[tuple[str, str]]:
    """(shown, what replaced it) for each ghost text that changed into one not extending it with no
    user action in between."""
    found, shown = [], ""
    for event in events:
        if event["kind"] == "user":
            shown = ""
        elif shown and not event["text"].startswith(shown):
            found.append((shown, event["text"]))
            shown = event["text"]
        else:
            shown = event["text"]
    return found


def test_withdrawals_are_found() -> None:
    """The check itself: a text cut back or removed without a keystroke is a withdrawal; after one, not."""
    assert withdrawals([{"kind": "ghost", "text": "a"}, {"kind": "ghost", "text": "ab"},
                        {"kind": "ghost", "text": ""}]) == [("ab", "")]
    assert withdrawals([{"kind": "ghost", "text": "ab"}, {"kind": "user", "key": "x"},
                        {"kind": "ghost", "text": ""}, {"kind": "ghost", "text": "c"}]) == []


def test_no_ghost_text_is_withdrawn_on_unseen_notebooks(server: Server, page: Page) -> None:
    notebooks = [nb for nb in load_notebooks(packaged_split("unseen-test")) if len(nb.cells) >= MIN_CELLS]
    page.add_init_script(RECORDER)
    drawn = 0
    for k, nb in enumerate(notebooks[:NOTEBOOKS]):
        name = f"unseen{k}.ipynb"
        write_notebook(server.root / name, [("code", c) for c in nb.cells])
        open_notebook(page, server.url(f"/notebooks/{name}"))
        wait_idle(page)
        for task in notebook_tasks([nb]):
            cell = cells(page).nth(task.index)
            content = cell.get_by_test_id("cell-editor").locator(".cm-content")
            content.click()
            page.keyboard.press("Control+a")
            source = task.cells[task.index]
            page.keyboard.insert_text(source)  # a paste: the automatic request follows the pause
            page.keyboard.press("Control+Home")
            for _ in range(source[: task.cursor].count("\n")):
                page.keyboard.press("ArrowDown")
            page.keyboard.press("End")
            editor = cell.locator(".cm-editor")
            page.wait_for_timeout(600)  # the pause: an automatic request
            before = editor.get_attribute("data-ghost-last") or ""
            page.keyboard.press("Control+Space")
            expect(editor).not_to_have_attribute("data-ghost-last", before, timeout=30_000)
            expect(editor).to_have_attribute("data-ghost-last", re.compile(r" (shown|empty)$"), timeout=30_000)
            page.wait_for_timeout(300)  # a late withdrawal would come now
            page.keyboard.press("Escape")
            page.keyboard.press("Control+a")
            page.keyboard.insert_text(nb.cells[task.index])  # the cell as it was
        events = page.evaluate("window.__ghostEvents")
        drawn += sum(e["kind"] == "ghost" and bool(e["text"]) for e in events)
        assert not withdrawals(events), withdrawals(events)
    assert drawn >= 5, "the model drew almost no ghost text: nothing was checked"
