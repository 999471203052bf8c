"""Run controls and outputs (issue 37, part 5): run above / below and restart & run all from the Run
menu, clearing one cell's output, hiding outputs (click, o, Shift+O) as JupyterLab saves it, each
cell's last run time, and "show all" for a stream too long to show."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Locator, Page, expect

from .helpers import KERNEL_TIMEOUT, HeldFrames, Server, cells, open_notebook, output, wait_idle, write_notebook

HIDDEN = re.compile(r"\boutputs-hidden\b")
TIMING = re.compile(r"^(\d+ ms|\d+(\.\d)? s|\d+ min \d+ s), \d\d:\d\d$")
TIMING_KEYS = ["iopub.status.busy", "iopub.execute_input", "shell.execute_reply.started", "shell.execute_reply",
               "iopub.status.idle"]


def select(cell: Locator) -> None:
    """Select a cell in command mode (a click beside its editor)."""
    cell.get_by_test_id("cell-prompt").click()


def menu(page: Page, item: str) -> None:
    page.get_by_test_id("run-menu").click()
    page.get_by_test_id(f"run-menu-{item}").click()


def saved_cells(page: Page, path: Path, until: Any = None) -> list[dict[str, Any]]:
    """Save (Ctrl+S) and read the file's cells; wait until `until(cells)` holds when given."""
    page.keyboard.press("Control+s")
    for _ in range(100):
        expect(page.get_by_test_id("save-status")).to_have_text("saved")
        found = json.loads(path.read_text())["cells"]
        if until is None or until(found):
            return found
        time.sleep(0.1)
    raise AssertionError(f"the saved file never matched: {json.dumps(found)[:2000]}")


def test_run_above_and_run_below_from_the_run_menu(server: Server, page: Page) -> None:
    write_notebook(server.root / "runs.ipynb", [("code", f"print('{c}')") for c in "abcd"])
    open_notebook(page, server.url("/notebooks/runs.ipynb"))
    wait_idle(page)
    a, b, c, d = (cells(page).nth(i) for i in range(4))
    select(a)
    page.get_by_test_id("run-menu").click()
    expect(page.get_by_test_id("run-menu-above")).to_be_disabled()  # nothing above the first cell
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("run-menu-list")).to_be_hidden()

    select(c)
    menu(page, "above")  # a and b, not c
    expect(output(b)).to_have_text("b", timeout=KERNEL_TIMEOUT)
    expect(output(a)).to_have_text("a")
    expect(b).to_have_attribute("data-state", "idle")
    expect(c.get_by_test_id("cell-prompt")).to_have_text("[ ]")
    expect(d.get_by_test_id("cell-prompt")).to_have_text("[ ]")

    select(c)
    menu(page, "below")  # c and d
    expect(output(d)).to_have_text("d", timeout=KERNEL_TIMEOUT)
    expect(output(c)).to_have_text("c")
    expect(c.get_by_test_id("cell-prompt")).to_have_text("[3]")
    expect(d.get_by_test_id("cell-prompt")).to_have_text("[4]")
    expect(d).to_have_class(re.compile(r"\bselected\b"))  # as JupyterLab: the last cell is selected after
    page.screenshot(path="/work/notes/runs-menu-after.png")
    page.get_by_test_id("run-menu").click()
    page.screenshot(path="/work/notes/runs-menu.png")
    assert not page.js_errors  # type: ignore[attr-defined]


def test_restart_and_run_all_asks_first_then_runs_in_the_new_kernel(server: Server, page: Page) -> None:
    write_notebook(server.root / "restart.ipynb", [
        ("code", "runs = globals().get('runs', 0) + 1\nprint('runs', runs)"),
        ("markdown", "# between"),
        ("code", "print('second sees', runs)"),
    ])
    open_notebook(page, server.url("/notebooks/restart.ipynb"))
    wait_idle(page)
    first, second = cells(page).nth(0), cells(page).nth(2)
    for expected in ("runs 1", "runs 2"):
        first.get_by_test_id("run-cell").click()
        expect(output(first)).to_have_text(expected, timeout=KERNEL_TIMEOUT)
        expect(first).to_have_attribute("data-state", "idle")

    menu(page, "restart-run-all")
    dialog = page.get_by_test_id("restart-dialog")
    expect(dialog).to_contain_text("Restart kernel and run all cells?")
    page.get_by_test_id("confirm-cancel").click()
    expect(dialog).to_be_hidden()
    page.wait_for_timeout(300)
    expect(output(first)).to_have_text("runs 2")  # cancelled: nothing restarted or ran

    menu(page, "restart-run-all")
    page.get_by_test_id("confirm-restart").click()
    # the cells ran in the new kernel (a fresh count), in order, after it was up
    expect(output(second)).to_have_text("second sees 1", timeout=KERNEL_TIMEOUT)
    expect(output(first)).to_have_text("runs 1")
    expect(first.get_by_test_id("cell-prompt")).to_have_text("[1]")
    expect(second.get_by_test_id("cell-prompt")).to_have_text("[2]")
    wait_idle(page)
    assert not page.js_errors  # type: ignore[attr-defined]


