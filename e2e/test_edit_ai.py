"""Edit with AI in the browser (issue 28): Ctrl+K, an instruction, the streamed inline diff, Accept /
Reject / per-block Keep and Drop, Fix on a traceback, and what drops a proposal.

The edit model is either a loopback stand-in for an `openai:` chat server that streams a scripted
answer (so that the diff has known blocks: the server's real remote-chat path, rendering and
streaming run as ever), or the shipped GGUF as a local model, whose answers are not known in advance
(it has no chat template: only the structure of the flow is checked). Screenshots go to /tmp/edit_*.png.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, WebSocket, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, output, wait_idle, write_notebook
from .test_reconnect import SOCKET_CONTROL, closed_port, drop_connection, restore_connection, saved_sources, wait_saved

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "notebook" / "ghostbook" / "models" / "default" / "ghostbook-fim-q8_0.gguf"
EDIT_TIMEOUT = 60_000  # a model's first answer includes loading it
SHOTS = Path("/tmp")

ORIGINAL = "import math\n\ndef area(r):\n    return 3.14 * r * r\n\nprint(area(2))"
EDITED = "import math\n\ndef area(r):\n    return math.pi * r ** 2\n\nprint(area(2))"
ANSWER = f"Here is the cell with `math.pi`:\n\n```python\n{EDITED}\n```\n\nIt uses the exact constant."
# two changed blocks, far apart: the first line and the last
TWO_BLOCKS = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6"
TWO_BLOCKS_EDITED = "a = 10\nb = 2\nc = 3\nd = 4\ne = 5\nf = 60"


class ChatStandIn:
    """An OpenAI-style chat server on a free loopback port: `/v1/models`, and `/v1/chat/completions`
    streaming `answer` in small pieces (`delay` seconds apart), or failing with an error event after
    `fail_after` characters. It records the requests."""

    def __init__(self) -> None:
        self.answer = ANSWER
        self.delay = 0.03
        self.fail_after: int | None = None
        self.requests: list[dict[str, Any]] = []
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                body = json.dumps({"object": "list", "data": [{"id": "standin-chat", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                standin.requests.append(json.loads(self.rfile.read(length) or b"{}"))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                text = standin.answer
                try:
                    for start in range(0, len(text), 6):
                        if standin.fail_after is not None and start >= standin.fail_after:
                            error = {"error": {"message": "the model ran out of memory", "type": "server_error"}}
                            self.wfile.write(f"data: {json.dumps(error)}\n\n".encode())
                            self.wfile.flush()
                            return
                        chunk = {"choices": [{"index": 0, "delta": {"content": text[start:start + 6]}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        time.sleep(standin.delay)
                    done = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                    self.wfile.write(f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode())
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the edit was cancelled: Ghostbook hung up

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def chat() -> Iterator[ChatStandIn]:
    standin = ChatStandIn()
    yield standin
    standin.stop()


@pytest.fixture
def edit_model(chat: ChatStandIn) -> str:
    return f"openai:{chat.url}"


@pytest.fixture
def completion_settings(edit_model: str) -> dict[str, object]:
    return {"enabled": False, "edit_model": edit_model}


def sent_messages(page: Page, kind: str) -> list[dict[str, Any]]:
    """The messages of type `kind` the page sends from now on (call before opening the notebook)."""
    sent: list[dict[str, Any]] = []

    def watch(ws: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            if isinstance(payload, str) and f'"{kind}"' in payload:
                message = json.loads(payload)
                if message.get("type") == kind:
                    sent.append(message)

        ws.on("framesent", on_frame)

    page.on("websocket", watch)
    return sent


def open_cell(server: Server, page: Page, source: str = ORIGINAL, name: str = "edit.ipynb") -> Locator:
    write_notebook(server.root / name, [("code", source), ("code", "")])
    open_notebook(page, server.url(f"/notebooks/{name}"))
    wait_idle(page)
    return cells(page).nth(0)


def content(cell: Locator) -> Locator:
    return cell.get_by_test_id("cell-editor").locator(".cm-content")


def cell_text(cell: Locator) -> str:
    """The cell's own editor's text (hidden during a review, still there)."""
    return cell.get_by_test_id("cell-editor").locator(".cm-editor").evaluate(
        "(editor) => [...editor.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\\n')"
    )


def ask(page: Page, cell: Locator, instruction: str) -> None:
    """Ctrl+K in the cell, the instruction, Enter."""
    content(cell).click()
    page.keyboard.press("Control+k")
    prompt = cell.get_by_test_id("edit-prompt")
    expect(prompt).to_be_focused()
    page.keyboard.type(instruction)
    page.keyboard.press("Enter")


def review_done(cell: Locator) -> Locator:
    """Wait for the proposal's last part; the review's toolbar."""
    review = cell.get_by_test_id("edit-review")
    expect(review).to_be_visible(timeout=EDIT_TIMEOUT)
    expect(cell.locator(".edit-review-area")).to_have_attribute("data-streaming", "false", timeout=EDIT_TIMEOUT)
    expect(cell.get_by_test_id("edit-accept")).to_be_enabled()
    return review


def review_lines(cell: Locator, kind: str) -> list[str]:
    """The review's inserted (`.cm-changedLine`) or deleted (`.cm-deletedLine`) lines."""
    return cell.get_by_test_id("edit-review-editor").locator(kind).all_text_contents()


