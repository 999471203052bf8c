"""A Ghostbook server in its own process on a free port, as a user runs it (for the benchmarks)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class RunningServer:
    root: Path
    port: int
    token: str
    process: subprocess.Popen[bytes]
    log: Path  # what the server (and its kernels) printed

    def output(self) -> str:
        """What the server and its kernels have printed so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

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


def start_server(root: Path, token: str = "bench-token", extra: tuple[str, ...] = (),
                 env: dict[str, str] | None = None) -> RunningServer:
    """Start `python -m ghostbook ROOT [EXTRA...]` and wait until it accepts connections (RuntimeError if it
    exits). Its output goes to a file (a pipe nobody reads would stall it once full); `env` is added to this
    process's environment (a `PYTHONPATH` there picks the source tree it runs). The test suite starts its
    servers with this too."""
    port = free_port()
    fd, name = tempfile.mkstemp(prefix=f"ghostbook-server-{port}-", suffix=".log")
    with os.fdopen(fd, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "ghostbook", str(root), "--port", str(port), "--token", token, "--no-browser",
             *extra],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    server = RunningServer(root, port, token, process, Path(name))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {discard_log(server)}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.1)
    process.kill()
    process.wait()
    raise RuntimeError(f"server did not start: {discard_log(server)}")


def discard_log(server: RunningServer) -> str:
    """Remove the server's log file; what it held."""
    text = server.output()
    server.log.unlink(missing_ok=True)
    return text


def stop_server(server: RunningServer) -> str:
    """Stop the server (SIGTERM, then SIGKILL after 15 s); everything it printed."""
    server.process.terminate()
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    return discard_log(server)
