"""A page served by another app on another local port cannot act with Ghostbook's cookie (cookies
are shared across ports, and SameSite does not tell ports apart), while Ghostbook's own page can."""

from __future__ import annotations

import html
import http.server
import json
import socket
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from .helpers import Server


@pytest.fixture
def evil_site(server: Server) -> Iterator[str]:
    """A page on another port that posts to Ghostbook the ways a browser allows without CORS."""
    api = f"{server.base_url}/api/contents"
    body = json.dumps({"dir": "", "type": "directory", "name": "pwned-by-fetch"})
    field = html.escape('{"dir": "", "type": "directory", "name": "pwned-by-form", "x": "')
    page = f"""<!doctype html><body>
<form id="f" method="POST" enctype="text/plain" action="{api}">
  <input type="hidden" name="{field}" value='"}}'></form>
<script>
  fetch("{api}", {{method: "POST", mode: "no-cors", credentials: "include",
                   headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(body)}}})
    .finally(() => {{ document.title = "fetched"; document.getElementById("f").submit(); }});
</script></body>""".encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}/"
    httpd.shutdown()
    httpd.server_close()


def test_another_local_port_cannot_create_a_folder(server: Server, page: Page, evil_site: str) -> None:
    page.goto(server.url("/"))  # the browser now holds Ghostbook's cookie
    expect(page.get_by_test_id("file-browser")).to_be_visible()

    page.goto(evil_site)
    page.wait_for_url(f"{server.base_url}/api/contents")  # the form was submitted...
    assert "foreign origin" in page.content()  # ...and refused
    assert not (server.root / "pwned-by-form").exists() and not (server.root / "pwned-by-fetch").exists()

    # Ghostbook's own page still creates folders (same origin, JSON body).
    page.goto(server.url("/"))
    page.get_by_test_id("file-browser").get_by_test_id("new-folder").click()
    expect(page.get_by_test_id("file-browser").locator('[data-testid="file-entry"][data-path="Untitled Folder"]')
           ).to_be_visible()
    assert (server.root / "Untitled Folder").is_dir()