def test_ctrl_k_streams_a_diff_then_accept_saves_and_undo_restores(
        server: Server, page: Page, context: BrowserContext, chat: ChatStandIn) -> None:
    chat.delay = 0.08  # slow enough to see it stream
    edits = sent_messages(page, "edit_request")
    sets = sent_messages(page, "y_update")  # typing and accepted edits: shared-text updates
    cell = open_cell(server, page)
    other = context.new_page()  # another tab on the same notebook
    open_notebook(other, server.url("/notebooks/edit.ipynb"))
    before = (server.root / "edit.ipynb").read_bytes()

    ask(page, cell, "use math.pi")
    area = cell.locator(".edit-review-area")
    expect(area).to_have_attribute("data-streaming", "true", timeout=EDIT_TIMEOUT)  # streamed, not in one piece
    expect(cell.get_by_test_id("edit-accept")).to_be_disabled()
    page.screenshot(path=str(SHOTS / "edit_streaming.png"))
    review_done(cell)
    assert edits[-1]["instruction"] == "use math.pi" and edits[-1]["selection"] is None
    assert edits[-1]["trigger"] == "edit" and edits[-1]["previous"] is None
    assert chat.requests and chat.requests[-1]["prediction"]["content"].find(ORIGINAL) != -1  # the draft
    # the inline diff: the old line red, the new one green, the rest as it was
    assert any("3.14 * r * r" in line for line in review_lines(cell, ".cm-deletedLine"))
    assert any("math.pi * r ** 2" in line for line in review_lines(cell, ".cm-changedLine"))
    expect(cell.get_by_test_id("edit-summary")).to_contain_text("1 changed block")
    expect(cell.get_by_test_id("edit-warning")).to_be_hidden()
    page.screenshot(path=str(SHOTS / "edit_review.png"))
    # nothing changed yet: not here, not on the server, not in the other tab
    assert cell_text(cell) == ORIGINAL and sets == []
    assert (server.root / "edit.ipynb").read_bytes() == before
    assert cell_text(cells(other).nth(0)) == ORIGINAL

    page.keyboard.press("Control+Enter")  # Accept
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    expect(content(cell)).to_be_visible()
    assert cell_text(cell) == EDITED
    wait_saved(server, "edit.ipynb", [EDITED, ""])
    expect(cells(other).nth(0).locator(".cm-content")).to_contain_text("math.pi")  # now, as any edit
    assert len(sets) == 1 and sets[0]["cell_id"] == cell.get_attribute("data-cell-id")  # one ordinary edit of the text

    page.keyboard.press("Control+z")  # one undo: the original again
    assert cell_text(cell) == ORIGINAL
    wait_saved(server, "edit.ipynb", [ORIGINAL, ""])
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_generate_at_the_end_writes_a_new_cell_reviewed_before_it_is_kept(
        server: Server, page: Page, chat: ChatStandIn) -> None:
    """"Generate" under the last cell: a new empty cell, its prompt open; the model is asked for a new cell
    after the ones above (not a rewrite of nothing); the answer is reviewed, and Accept keeps it."""
    new = "print(area(3))"
    chat.answer = f"```python\n{new}\n```"
    open_cell(server, page)
    page.get_by_test_id("generate-cell-end").click()
    expect(cells(page)).to_have_count(3)
    cell = cells(page).nth(2)
    prompt = cell.get_by_test_id("edit-prompt")
    expect(prompt).to_be_focused()
    expect(cell.get_by_test_id("edit-ai")).to_contain_text("Writes this cell from your description")
    page.keyboard.type("print the area of a circle of radius 3")
    page.keyboard.press("Enter")
    review_done(cell)
    asked = chat.requests[-1]["messages"]
    assert "new code cell" in asked[0]["content"]
    assert "a new cell, placed after the cells above, that does this: print the area of a circle" in asked[1]["content"]
    assert "def area(r):" in asked[1]["content"]  # the cells above are its context
    assert cell_text(cell) == ""  # nothing in the cell before Accept
    page.screenshot(path=str(SHOTS / "edit_generate_review.png"))
    cell.get_by_test_id("edit-accept").click()
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    assert cell_text(cell) == new
    wait_saved(server, "edit.ipynb", [ORIGINAL, "", new])
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_selection_rewrites_only_its_lines(server: Server, page: Page, chat: ChatStandIn) -> None:
    edits = sent_messages(page, "edit_request")
    chat.answer = "```python\n    return math.pi * r ** 2\n```"
    cell = open_cell(server, page)
    content(cell).locator(".cm-line").nth(3).click()  # `    return 3.14 * r * r`
    page.keyboard.press("End")
    page.keyboard.press("Shift+Home")
    page.keyboard.press("Control+k")
    expect(cell.get_by_test_id("edit-status")).to_have_text("Rewrites line 4")
    page.keyboard.type("use math.pi")
    page.keyboard.press("Enter")
    review_done(cell)
    selection = edits[-1]["selection"]
    assert selection is not None and ORIGINAL[selection[0]:selection[1]].strip() == "return 3.14 * r * r"
    request = chat.requests[-1]
    assert "print(area(2))" not in request["prediction"]["content"]  # the draft is the selected line only
    assert review_lines(cell, ".cm-changedLine") == ["    return math.pi * r ** 2"]
    page.keyboard.press("Control+Enter")
    assert cell_text(cell) == EDITED
    wait_saved(server, "edit.ipynb", [EDITED, ""])