def test_clear_one_cell_output(server: Server, page: Page) -> None:
    write_notebook(server.root / "clear.ipynb", [("code", "print('one')"), ("code", "print('two')")])
    open_notebook(page, server.url("/notebooks/clear.ipynb"))
    wait_idle(page)
    one, two = cells(page).nth(0), cells(page).nth(1)
    page.get_by_test_id("run-all").click()
    expect(output(two)).to_have_text("two", timeout=KERNEL_TIMEOUT)
    expect(two.get_by_test_id("cell-timing")).to_have_text(TIMING)
    one.get_by_test_id("clear-cell-output").click()
    expect(output(one)).to_have_text("")
    expect(one.get_by_test_id("cell-prompt")).to_have_text("[ ]")
    expect(one.get_by_test_id("cell-timing")).to_be_hidden()  # JupyterLab's clearExecution drops the timing
    expect(output(two)).to_have_text("two")
    saved = saved_cells(page, server.root / "clear.ipynb", lambda c: c[0]["outputs"] == [] and c[1]["outputs"])
    assert "execution" not in saved[0]["metadata"] and "execution" in saved[1]["metadata"]


def test_hide_outputs_by_click_o_and_shift_o_saved_as_jupyterlab_does(server: Server, page: Page) -> None:
    path = server.root / "hide.ipynb"
    write_notebook(path, [("code", "print('first')"), ("code", "print('second')")])
    notebook = json.loads(path.read_text())
    notebook["cells"][1]["metadata"] = {"jupyter": {"source_hidden": True}, "tags": ["keep"]}
    path.write_text(json.dumps(notebook))
    open_notebook(page, server.url("/notebooks/hide.ipynb"))
    wait_idle(page)
    first, second = cells(page).nth(0), cells(page).nth(1)
    page.get_by_test_id("run-all").click()
    expect(output(second)).to_have_text("second", timeout=KERNEL_TIMEOUT)

    first.get_by_test_id("output-collapser").click()  # the bar left of the outputs
    expect(first).to_have_class(HIDDEN)
    expect(output(first)).to_be_hidden()
    expect(first.get_by_test_id("outputs-hidden")).to_be_visible()
    saved = saved_cells(page, path, lambda c: c[0]["metadata"].get("collapsed") is True)
    assert saved[0]["metadata"] == {"collapsed": True, "jupyter": {"outputs_hidden": True},
                                    "execution": saved[0]["metadata"]["execution"]}
    assert "".join(saved[0]["outputs"][0]["text"]) == "first\n"  # hidden, not cleared

    first.get_by_test_id("outputs-hidden").click()  # the bar in their place shows them again
    expect(output(first)).to_be_visible()
    saved = saved_cells(page, path, lambda c: "collapsed" not in c[0]["metadata"])
    assert "jupyter" not in saved[0]["metadata"]

    select(second)
    page.keyboard.press("o")
    expect(second).to_have_class(HIDDEN)
    expect(first).not_to_have_class(HIDDEN)
    saved = saved_cells(page, path, lambda c: c[1]["metadata"].get("collapsed") is True)
    assert saved[1]["metadata"]["jupyter"] == {"source_hidden": True, "outputs_hidden": True}  # other keys kept
    assert saved[1]["metadata"]["tags"] == ["keep"]
    page.keyboard.press("o")
    expect(second).not_to_have_class(HIDDEN)

    page.keyboard.press("Shift+O")  # all hidden
    expect(first).to_have_class(HIDDEN)
    expect(second).to_have_class(HIDDEN)
    page.screenshot(path="/work/notes/runs-hidden-all.png")
    saved = saved_cells(page, path, lambda c: all(x["metadata"].get("collapsed") for x in c))
    assert [x["metadata"]["jupyter"].get("outputs_hidden") for x in saved] == [True, True]
    page.keyboard.press("Shift+O")  # all shown
    expect(first).not_to_have_class(HIDDEN)
    expect(second).not_to_have_class(HIDDEN)
    saved = saved_cells(page, path, lambda c: not any("collapsed" in x["metadata"] for x in c))
    assert saved[1]["metadata"]["jupyter"] == {"source_hidden": True}

    page.keyboard.press("o")  # hidden, then a run shows them again (JupyterLab's CodeCell.execute)
    expect(second).to_have_class(HIDDEN)
    page.keyboard.press("Control+Enter")
    expect(second).not_to_have_class(HIDDEN, timeout=KERNEL_TIMEOUT)
    assert not page.js_errors  # type: ignore[attr-defined]


