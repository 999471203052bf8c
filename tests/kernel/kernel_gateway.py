"""A real Jupyter Kernel Gateway (package jupyter_kernel_gateway) on loopback, for tests and e2e."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

TOKEN = "gateway-test-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class KernelGateway:
    """`jupyter kernelgateway` in a process of its own; `kill()` and `start()` again on the same port."""

    def __init__(self, port: int | None = None, token: str = TOKEN) -> None:
        self.port = port or free_port()
        self.token = token
        self.dir = Path(tempfile.mkdtemp(prefix="ghostbook-gateway-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 60) -> KernelGateway:
        """Start the gateway and wait until it lists its kernelspecs."""
        log = (self.dir / "gateway.log").open("ab")
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER_GATEWAY_")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kernel_gateway", "--KernelGatewayApp.ip=127.0.0.1",
             f"--KernelGatewayApp.port={self.port}", f"--KernelGatewayApp.auth_token={self.token}",
             "--KernelGatewayApp.port_retries=0"],
            stdout=log, stderr=subprocess.STDOUT, cwd=self.dir, env=env, start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        request = urllib.request.Request(f"{self.url}/api/kernelspecs",
                                         headers={"Authorization": f"token {self.token}"})
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the gateway exited with {self.process.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(request, timeout=2) as response:
                    if response.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"the gateway did not start in {timeout} s:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL the gateway (its kernels notice their parent is gone and exit)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM (the gateway shuts its kernels down), SIGKILL if it lingers."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        path = self.dir / "gateway.log"
        return path.read_text(errors="replace") if path.exists() else ""