def test_reject_leaves_the_file_untouched(server: Server, page: Page) -> None:
    sets = sent_messages(page, "y_update")  # typing and accepted edits: shared-text updates
    cell = open_cell(server, page)
    path = server.root / "edit.ipynb"
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns

    ask(page, cell, "use math.pi")
    review_done(cell)
    page.keyboard.press("Escape")  # Reject
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    assert cell_text(cell) == ORIGINAL
    expect(cell).to_have_class(re.compile(r"\bediting\b"))  # back in the cell

    # the Reject button does the same, also while the proposal still streams (the request stops);
    # this time the prompt is opened with the cell's button
    cell.get_by_test_id("edit-ai-button").click()
    expect(cell.get_by_test_id("edit-prompt")).to_be_focused()
    expect(cell.get_by_test_id("edit-prompt")).to_have_value("use math.pi")  # the last instruction
    page.keyboard.press("Enter")
    expect(cell.get_by_test_id("edit-review")).to_be_visible(timeout=EDIT_TIMEOUT)
    cell.get_by_test_id("edit-reject").click()
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    page.wait_for_timeout(1500)  # autosave would have written by now
    assert cell_text(cell) == ORIGINAL and sets == []
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_each_changed_block_is_kept_or_dropped_on_its_own(server: Server, page: Page, chat: ChatStandIn) -> None:
    chat.answer = f"```python\n{TWO_BLOCKS_EDITED}\n```"
    cell = open_cell(server, page, TWO_BLOCKS)
    ask(page, cell, "multiply a and f by ten")
    review_done(cell)
    expect(cell.get_by_test_id("edit-summary")).to_contain_text("2 changed blocks")
    drops, keeps = cell.get_by_test_id("chunk-drop"), cell.get_by_test_id("chunk-keep")
    expect(drops).to_have_count(2)
    page.screenshot(path=str(SHOTS / "edit_blocks.png"))

    drops.first.click()  # the first block goes back to `a = 1`
    expect(drops).to_have_count(1)
    keeps.first.click()  # the second is kept (no longer marked as a change)
    expect(drops).to_have_count(0)
    assert cell_text(cell) == TWO_BLOCKS  # still nothing applied
    cell.get_by_test_id("edit-accept").click()
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    kept = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 60"
    assert cell_text(cell) == kept
    wait_saved(server, "edit.ipynb", [kept, ""])