def test_a_late_echo_of_an_earlier_toggle_does_not_undo_the_last(server: Server, page: Page) -> None:
    """o, o, Shift+O in quick succession while the server's answers lag: the echo of the first o (hide)
    arrives after the second (show) was drawn; it must not count as the cell's state when Shift+O looks,
    nor undo what Shift+O did when the other echoes follow."""
    path = server.root / "late.ipynb"
    write_notebook(path, [("code", "print('first')"), ("code", "print('second')")])
    echoes = HeldFrames(page, lambda message: isinstance(message, str) and '"cell_metadata_set"' in message)
    open_notebook(page, server.url("/notebooks/late.ipynb"))
    wait_idle(page)
    first, second = cells(page).nth(0), cells(page).nth(1)
    page.get_by_test_id("run-all").click()
    expect(output(second)).to_have_text("second", timeout=KERNEL_TIMEOUT)
    page.wait_for_timeout(300)  # the runs' timing metadata arrives (held too) ...
    echoes.release()  # ... and is let through

    select(second)
    page.keyboard.press("o")  # hide
    page.keyboard.press("o")  # show
    expect(second).not_to_have_class(HIDDEN)
    echoes.wait_for(2)
    echoes.release(1)  # the echo of the first o, late
    page.wait_for_timeout(100)
    expect(second).not_to_have_class(HIDDEN)
    page.keyboard.press("Shift+O")  # all hidden
    expect(first).to_have_class(HIDDEN)
    expect(second).to_have_class(HIDDEN)
    echoes.wait_for(3)  # the second o's echo, then Shift+O's two
    echoes.release()
    page.wait_for_timeout(200)
    expect(first).to_have_class(HIDDEN)
    expect(second).to_have_class(HIDDEN)
    saved = saved_cells(page, path, lambda c: all(x["metadata"].get("collapsed") for x in c))
    assert [x["metadata"]["jupyter"]["outputs_hidden"] for x in saved] == [True, True]


def test_elapsed_time_after_a_run_and_after_reopening(server: Server, context: BrowserContext, page: Page) -> None:
    path = server.root / "timing.ipynb"
    write_notebook(path, [("code", "import time\ntime.sleep(2.5)\nprint('slept')"), ("code", "print('hidden')")])
    open_notebook(page, server.url("/notebooks/timing.ipynb"))
    wait_idle(page)
    slow, other = cells(page).nth(0), cells(page).nth(1)
    expect(slow.get_by_test_id("cell-timing")).to_be_hidden()
    slow.get_by_test_id("run-cell").click()
    timing = slow.get_by_test_id("cell-timing")
    expect(timing).to_have_text(re.compile(r"^running \d\.\d s$"))  # ticks while it runs
    expect(slow).to_have_attribute("data-state", "idle", timeout=KERNEL_TIMEOUT)
    expect(timing).to_have_text(TIMING)
    assert re.match(r"^2\.\d s, ", timing.inner_text()), timing.inner_text()
    assert "Last run took" in (timing.get_attribute("title") or "")
    other.get_by_test_id("run-cell").click()
    expect(output(other)).to_have_text("hidden", timeout=KERNEL_TIMEOUT)
    select(other)
    page.keyboard.press("o")
    expect(other).to_have_class(HIDDEN)
    saved = saved_cells(page, path, lambda c: "execution" in c[0]["metadata"] and c[1]["metadata"].get("collapsed"))
    assert sorted(saved[0]["metadata"]["execution"]) == sorted(TIMING_KEYS)  # nbformat sorts the keys
    select(slow)
    page.screenshot(path="/work/notes/runs-timing-collapsed.png")

    # another tab, and the saved file opened afresh (a new session reads it from disk)
    again = context.new_page()
    open_notebook(again, server.url("/notebooks/timing.ipynb"))
    expect(cells(again).nth(0).get_by_test_id("cell-timing")).to_have_text(timing.inner_text())
    shutil.copy(path, server.root / "reopened.ipynb")
    open_notebook(again, server.url("/notebooks/reopened.ipynb"))
    expect(cells(again).nth(0).get_by_test_id("cell-timing")).to_have_text(timing.inner_text())
    expect(cells(again).nth(1)).to_have_class(HIDDEN)
    assert not page.js_errors  # type: ignore[attr-defined]


