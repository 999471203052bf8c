"""A Ghostbook server in its own process on a free port, as a user runs it (for the benchmarks)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


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


def start_server(root: Path, token: str = "bench-token", extra: tuple[str, ...] = ()) -> RunningServer:
    """Start `python -m ghostbook ROOT [EXTRA...]` and wait until it accepts connections (RuntimeError if it
    exits). The test suite starts its servers with this too."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ghostbook", str(root), "--port", str(port), "--token", token, "--no-browser",
         *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
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
        server.process.wait()
