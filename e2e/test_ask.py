"""Ask the notebook in the browser (issue 38, item 3): the Ask panel, a question about the selected cell,
the answer streamed as Markdown (sanitised), Insert below on its code block, the conversation shared by
the tabs and kept across a reload (server memory) but never written into the .ipynb, New conversation,
Stop, and no model chosen.

The edit model is the loopback `openai:` stand-in of the Edit with AI tests (`ChatStandIn`), streaming a
scripted answer through the server's real remote-chat path. Screenshots go to /tmp/ask_*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from .helpers import Server, cells, editor_text, open_notebook, wait_idle, write_notebook
from .test_edit_ai import ChatStandIn
from .test_reconnect import saved_sources, wait_saved

SHOTS = Path("/tmp")
ANSWER_TIMEOUT = 60_000
CELLS = [("code", "import math\nradius = 2"), ("code", "print('the end')")]
CODE = "area = math.pi * radius ** 2\nprint(area)"
ANSWER = (f"The cell sets a **radius**. To get the area:\n\n```python\n{CODE}\n```\n\n"
          "- `math.pi` is exact\n- <img src=x onerror=\"window.pwned = 1\"><script>window.pwned = 2</script>")
QUESTION = "how do I get the area?"


@pytest.fixture
def chat() -> Iterator[ChatStandIn]:
    standin = ChatStandIn()
    standin.answer = ANSWER
    yield standin
    standin.stop()


@pytest.fixture
def completion_settings(chat: ChatStandIn) -> dict[str, object]:
    return {"enabled": False, "edit_model": f"openai:{chat.url}"}


def open_ask(page: Page) -> Locator:
    page.get_by_test_id("toggle-ask").click()
    panel = page.get_by_test_id("ask-panel")
    expect(panel).to_be_visible()
    return panel


def ask(page: Page, question: str) -> None:
    field = page.get_by_test_id("ask-input")
    field.click()
    page.keyboard.type(question)
    page.keyboard.press("Enter")


def answered(panel: Locator, index: int = 0) -> Locator:
    turn = panel.get_by_test_id("ask-turn").nth(index)
    expect(turn).to_have_attribute("data-state", "done", timeout=ANSWER_TIMEOUT)
    return turn


def test_ask_streams_markdown_inserts_its_code_below_and_is_kept_for_every_tab_but_not_in_the_file(
        server: Server, page: Page, context: BrowserContext, chat: ChatStandIn) -> None:
    chat.delay = 0.08  # slow enough to see it stream
    write_notebook(server.root / "ask.ipynb", CELLS)
    open_notebook(page, server.url("/notebooks/ask.ipynb"))
    wait_idle(page)
    cells(page).nth(0).get_by_test_id("cell-editor").locator(".cm-content").click()  # select the first cell
    page.keyboard.press("Escape")

    panel = open_ask(page)
    expect(page.get_by_test_id("toggle-ask")).to_have_attribute("aria-pressed", "true")
    expect(panel.get_by_test_id("ask-empty")).to_be_visible()
    expect(panel.get_by_test_id("ask-input")).to_be_focused()
    expect(panel.get_by_test_id("ask-about")).to_have_text("About cell 1 and the whole notebook")
    ask(page, QUESTION)
    turn = panel.get_by_test_id("ask-turn").nth(0)
    expect(turn).to_have_attribute("data-state", "answering")
    expect(panel.get_by_test_id("ask-stop")).to_be_visible()
    expect(turn.get_by_test_id("ask-answer")).to_contain_text("The cell sets", timeout=ANSWER_TIMEOUT)
    expect(turn).to_have_attribute("data-state", "answering")  # streamed: part of it, still being written
    page.screenshot(path=str(SHOTS / "ask_streaming.png"))
    answered(panel)
    expect(panel.get_by_test_id("ask-stop")).to_be_hidden()
    expect(panel.get_by_test_id("ask-input")).to_have_value("")
    expect(turn.get_by_test_id("ask-question")).to_contain_text(QUESTION)
    expect(turn.get_by_test_id("ask-question-about")).to_have_text("cell 1")
    answer = turn.get_by_test_id("ask-answer")
    expect(answer.locator("strong")).to_have_text("radius")  # Markdown, rendered
    expect(answer.locator("pre code")).to_have_text(CODE + "\n")
    expect(answer.locator("li code").first).to_have_text("math.pi")
    # the model's HTML is text, never markup (and sanitised all the same): nothing of it ran
    assert answer.locator("script").count() == 0 and answer.locator("img").count() == 0
    expect(answer.locator("li").nth(1)).to_contain_text('<img src=x onerror="window.pwned = 1">')
    assert page.evaluate("window.pwned") is None
    page.screenshot(path=str(SHOTS / "ask_answer.png"))
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(SHOTS / "ask_answer_dark.png"))
    page.emulate_media(color_scheme="light")
    # what the model was asked: the selected cell, the notebook's cells, the question last
    asked = chat.requests[-1]["messages"]
    assert asked[0]["role"] == "system" and "Markdown" in asked[0]["content"]
    assert "The selected cell (1 of 2):\n```python\n# cell cell0\nimport math\nradius = 2\n```" in asked[-1]["content"]
    assert "print('the end')" in asked[-1]["content"]
    assert asked[-1]["content"].endswith(f"Question: {QUESTION}")

    # another tab on the notebook sees the conversation
    other = context.new_page()
    open_notebook(other, server.url("/notebooks/ask.ipynb"))
    other_panel = open_ask(other)
    expect(other_panel.get_by_test_id("ask-turn")).to_have_count(1)
    expect(answered(other_panel).get_by_test_id("ask-answer").locator("pre code")).to_have_text(CODE + "\n")

    # Insert below: a new code cell below the selected one, saved, seen by the other tab
    turn.get_by_test_id("ask-insert").click()
    expect(cells(page)).to_have_count(3)
    assert editor_text(cells(page).nth(1)) == CODE
    wait_saved(server, "ask.ipynb", [CELLS[0][1], CODE, CELLS[1][1]])
    expect(cells(other)).to_have_count(3)
    page.screenshot(path=str(SHOTS / "ask_inserted.png"))

    # a follow-up question carries the first turn into the prompt
    chat.answer = "Yes: `area` is about 12.57."
    ask(page, "is that right?")
    answered(panel, 1)
    follow_up = chat.requests[-1]["messages"]
    assert [m["role"] for m in follow_up] == ["system", "user", "assistant", "user"]
    assert follow_up[1]["content"] == QUESTION and follow_up[2]["content"] == ANSWER
    expect(other_panel.get_by_test_id("ask-turn")).to_have_count(2)

    # a reload keeps the conversation (the server's memory); the file has no trace of it
    page.reload()
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    panel = open_ask(page)
    expect(panel.get_by_test_id("ask-turn")).to_have_count(2)
    expect(panel.get_by_test_id("ask-question").nth(0)).to_contain_text(QUESTION)
    text = (server.root / "ask.ipynb").read_text()
    assert QUESTION not in text and "The cell sets" not in text and "12.57" not in text
    assert saved_sources(server, "ask.ipynb") == [CELLS[0][1], CODE, CELLS[1][1]]

    # New conversation: every tab's is cleared
    panel.get_by_test_id("ask-new").click()
    expect(panel.get_by_test_id("ask-turn")).to_have_count(0)
    expect(other_panel.get_by_test_id("ask-turn")).to_have_count(0)
    expect(other_panel.get_by_test_id("ask-empty")).to_be_visible()
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_stop_ends_an_answer_and_a_failing_model_shows_an_error(server: Server, page: Page, chat: ChatStandIn) -> None:
    chat.delay = 0.15
    chat.answer = "word " * 200
    write_notebook(server.root / "stop.ipynb", CELLS)
    open_notebook(page, server.url("/notebooks/stop.ipynb"))
    panel = open_ask(page)
    ask(page, "explain everything")
    turn = panel.get_by_test_id("ask-turn").nth(0)
    expect(turn.get_by_test_id("ask-answer")).to_contain_text("word", timeout=ANSWER_TIMEOUT)
    panel.get_by_test_id("ask-stop").click()
    expect(turn).to_have_attribute("data-state", "stopped")
    expect(turn.get_by_test_id("ask-stopped")).to_be_visible()
    expect(panel.get_by_test_id("ask-stop")).to_be_hidden()
    shown = turn.get_by_test_id("ask-answer").inner_text()
    page.wait_for_timeout(500)
    assert turn.get_by_test_id("ask-answer").inner_text() == shown  # nothing more comes
    assert len(shown.split()) < 200

    chat.delay = 0.02
    chat.fail_after = 12
    ask(page, "again")
    failed = panel.get_by_test_id("ask-turn").nth(1)
    expect(failed).to_have_attribute("data-state", "error", timeout=ANSWER_TIMEOUT)
    expect(failed.get_by_test_id("ask-turn-error")).to_contain_text("ran out of memory")
    expect(panel.get_by_test_id("ask-turn")).to_have_count(2)  # the conversation goes on
    page.screenshot(path=str(SHOTS / "ask_stopped_and_failed.png"))
    assert page.js_errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("completion_settings", [{"enabled": False, "edit_model": ""}])
def test_without_an_edit_model_the_panel_says_so_and_opens_the_settings(server: Server, page: Page) -> None:
    write_notebook(server.root / "none.ipynb", CELLS)
    open_notebook(page, server.url("/notebooks/none.ipynb"))
    panel = open_ask(page)
    ask(page, "what does this do?")
    notice = panel.get_by_test_id("ask-notice")
    expect(notice).to_contain_text("Choose an edit model in the settings")
    expect(panel.get_by_test_id("ask-turn")).to_have_count(0)
    expect(panel.get_by_test_id("ask-input")).to_have_value("what does this do?")  # given back
    page.screenshot(path=str(SHOTS / "ask_no_model.png"))
    notice.get_by_test_id("ask-open-settings").click()
    settings = page.get_by_test_id("settings-panel")
    expect(settings).to_be_visible()
    expect(settings.get_by_test_id("edit-model-input")).to_be_focused()
    expect(settings.get_by_test_id("edit-model-note")).to_contain_text("Choose an edit model")
    assert page.js_errors == []  # type: ignore[attr-defined]
