"""Playwright e2e fixtures: a real Ghostbook server on a free port with a tmp notebook root, and
Debian's Chromium (never a downloaded browser). Each test gets its own server; terminating it shuts
its kernels down."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from .helpers import Server, launch_server, stop_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Never the user's own completion statistics (~/.local/share/ghostbook): every server gets its own file
# (the `server` fixture) or none.
os.environ["GHOSTBOOK_TELEMETRY"] = "off"
# Every message a server sends is validated against its protocol model (ghostbook/protocol/wire.py): the
# servers (they inherit this environment) append what they find to one file, read after each test.
os.environ["GHOSTBOOK_VALIDATE_OUTGOING"] = "1"
VIOLATIONS = Path(os.environ.setdefault("GHOSTBOOK_PROTOCOL_VIOLATIONS",
                                        str(Path(tempfile.mkdtemp(prefix="ghostbook-protocol-")) / "violations.log")))
# The machine may be shared with training jobs: give UI assertions more slack than the 5 s default.
expect.set_options(timeout=10_000)

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "notebook" / "ghostbook" / "web" / "static" / "build" / "main.js"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session", autouse=True)
def _frontend_built() -> None:
    if not BUILD.is_file():
        pytest.exit("frontend not built: run `npm ci && npm run build` in frontend/", returncode=2)


@pytest.fixture(autouse=True)
def _server_messages_match_the_protocol() -> Iterator[None]:
    """A test during which a server sent a message its model does not allow fails, saying what was wrong
    (the servers are stopped by then: their `server` fixture finishes first)."""
    seen = VIOLATIONS.stat().st_size if VIOLATIONS.exists() else 0
    yield
    if VIOLATIONS.exists():
        with VIOLATIONS.open(encoding="utf-8") as file:
            file.seek(seen)
            found = file.read()
        if found:
            pytest.fail(f"server messages that do not match ghostbook.protocol:\n{found}")


@pytest.fixture
def completion_settings() -> dict[str, object]:
    """The server's completion settings (its own XDG_CONFIG_HOME, so the user's never leak in).
    Off by default so that ghost text never lands in other tests' cells; ghost-text tests override
    this fixture."""
    return {"enabled": False}


@pytest.fixture
def server(completion_settings: dict[str, object]) -> Iterator[Server]:
    # Our own temp folder rather than tmp_path: other pytest sessions on this machine prune
    # /tmp/pytest-of-USER while we run.
    base = Path(tempfile.mkdtemp(prefix="ghostbook-e2e-"))
    root = base / "notebooks"
    root.mkdir()
    config = base / "config"
    (config / "ghostbook").mkdir(parents=True)
    (config / "ghostbook" / "settings.json").write_text(json.dumps({"completion": completion_settings}))
    port = _free_port()
    process = launch_server(root, port, base / "server.log", {"XDG_CONFIG_HOME": str(config),
                                                              "GHOSTBOOK_TELEMETRY": str(base / "telemetry.sqlite")})
    srv = Server(f"http://127.0.0.1:{port}", root, process)
    try:
        yield srv
    finally:
        stop_server(srv.process)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # type: ignore[attr-defined]
    return page
