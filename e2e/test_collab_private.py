"""What one tab is shown privately never reaches the other tabs on the same notebook (issue 41): ghost
text, the intellisense popup and an AI edit's review are drawn in this tab only; the text they would
change stays as it is everywhere until accepted."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .ghost_helpers import PROMPT, doc_text, ghost, ghost_model, wait_ghost_done  # noqa: F401
from .helpers import Server, open_notebook, wait_idle, write_notebook
from .test_collaboration import NewTab, cell_by_id, content, new_tab, shot  # noqa: F401
from .test_edit_ai import ChatStandIn, ask, chat, review_done  # noqa: F401


@pytest.fixture
def completion_settings(ghost_model: str, chat: ChatStandIn) -> dict[str, object]:  # noqa: F811
    return {"model": ghost_model, "max_new_tokens": 16, "debounce_ms": 500, "edit_model": f"openai:{chat.url}"}


def test_ghost_text_popup_and_review_stay_in_their_tab(server: Server, new_tab: NewTab) -> None:  # noqa: F811
    write_notebook(server.root / "private.ipynb", [("code", "import math"), ("code", "")])
    url = server.url("/notebooks/private.ipynb")
    a, b = new_tab(None, "Ada Lovelace"), new_tab(None, "Grace Hopper")
    for page in (a, b):
        open_notebook(page, url)
    wait_idle(a)
    cell_a, cell_b = cell_by_id(a, "cell1"), cell_by_id(b, "cell1")

    content(cell_a).click()
    a.keyboard.type(PROMPT)
    wait_ghost_done(a)
    expect(content(cell_b)).to_have_text(PROMPT)
    b.wait_for_timeout(300)  # what A's tab shows would have arrived by now
    expect(ghost(b)).to_have_count(0)
    assert doc_text(cell_b) == PROMPT
    shot(b, "collab-private-ghost-b.png")

    a.keyboard.press("Escape")  # the ghost text goes; now the kernel's completions for `ma`
    a.keyboard.press("Enter")
    a.keyboard.type("ma")
    expect(a.get_by_test_id("completion-popup")).to_be_visible()
    expect(content(cell_b)).to_have_text(PROMPT + "ma")
    b.wait_for_timeout(300)
    expect(b.get_by_test_id("completion-popup")).to_have_count(0)
    a.keyboard.press("Escape")

    ask(a, cell_a, "use math.pi")  # Ctrl+K: the review in A only
    review_done(cell_a)
    b.wait_for_timeout(300)
    for testid in ("edit-review", "edit-prompt-box"):
        expect(cell_b.get_by_test_id(testid)).to_be_hidden()
    assert doc_text(cell_b) == f"{PROMPT}\nma"
    cell_a.get_by_test_id("edit-reject").click()
    expect(cell_a.get_by_test_id("edit-review")).to_be_hidden()
    assert doc_text(cell_a) == doc_text(cell_b) == f"{PROMPT}\nma"
    assert a.js_errors == [] and b.js_errors == []  # type: ignore[attr-defined]
