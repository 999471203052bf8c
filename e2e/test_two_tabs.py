"""Two tabs on one notebook see each other's edits, structure changes and outputs."""

from __future__ import annotations

import json
import re

from playwright.sync_api import BrowserContext, WebSocketRoute, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, editor_text, open_notebook, output, wait_idle, write_notebook


def test_two_tabs_stay_in_sync(server: Server, context: BrowserContext) -> None:
    write_notebook(server.root / "shared.ipynb", [("code", "")])
    url = server.url("/notebooks/shared.ipynb")
    a = context.new_page()
    b = context.new_page()
    open_notebook(a, url)
    open_notebook(b, url)
    wait_idle(a)

    cell_a = cells(a).nth(0)
    cell_a.get_by_test_id("cell-editor").locator(".cm-content").click()
    a.keyboard.type("x = 20 + 1\nprint(x * 2)")
    expect(cells(b).nth(0).get_by_test_id("cell-editor")).to_contain_text("print(x * 2)")
    assert editor_text(cells(b).nth(0)).splitlines() == ["x = 20 + 1", "print(x * 2)"]

    # an edit in B shows up in A while A's editor keeps its focus
    cells(b).nth(0).get_by_test_id("cell-editor").locator(".cm-content").click()
    b.keyboard.press("Control+End")
    b.keyboard.type("  # from b")
    expect(cell_a.get_by_test_id("cell-editor")).to_contain_text("print(x * 2)  # from b")

    # run in A: the output appears in B
    cell_a.get_by_test_id("run-cell").click()
    expect(output(cells(b).nth(0))).to_contain_text("42", timeout=KERNEL_TIMEOUT)
    expect(cells(b).nth(0).get_by_test_id("cell-prompt")).to_have_text("[1]")

    # structure: B adds a markdown cell, A sees it; A deletes it, B sees that
    cells(b).nth(0).get_by_test_id("add-cell-below").click()
    expect(cells(a)).to_have_count(2)
    expect(cells(b).nth(1)).to_have_class(re.compile(r"\bediting\b"))  # the new cell is ready to type in
    b.keyboard.press("Escape")
    b.keyboard.press("m")
    expect(cells(a).nth(1)).to_have_attribute("data-cell-type", "markdown")
    cells(a).nth(1).get_by_test_id("delete-cell").click()
    expect(cells(b)).to_have_count(1)

    # a tab that reloads gets the current state, including output made while it was away
    b.close()
    cell_a.get_by_test_id("cell-editor").locator(".cm-content").click()
    a.keyboard.press("Control+End")
    a.keyboard.press("Enter")
    a.keyboard.type("print('while b was away')")
    a.keyboard.press("Control+Enter")
    expect(output(cell_a)).to_contain_text("while b was away", timeout=KERNEL_TIMEOUT)
    c = context.new_page()
    open_notebook(c, url)
    expect(output(cells(c).nth(0))).to_contain_text("while b was away")
    assert "print('while b was away')" in editor_text(cells(c).nth(0))



def test_edits_racing_in_one_cell_converge(server: Server, context: BrowserContext) -> None:
    """B's edit reaches the server first, A's right after, but A hears of B's edit late (its socket
    is slow: the real server's messages to A are held back and then released in order). Both edits
    are kept (the cell's text is a CRDT), and both tabs and the file end with the same text."""
    write_notebook(server.root / "race.ipynb", [("code", "start")])
    url = server.url("/notebooks/race.ipynb")
    held: list[str | bytes] = []
    hold = {"on": False}
    routes: list[WebSocketRoute] = []

    def slow_socket(ws: WebSocketRoute) -> None:
        to_server = ws.connect_to_server()
        routes.append(ws)

        def from_server(message: str | bytes) -> None:
            if hold["on"]:
                held.append(message)
            else:
                ws.send(message)

        to_server.on_message(from_server)

    a = context.new_page()
    a.route_web_socket(re.compile(r".*/ws\?path=.*"), slow_socket)
    b = context.new_page()
    open_notebook(a, url)
    open_notebook(b, url)
    cell_a, cell_b = cells(a).nth(0), cells(b).nth(0)

    hold["on"] = True
    cell_b.get_by_test_id("cell-editor").locator(".cm-content").click()
    b.keyboard.press("Control+End")
    b.keyboard.type(" from b")
    cell_a.get_by_test_id("cell-editor").locator(".cm-content").click()
    a.keyboard.press("Control+End")
    a.keyboard.type(" from a")
    # the server merged B's edit, then A's: B (not slowed down) shows both
    expect(cell_b.get_by_test_id("cell-editor")).to_contain_text(" from a")
    both = editor_text(cell_b)
    assert both in ("start from b from a", "start from a from b"), both
    assert editor_text(cell_a) == "start from a"  # A has not heard of B's edit yet
    hold["on"] = False
    for message in held:  # B's edits, in the server's order
        routes[0].send(message)
    expect(cell_a.get_by_test_id("cell-editor")).to_have_text(both)
    a.get_by_test_id("save-notebook").click()
    expect(a.get_by_test_id("save-status")).to_have_text("saved")
    saved = json.loads((server.root / "race.ipynb").read_text())
    assert "".join(saved["cells"][0]["source"]) == both