def test_a_follow_up_refines_the_proposal_and_retry_asks_again(server: Server, page: Page, chat: ChatStandIn) -> None:
    edits = sent_messages(page, "edit_request")
    chat.answer = f"```python\n{TWO_BLOCKS_EDITED}\n```"
    cell = open_cell(server, page, TWO_BLOCKS)
    ask(page, cell, "multiply a and f by ten")
    review_done(cell)
    refined = TWO_BLOCKS_EDITED.replace("f = 60", "f = 600")
    chat.answer = f"```python\n{refined}\n```"
    cell.get_by_test_id("edit-followup").fill("f by a hundred")
    cell.get_by_test_id("edit-followup").press("Enter")
    expect(cell.get_by_test_id("edit-review-editor")).to_contain_text("f = 600", timeout=EDIT_TIMEOUT)
    review_done(cell)
    assert edits[-1]["instruction"] == "f by a hundred" and edits[-1]["previous"] == TWO_BLOCKS_EDITED
    cell.get_by_test_id("edit-retry").click()
    review_done(cell)
    assert edits[-1]["instruction"] == "multiply a and f by ten" and edits[-1]["previous"] is None
    cell.get_by_test_id("edit-accept").click()
    assert cell_text(cell) == refined  # the stand-in answered the retry with the refined text


def test_an_answer_without_code_or_a_model_failing_mid_stream_changes_nothing(
        server: Server, page: Page, chat: ChatStandIn) -> None:
    sets = sent_messages(page, "y_update")  # typing and accepted edits: shared-text updates
    cell = open_cell(server, page)
    chat.answer = "I am not able to change this code."
    ask(page, cell, "use math.pi")
    expect(cell.get_by_test_id("edit-error")).to_contain_text("without code", timeout=EDIT_TIMEOUT)
    expect(cell.get_by_test_id("edit-prompt")).to_have_value("use math.pi")  # the instruction is kept
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()

    # the model fails after a few lines: what came is shown, with the error, and cannot be accepted
    chat.answer, chat.delay, chat.fail_after = ANSWER, 0.1, 84
    cell.get_by_test_id("edit-prompt").press("Enter")
    expect(cell.get_by_test_id("edit-review")).to_be_visible(timeout=EDIT_TIMEOUT)
    expect(cell.get_by_test_id("edit-error")).to_contain_text("out of memory", timeout=EDIT_TIMEOUT)
    expect(cell.get_by_test_id("edit-accept")).to_be_disabled()
    expect(cell.get_by_test_id("edit-summary")).to_contain_text("Stopped")
    page.screenshot(path=str(SHOTS / "edit_model_error.png"))
    page.keyboard.press("Control+Enter")
    expect(cell.get_by_test_id("edit-notice")).to_contain_text("cannot be accepted")
    cell.get_by_test_id("edit-reject").click()
    assert cell_text(cell) == ORIGINAL and sets == []


