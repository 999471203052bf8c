"""Playwright e2e fixtures: a real Ghostbook server on a free port with a tmp notebook root, and
Debian's Chromium (never a downloaded browser). Each test gets its own server; terminating it shuts
its kernels down."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from .helpers import TOKEN, Server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "notebook" / "ghostbook" / "web" / "static" / "build" / "main.js"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_ready(base_url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{base_url}/api/kernelspecs?token={TOKEN}", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server did not start in {timeout}s:\n{log.read_text()}")


@pytest.fixture(scope="session", autouse=True)
def _frontend_built() -> None:
    if not BUILD.is_file():
        pytest.exit("frontend not built: run `npm ci && npm run build` in frontend/", returncode=2)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    root = tmp_path / "notebooks"
    root.mkdir()
    port = _free_port()
    log = tmp_path / "server.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "ghostbook", str(root), "--port", str(port), "--token", TOKEN, "--no-browser"],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp_path,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(base_url, process, log)
        yield Server(base_url, root, process)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


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
