"""Changes to several cells from an Ask answer (issue 38, item 4): the answer names the cells it changes
(`Cell <id>:` before each block), each change is reviewed in its cell with Edit with AI's diff (Keep / Drop
per block and per cell), Accept all applies them as one step, and one `z` in command mode takes them back.

Then (item 5) "Run changed cells" runs the accepted cells in notebook order (a dropped change's cell does not
run), and the Fix of the cell that fails tells the model the cell before the change and the question.

The edit model is the loopback `openai:` stand-in of the Edit with AI tests (`ChatStandIn`). Screenshots
go to /tmp/multicell_*.png and /tmp/runfix_*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, editor_text, open_notebook, output, wait_idle, write_notebook
from .test_ask import ANSWER_TIMEOUT, answered, ask, open_ask
from .test_edit_ai import ChatStandIn, review_done
from .test_reconnect import saved_sources, wait_saved

SHOTS = Path("/tmp")
CELLS = [("code", "import math\nradius = 2"),
         ("code", "area = 3.14 * radius ** 2\nunit = 'cm'\nprint(area)"),
         ("code", "print('the end')")]
NEW_0 = "import math\nradius = 3"
NEW_1 = "area = math.pi * radius ** 2\nunit = 'cm'\nprint(f\"area: {area:.2f} {unit}\")"
ANSWER = ("Use `math.pi`, and a bigger radius.\n\n"
          f"Cell cell0:\n```python\n{NEW_0}\n```\n\n"
          f"Cell `cell1`:\n```python\n{NEW_1}\n```\n")


@pytest.fixture
def chat() -> Iterator[ChatStandIn]:
    standin = ChatStandIn()
    standin.answer = ANSWER
    yield standin
    standin.stop()


@pytest.fixture
def completion_settings(chat: ChatStandIn) -> dict[str, object]:
    return {"enabled": False, "edit_model": f"openai:{chat.url}"}


def test_a_two_cell_change_is_reviewed_in_its_cells_accepted_at_once_and_undone_by_one_z(
        server: Server, page: Page, chat: ChatStandIn) -> None:
    write_notebook(server.root / "change.ipynb", CELLS)
    open_notebook(page, server.url("/notebooks/change.ipynb"))
    wait_idle(page)
    panel = open_ask(page)
    ask(page, "use math.pi and a radius of 3")
    answered(panel)
    assert "# cell cell1\narea = 3.14" in chat.requests[-1]["messages"][-1]["content"]  # the ids the model saw

    # each change in its own cell, as a diff; nothing has changed yet
    first, second = cells(page).nth(0), cells(page).nth(1)
    expect(first.get_by_test_id("plan-change")).to_be_visible(timeout=ANSWER_TIMEOUT)
    expect(second.get_by_test_id("plan-change")).to_be_visible()
    expect(cells(page).nth(2).get_by_test_id("plan-change")).to_have_count(0)
    expect(first.get_by_test_id("cell-editor")).to_be_hidden()  # the review stands in the editor's place
    expect(first.locator(".cm-deletedLine")).to_have_text(["radius = 2"])
    expect(second.locator(".cm-deletedChunk")).to_have_count(2)  # two blocks: line 1 and line 3
    expect(panel.get_by_test_id("ask-plan-summary")).to_have_text("2 changes: cells 1–2")
    expect(panel.get_by_test_id("ask-accept-all")).to_be_visible()
    assert editor_text(first) == CELLS[0][1] and editor_text(second) == CELLS[1][1]
    assert saved_sources(server, "change.ipynb") == [source for _, source in CELLS]
    page.screenshot(path=str(SHOTS / "multicell_review.png"))

    # Keep the first block of the second cell, Drop its second; then Accept all
    second.get_by_test_id("chunk-keep").first.click()
    expect(second.locator(".cm-deletedChunk")).to_have_count(1)
    second.get_by_test_id("chunk-drop").click()
    expect(second.locator(".cm-deletedChunk")).to_have_count(0)
    page.screenshot(path=str(SHOTS / "multicell_blocks.png"))
    panel.get_by_test_id("ask-accept-all").click()
    kept_1 = "area = math.pi * radius ** 2\nunit = 'cm'\nprint(area)"
    expect(page.get_by_test_id("plan-change")).to_have_count(0)
    expect(first.get_by_test_id("cell-editor")).to_be_visible()
    expect(first.get_by_test_id("cell-editor").locator(".cm-content")).to_have_text(NEW_0.replace("\n", ""))
    assert editor_text(second) == kept_1
    wait_saved(server, "change.ipynb", [NEW_0, kept_1, CELLS[2][1]])
    expect(panel.get_by_test_id("ask-review")).to_be_visible()  # the changes may be reviewed again

    # one Ctrl+Z in command mode (JupyterLab's `z`) restores both cells
    page.keyboard.press("Escape")
    page.keyboard.press("Control+z")
    expect(first.get_by_test_id("cell-editor").locator(".cm-content")).to_have_text(CELLS[0][1].replace("\n", ""))
    assert editor_text(cells(page).nth(1)) == CELLS[1][1]
    expect(cells(page)).to_have_count(3)
    wait_saved(server, "change.ipynb", [source for _, source in CELLS])


def test_a_cell_deleted_in_another_tab_drops_its_change_and_keeps_the_rest(
        server: Server, page: Page, chat: ChatStandIn) -> None:
    chat.answer = ANSWER + "\nDelete cell cell2\n\nCell nowhere:\n```python\nx = 1\n```\n"
    write_notebook(server.root / "gone.ipynb", CELLS)
    open_notebook(page, server.url("/notebooks/gone.ipynb"))
    wait_idle(page)
    panel = open_ask(page)
    ask(page, "change things")
    answered(panel)
    expect(page.get_by_test_id("plan-change")).to_have_count(3, timeout=ANSWER_TIMEOUT)
    expect(panel.get_by_test_id("ask-plan-note")).to_contain_text("nowhere")
    expect(cells(page).nth(2).locator(".cm-deletedLine")).to_have_text(["print('the end')"])

    other = page.context.new_page()
    open_notebook(other, server.url("/notebooks/gone.ipynb"))
    cells(other).nth(1).get_by_test_id("delete-cell").click()
    expect(cells(page)).to_have_count(2)
    expect(panel.get_by_test_id("ask-plan-error")).to_contain_text("deleted in another tab")
    expect(page.get_by_test_id("plan-change")).to_have_count(2)

    # per cell: Drop the deletion, Keep the first cell's change (its own step)
    cells(page).nth(1).get_by_test_id("change-drop").click()
    cells(page).nth(0).get_by_test_id("change-keep").click()
    expect(page.get_by_test_id("plan-change")).to_have_count(0)
    wait_saved(server, "gone.ipynb", [NEW_0, CELLS[2][1]])
    other.close()



RUN_CELLS = [("code", "radius = 2"), ("code", "area = 3.14 * radius ** 2\nprint(area)"),
             ("code", "print('the end')")]
RUN_QUESTION = "print the radius and the area in quux units"
RUN_ANSWER = ("Print both.\n\n"
              "Cell cell0:\n```python\nradius = 3\nprint('radius', radius)\n```\n\n"
              "Cell cell1:\n```python\narea = 3.14 * radius ** 2\nprint(area_in_quux_units)\n```\n\n"
              "Cell cell2:\n```python\nprint('changed end')\n```\n")


def test_run_changed_cells_runs_the_accepted_ones_in_order_and_the_fix_knows_the_change(
        server: Server, page: Page, chat: ChatStandIn) -> None:
    chat.answer = RUN_ANSWER
    write_notebook(server.root / "run.ipynb", RUN_CELLS)
    open_notebook(page, server.url("/notebooks/run.ipynb"))
    wait_idle(page)
    panel = open_ask(page)
    ask(page, RUN_QUESTION)
    turn = answered(panel)
    first, second, third = cells(page).nth(0), cells(page).nth(1), cells(page).nth(2)
    expect(page.get_by_test_id("plan-change")).to_have_count(3, timeout=ANSWER_TIMEOUT)
    expect(turn.get_by_test_id("ask-run-changed")).to_have_count(0)  # nothing accepted yet

    # the third cell's change is dropped; Accept all takes the other two
    third.get_by_test_id("change-drop").click()
    panel.get_by_test_id("ask-accept-all").click()
    expect(page.get_by_test_id("plan-change")).to_have_count(0)
    run = turn.get_by_test_id("ask-run-changed")
    expect(run).to_be_visible()
    run.click()
    expect(output(first)).to_contain_text("radius 3", timeout=KERNEL_TIMEOUT)
    expect(output(second)).to_contain_text("NameError", timeout=KERNEL_TIMEOUT)
    expect(first.get_by_test_id("cell-prompt")).to_have_text("[1]")
    expect(second.get_by_test_id("cell-prompt")).to_have_text("[2]")
    expect(third.get_by_test_id("cell-prompt")).to_have_text("[ ]")  # its change was dropped: not run
    expect(output(third)).to_have_text("")
    fix = second.get_by_test_id("fix-button")
    expect(fix).to_be_visible()
    page.screenshot(path=str(SHOTS / "runfix_failed.png"))

    # Fix: the model is told the cell before the change and what was asked
    fixed = "area = 3.14 * radius ** 2\nprint('area', area)"
    chat.answer = f"```python\n{fixed}\n```"
    fix.click()
    review_done(second)
    prompt = chat.requests[-1]["messages"][-1]["content"]
    assert "NameError" in prompt and f"asking “{RUN_QUESTION}”" in prompt
    assert f"Before that change the cell was:\n```python\n{RUN_CELLS[1][1]}\n```" in prompt
    page.screenshot(path=str(SHOTS / "runfix_fix.png"))
    second.get_by_test_id("edit-accept").click()
    assert editor_text(second) == fixed

    # run again: both pass; the dropped cell still never ran
    run.click()
    expect(output(second)).to_contain_text("area 28.26", timeout=KERNEL_TIMEOUT)
    expect(first.get_by_test_id("cell-prompt")).to_have_text("[3]")
    expect(second.get_by_test_id("cell-prompt")).to_have_text("[4]")
    expect(third.get_by_test_id("cell-prompt")).to_have_text("[ ]")
    page.screenshot(path=str(SHOTS / "runfix_fixed.png"))