@pytest.mark.parametrize("edit_model", [""])  # no edit model: the offline rule alone
def test_fix_on_a_name_error_offers_the_import_without_a_model(server: Server, page: Page) -> None:
    source = "x = np.zeros(3)\nprint(x)"
    cell = open_cell(server, page, source)
    cell.get_by_test_id("run-cell").click()
    expect(output(cell)).to_contain_text("NameError", timeout=KERNEL_TIMEOUT)
    fix = cell.get_by_test_id("fix-button")
    expect(fix).to_be_visible()
    fix.click()
    review_done(cell)
    expect(cell.get_by_test_id("edit-description")).to_be_visible()
    expect(cell.get_by_test_id("edit-summary")).to_contain_text("offline fix")
    assert any("import numpy as np" in line for line in review_lines(cell, ".cm-changedLine"))
    page.screenshot(path=str(SHOTS / "edit_fix.png"))
    page.keyboard.press("Control+Enter")
    fixed = cell_text(cell)
    assert fixed.startswith("import numpy as np") and fixed.endswith(source)
    cell.get_by_test_id("run-cell").click()
    expect(output(cell)).to_contain_text("[0. 0. 0.]", timeout=KERNEL_TIMEOUT)
    expect(cell.get_by_test_id("fix-button")).to_have_count(0)
    wait_saved(server, "edit.ipynb", [fixed, ""])


def test_typing_in_the_review_drops_the_proposal(server: Server, page: Page) -> None:
    cell = open_cell(server, page)
    ask(page, cell, "use math.pi")
    review_done(cell)
    last = cell.get_by_test_id("edit-review-editor").locator(".cm-line").last
    last.click()
    page.keyboard.press("End")
    page.keyboard.type("  # mine")
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    mine = ORIGINAL + "  # mine"  # the user's edit, on the cell as it was: the proposal is gone
    expect(content(cell)).to_be_focused()
    page.keyboard.type("!")  # and the cursor is where the typing left it
    assert cell_text(cell) == mine + "!"
    wait_saved(server, "edit.ipynb", [mine + "!", ""])


def test_another_tab_editing_the_cell_drops_the_review(server: Server, page: Page, context: BrowserContext) -> None:
    cell = open_cell(server, page)
    other = context.new_page()
    open_notebook(other, server.url("/notebooks/edit.ipynb"))
    ask(page, cell, "use math.pi")
    review_done(cell)
    content(cells(other).nth(0)).click()
    other.keyboard.press("Control+End")
    other.keyboard.type("  # theirs")
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    expect(content(cell)).to_contain_text("# theirs")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_cell_deleted_during_review_goes_quietly(server: Server, page: Page) -> None:
    cell = open_cell(server, page)
    content(cell).click()
    page.keyboard.press("Escape")  # command mode: Ctrl+K works on the selected cell too
    expect(cell).not_to_have_class(re.compile(r"\bediting\b"))
    page.keyboard.press("Control+k")
    expect(cell.get_by_test_id("edit-prompt")).to_be_focused()
    page.keyboard.type("use math.pi")
    page.keyboard.press("Enter")
    expect(cell.get_by_test_id("edit-review")).to_be_visible(timeout=EDIT_TIMEOUT)
    cell.get_by_test_id("delete-cell").click()
    expect(cells(page)).to_have_count(1)
    page.wait_for_timeout(500)  # what was still streaming for it arrives, and is ignored
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_review_survives_a_disconnect_and_accept_works_after(server: Server, page: Page) -> None:
    page.add_init_script(SOCKET_CONTROL % closed_port())
    cell = open_cell(server, page)
    ask(page, cell, "use math.pi")
    review_done(cell)
    drop_connection(page)
    expect(page.get_by_test_id("offline-banner")).to_be_visible()
    expect(cell.get_by_test_id("edit-review")).to_be_visible()  # still there
    restore_connection(page)  # it reconnects by itself (backoff)
    expect(page.get_by_test_id("offline-banner")).to_be_hidden(timeout=15_000)
    expect(cell.get_by_test_id("edit-review")).to_be_visible()
    assert saved_sources(server, "edit.ipynb")[0] == ORIGINAL  # unchanged on the server
    cell.get_by_test_id("edit-accept").click()
    assert cell_text(cell) == EDITED
    wait_saved(server, "edit.ipynb", [EDITED, ""])