def test_a_long_print_shows_all_of_it_page_by_page(server: Server, context: BrowserContext, page: Page) -> None:
    path = server.root / "long.ipynb"
    write_notebook(path, [("code", "for i in range(50_000):\n    print(i)")])
    open_notebook(page, server.url("/notebooks/long.ipynb"))
    wait_idle(page)
    cell = cells(page).nth(0)
    cell.get_by_test_id("run-cell").click()
    expect(cell).to_have_attribute("data-state", "idle", timeout=60_000)
    expect(output(cell)).to_contain_text("dropped")  # drawn on the next frame after idle
    text = output(cell).inner_text()
    assert text.startswith("0\n1\n2\n") and "dropped" in text and len(text) < 60_000
    show_all = output(cell).get_by_test_id("output-show-all")
    expect(show_all).to_have_text("show all 50,000 lines")
    show_all.scroll_into_view_if_needed()
    page.screenshot(path="/work/notes/runs-long-output.png")
    # the page stays quick with the capped text in it
    start = time.monotonic()
    page.evaluate("() => document.body.childElementCount")
    assert time.monotonic() - start < 1.0

    with context.expect_page() as opened:
        show_all.click()
    full = opened.value
    full.wait_for_load_state()
    expect(full.get_by_test_id("full-output-title")).to_contain_text("lines 1–2,000 of 50,000")
    expect(full.get_by_test_id("full-output-page")).to_have_text("page 1 of 25")
    first_page = full.get_by_test_id("full-output-text").inner_text().splitlines()
    assert first_page[0] == "0" and first_page[-1] == "1999" and len(first_page) == 2000
    full.get_by_test_id("full-output-next").click()
    expect(full.get_by_test_id("full-output-title")).to_contain_text("lines 2,001–4,000 of 50,000")
    full.get_by_test_id("full-output-last").click()
    expect(full.get_by_test_id("full-output-page")).to_have_text("page 25 of 25")
    assert full.get_by_test_id("full-output-text").inner_text().splitlines()[-1] == "49999"
    full.screenshot(path="/work/notes/runs-show-all-page.png")
    full.get_by_test_id("full-output-prev").click()
    page_24 = full.get_by_test_id("full-output-text").inner_text().splitlines()
    assert page_24[0] == "46000"  # from the middle that the cell's output dropped
    expect(full.get_by_test_id("full-output-text").locator("[data-n='46001']")).to_have_text("46000")

    href = show_all.get_attribute("href") or ""
    response = full.request.get(server.base_url + href + "?page=2&format=text")
    assert response.ok and response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text().splitlines()[0] == "2000"
    stranger = context.browser.new_context()  # type: ignore[union-attr]
    try:
        assert stranger.request.get(server.base_url + href).status == 403  # the usual token check
    finally:
        stranger.close()

    # the saved notebook keeps what it kept before: the capped text, no link
    saved = saved_cells(page, path, lambda c: bool(c[0]["outputs"]))
    assert "dropped" in "".join(saved[0]["outputs"][0]["text"]) and "full_text" not in saved[0]["outputs"][0]
    # run again: the old whole text is gone
    cell.get_by_test_id("run-cell").click()
    expect(cell).to_have_attribute("data-state", "idle", timeout=60_000)
    assert full.request.get(server.base_url + href).status == 404
    assert not page.js_errors  # type: ignore[attr-defined]
