"""Shared fixtures: a real Ghostbook server (its own process, as a user runs it) and a tiny model
trained end to end by the project's own pipeline (for the training and eval tests)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class RunningServer:
    root: Path
    port: int
    token: str
    process: subprocess.Popen[bytes]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(root: Path, token: str = "test-token", extra: tuple[str, ...] = ()) -> RunningServer:
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "ghostbook", str(root), "--port", str(port), "--token", token, "--no-browser",
         *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stdout.read().decode() if process.stdout else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return RunningServer(root, port, token, process)
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("server did not start")


def stop_server(server: RunningServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("srv")
    root = base / "notebooks"
    root.mkdir()
    (base / "notebooks-secret").mkdir()
    (base / "notebooks-secret" / "secret.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, '
                                                           '"nbformat_minor": 5}')
    running = start_server(root)
    yield running
    stop_server(running)

STDLIB_FILES = ["textwrap.py", "string.py", "fnmatch.py", "colorsys.py", "bisect.py", "heapq.py",
                "shlex.py", "glob.py", "calendar.py", "difflib.py"]


def make_tiny_run(root: Path) -> Path:
    """Train the `tiny` preset for a few steps on a few stdlib files and export it; returns WORK."""
    from ghostbook.training.cli import main

    src = root / "src"
    src.mkdir()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in STDLIB_FILES:
        shutil.copy(stdlib / name, src / name)
    work = root / "work"
    assert main(["all", "--preset", "tiny", "--work", str(work), "--roots", str(src),
                 "--quant", "f32", "f16", "q8_0", "q4_0"]) == 0
    return work


@pytest.fixture(scope="session")
def tiny_work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_run(tmp_path_factory.mktemp("tiny"))