@pytest.mark.parametrize("edit_model", [""])
def test_no_edit_model_opens_the_settings_at_the_edit_model(server: Server, page: Page) -> None:
    edits = sent_messages(page, "edit_request")
    cell = open_cell(server, page)
    # an empty instruction: a clear message, nothing sent
    content(cell).click()
    page.keyboard.press("Control+k")
    expect(cell.get_by_test_id("edit-prompt")).to_be_focused()
    page.keyboard.press("Enter")
    expect(cell.get_by_test_id("edit-error")).to_contain_text("Type what to change")
    assert edits == []

    page.keyboard.type("add a docstring")
    page.keyboard.press("Enter")
    panel = page.get_by_test_id("settings-panel")
    expect(panel).to_be_visible(timeout=EDIT_TIMEOUT)
    field = panel.get_by_test_id("edit-model-input")
    expect(field).to_be_focused()
    expect(field).to_be_in_viewport()
    expect(field).to_have_value("")
    note = panel.get_by_test_id("edit-model-note")
    expect(note).to_be_visible()
    assert note.inner_text().strip().count(". ") == 0  # one sentence
    expect(panel.get_by_test_id("edit-model-status")).to_contain_text("none chosen")
    expect(cell.get_by_test_id("edit-error")).to_be_visible()  # said in the prompt too
    expect(cell.get_by_test_id("edit-prompt")).to_have_value("add a docstring")  # the instruction kept
    page.screenshot(path=str(SHOTS / "edit_no_model.png"))
    assert len(edits) == 1
    # the catalogue lists the instruct models for it, apart from the completion models
    row = panel.get_by_test_id("edit-catalogue-row").filter(has_text="Qwen2.5-Coder 0.5B Instruct Q8_0")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("catalogue-use-edit")).to_be_visible()
    expect(panel.get_by_test_id("catalogue-row").filter(has_text="Instruct")).to_have_count(0)


@pytest.mark.parametrize("edit_model", [""])
def test_shipped_model_set_in_the_settings_edits_the_cell(server: Server, page: Page) -> None:
    cell = open_cell(server, page, "def add(a, b):\n    return a + b\n\nprint(add(1, 2))")
    page.get_by_test_id("open-settings").click()
    panel = page.get_by_test_id("settings-panel")
    panel.get_by_test_id("edit-model-input").fill(str(SHIPPED))
    panel.get_by_test_id("settings-save").click()
    status = panel.get_by_test_id("edit-model-status")
    expect(status).to_have_attribute("data-state", re.compile(r"^(loading|ready)$"), timeout=EDIT_TIMEOUT)
    expect(status).to_have_attribute("data-state", "ready", timeout=EDIT_TIMEOUT)
    expect(status).to_contain_text("ready")
    page.get_by_test_id("close-settings").click()

    ask(page, cell, "add a docstring to add")
    review = review_done(cell)
    expect(review).to_be_visible()
    summary = cell.get_by_test_id("edit-summary").inner_text()
    assert "edit model" in summary and "model calls" in summary, summary
    page.screenshot(path=str(SHOTS / "edit_shipped.png"))
    review.screenshot(path=str(SHOTS / "edit_shipped_toolbar.png"))
    shown = cell.get_by_test_id("edit-review-editor").locator(".cm-content").evaluate(
        "(content) => [...content.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\\n')"
    )
    cell.get_by_test_id("edit-accept").click()
    expect(cell.get_by_test_id("edit-review")).to_be_hidden()
    assert cell_text(cell) == shown  # what was reviewed is what the cell got
    wait_saved(server, "edit.ipynb", [shown, ""])
