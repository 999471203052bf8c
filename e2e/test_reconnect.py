"""Typing through a dropped connection (issue 14.7): nothing typed is lost, the page says plainly
that it is disconnected, and what was typed is rebased on the server's state on reconnect."""

from __future__ import annotations

import json
import signal
import socket
import time

from playwright.sync_api import BrowserContext, Page, expect

from .helpers import Server, cells, editor_text, launch_server, open_notebook, type_in_cell, wait_idle, write_notebook

# Every WebSocket the page opens is recorded; while `__blockSockets` is set, new ones go to a closed
# port (the server is out of reach), as after a network drop.
SOCKET_CONTROL = """
(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.__closes = [];
  window.__blockSockets = false;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(window.__blockSockets ? String(url).replace(/\\/\\/[^/]+/, "//127.0.0.1:%d") : url, protocols);
      window.__sockets.push(this);
      this.addEventListener("close", (e) => window.__closes.push({ code: e.code, clean: e.wasClean }));
    }
  };
})();
"""


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def drop_connection(page: Page) -> None:
    """Close the live socket (the server answers the close: it sees the tab go) and keep the
    server out of reach until `restore_connection`."""
    page.evaluate("window.__blockSockets = true; window.__sockets.at(-1).close()")
    page.wait_for_function("window.__closes.length > 0")
    assert page.evaluate("window.__closes[0]")["clean"] is True  # the server completed the close


def restore_connection(page: Page) -> None:
    page.evaluate("window.__blockSockets = false")


def saved_sources(server: Server, name: str) -> list[str]:
    notebook = json.loads((server.root / name).read_text())
    return ["".join(cell["source"]) for cell in notebook["cells"]]


def wait_saved(server: Server, name: str, sources: list[str], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while saved_sources(server, name) != sources:
        assert time.monotonic() < deadline, f"not saved: {saved_sources(server, name)!r}"
        time.sleep(0.05)


def test_typing_during_a_disconnect_is_kept_and_rebased(server: Server, context: BrowserContext) -> None:
    write_notebook(server.root / "drop.ipynb", [("code", "x = 1"), ("code", "")])
    url = server.url("/notebooks/drop.ipynb")
    a = context.new_page()
    a.add_init_script(SOCKET_CONTROL % closed_port())
    b = context.new_page()
    open_notebook(a, url)
    open_notebook(b, url)
    wait_idle(a)

    editor = cells(a).nth(1).get_by_test_id("cell-editor").locator(".cm-content")
    editor.click()
    a.keyboard.type("first = 1\nsec")
    expect(cells(b).nth(1).get_by_test_id("cell-editor")).to_contain_text("sec")
    drop_connection(a)  # mid-word
    a.keyboard.type("ond = 2\n")

    banner = a.get_by_test_id("offline-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Disconnected")
    expect(a.get_by_test_id("kernel-status")).to_have_text("no connection")  # not a stale "idle"
    expect(a.get_by_test_id("connection-status")).to_have_text("disconnected")
    expect(a.get_by_test_id("save-status")).to_have_text("unsaved")
    a.keyboard.type("third = 3")
    assert editor_text(cells(a).nth(1)).splitlines() == ["first = 1", "second = 2", "third = 3"]

    # Meanwhile another tab edits the same cell and another one.
    b_editor = cells(b).nth(1).get_by_test_id("cell-editor").locator(".cm-content")
    b_editor.click()
    b.keyboard.press("Control+Home")
    b.keyboard.type("# from b\n")
    cells(b).nth(0).get_by_test_id("cell-editor").locator(".cm-content").click()
    b.keyboard.press("Control+End")
    b.keyboard.type(" + 1")
    wait_saved(server, "drop.ipynb", ["x = 1 + 1", "# from b\nfirst = 1\nsec"])  # B's edits are on the server
    assert editor_text(cells(a).nth(0)) == "x = 1"  # nothing arrives while disconnected

    restore_connection(a)
    # "Reconnect now" (unless the backoff's next try was quicker); typing goes on meanwhile
    a.evaluate("document.querySelector('[data-testid=reconnect-now]').click()")
    a.keyboard.type("  # still typing")
    expect(banner).to_be_hidden()
    wait_idle(a)
    expected = ["x = 1 + 1", "# from b\nfirst = 1\nsecond = 2\nthird = 3  # still typing"]
    expect(cells(a).nth(1).get_by_test_id("cell-editor")).to_contain_text("# from b")
    expect(cells(b).nth(1).get_by_test_id("cell-editor")).to_contain_text("third = 3  # still typing")
    assert [editor_text(cells(page).nth(i)) for page in (a, b) for i in (0, 1)] == expected * 2
    a.keyboard.type("!")  # the editor kept its focus and caret through the reconnect
    expected[1] += "!"
    expect(cells(b).nth(1).get_by_test_id("cell-editor")).to_contain_text("typing!")
    wait_saved(server, "drop.ipynb", expected)

    # Cells run again.
    a.keyboard.press("Control+Enter")
    expect(cells(a).nth(1).get_by_test_id("cell-prompt")).to_have_text("[1]", timeout=30_000)


def test_typing_through_a_server_crash_and_restart(server: Server, page: Page) -> None:
    """kill -9 of the server right after a keystroke: the restarted server has only what it had
    saved, the tab has the rest and what was typed while the server was down: all of it is saved."""
    write_notebook(server.root / "crash.ipynb", [("code", "")])
    open_notebook(page, server.url("/notebooks/crash.ipynb"))
    wait_idle(page)
    cell = cells(page).nth(0)
    type_in_cell(page, cell, "alpha = 1\n")
    wait_saved(server, "crash.ipynb", ["alpha = 1\n"])
    page.keyboard.type("be")
    server.process.send_signal(signal.SIGKILL)
    server.process.wait()
    page.keyboard.type("ta = 2\n")
    expect(page.get_by_test_id("offline-banner")).to_be_visible()
    page.keyboard.type("gamma = 3")
    port = int(server.base_url.rsplit(":", 1)[1])
    server.process = launch_server(server.root, port, server.root.parent / "server.log",
                                   {"XDG_CONFIG_HOME": str(server.root.parent / "config")})
    page.evaluate("document.querySelector('[data-testid=reconnect-now]').click()")
    expect(page.get_by_test_id("offline-banner")).to_be_hidden(timeout=15_000)
    expected = "alpha = 1\nbeta = 2\ngamma = 3"
    assert editor_text(cell) == expected
    wait_saved(server, "crash.ipynb", [expected])
