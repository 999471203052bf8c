"""Small page helpers shared by the e2e tests (everything is found by data-testid)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Locator, Page, WebSocketRoute, expect

KERNEL_TIMEOUT = 30_000
TOKEN = "e2e-token"


@dataclass
class Server:
    base_url: str
    root: Path
    process: subprocess.Popen[bytes]

    def url(self, path: str = "/") -> str:
        """`path` on this server with the token (the server then sets its cookie)."""
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}{path}{sep}token={TOKEN}"


def launch_server(
    root: Path, port: int, log: Path, extra_env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start `python -m ghostbook ROOT` on `port` and wait until it answers."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(extra_env or {})}
    with log.open("ab") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "ghostbook", str(root), "--port", str(port), "--token", TOKEN, "--no-browser"],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=root.parent,
        )
    try:
        _wait_ready(f"http://127.0.0.1:{port}", process, log)
    except BaseException:
        stop_server(process)
        raise
    return process


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


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the server shuts its kernels down), then SIGKILL if it lingers."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def write_notebook(path: Path, cells: list[tuple[str, str]]) -> None:
    """Write a small nbformat v4 notebook with (cell_type, source) cells."""
    nb_cells = []
    for i, (cell_type, source) in enumerate(cells):
        cell: dict[str, object] = {"cell_type": cell_type, "id": f"cell{i}", "metadata": {}, "source": source}
        if cell_type == "code":
            cell.update(outputs=[], execution_count=None)
        nb_cells.append(cell)
    notebook = {
        "cells": nb_cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1))


def open_notebook(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")


def wait_idle(page: Page) -> None:
    expect(page.get_by_test_id("kernel-status")).to_have_text("idle", timeout=KERNEL_TIMEOUT)


def cells(page: Page) -> Locator:
    return page.get_by_test_id("cell")


def editor_text(cell: Locator) -> str:
    """The cell's text as its editor shows it, line by line (what another tab's cursor draws is no text)."""
    return str(cell.get_by_test_id("cell-editor").locator(".cm-content").evaluate(
        "el => [...el.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\\n')"))


def type_in_cell(page: Page, cell: Locator, text: str) -> None:
    """Focus the cell's editor at the end and type `text` (newlines via Enter)."""
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def set_cell_source(page: Page, cell: Locator, text: str) -> None:
    """Replace the cell's text (select all, then insert it without auto-indent or bracket closing)."""
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)


def output(cell: Locator) -> Locator:
    return cell.get_by_test_id("cell-output")


class HeldFrames:
    """The notebook socket's frames from the server that `holds` picks are kept back (while `on`) until
    `release`d, in order: a slow or late server as the page meets it. Route before the page opens."""

    def __init__(self, page: Page, holds: Callable[[str | bytes], bool]) -> None:
        self.page = page
        self.holds = holds
        self.on = True
        self.held: list[str | bytes] = []
        self.routes: list[WebSocketRoute] = []
        page.route_web_socket(re.compile(r".*/ws\?path=.*"), self._connect)

    def _connect(self, ws: WebSocketRoute) -> None:
        to_server = ws.connect_to_server()
        self.routes.append(ws)

        def from_server(message: str | bytes) -> None:
            if self.on and self.holds(message):
                self.held.append(message)
            else:
                ws.send(message)

        to_server.on_message(from_server)

    def wait_for(self, count: int, seconds: float = 10.0) -> None:
        """Until `count` frames are held (Playwright dispatches the socket's messages while the page waits)."""
        deadline = time.monotonic() + seconds
        while len(self.held) < count:
            assert time.monotonic() < deadline, f"{len(self.held)} frames held, not {count}"
            self.page.wait_for_timeout(20)

    def release(self, count: int | None = None) -> None:
        """Let the first `count` held frames (all by default) through to the page, in order."""
        count = len(self.held) if count is None else count
        for message in self.held[:count]:
            self.routes[-1].send(message)
        del self.held[:count]


def smollm2_edit_settings() -> dict[str, object]:
    """Completion off and the tests' real chat model (SmolLM2, `tests.chat_model`) as the edit model; the
    test is skipped, saying why, where the package is not installed."""
    import pytest

    from tests.chat_model import MISSING, smollm2_path

    path = smollm2_path()
    if path is None:
        pytest.skip(MISSING)
    return {"enabled": False, "edit_model": str(path)}
