"""Kernels on a Jupyter Kernel Gateway, from the browser (#18): the server gets the gateway from
JUPYTER_GATEWAY_URL / JUPYTER_GATEWAY_AUTH_TOKEN; a cell runs in the gateway's kernel process, a
gateway that goes away shows as a dead kernel with the reason, and Restart recovers once it is back."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.kernel.kernel_gateway import KernelGateway

from .helpers import (
    KERNEL_TIMEOUT,
    Server,
    cells,
    launch_server,
    open_notebook,
    output,
    stop_server,
    wait_idle,
    write_notebook,
)

SHOTS = Path(os.environ.get("GHOSTBOOK_E2E_SHOTS", tempfile.gettempdir()))


@pytest.fixture
def kernel_gateway() -> Iterator[KernelGateway]:
    gateway = KernelGateway().start()
    try:
        yield gateway
    finally:
        gateway.kill()


@pytest.fixture
def gateway_server(kernel_gateway: KernelGateway) -> Iterator[Server]:
    """A Ghostbook server whose kernels run on `kernel_gateway`."""
    base = Path(tempfile.mkdtemp(prefix="ghostbook-e2e-"))
    root = base / "notebooks"
    root.mkdir()
    config = base / "config"
    (config / "ghostbook").mkdir(parents=True)
    (config / "ghostbook" / "settings.json").write_text('{"completion": {"enabled": false}}')
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {"XDG_CONFIG_HOME": str(config), "JUPYTER_GATEWAY_URL": kernel_gateway.url,
           "JUPYTER_GATEWAY_AUTH_TOKEN": kernel_gateway.token}
    process = launch_server(root, port, base / "server.log", env)
    try:
        yield Server(f"http://127.0.0.1:{port}", root, process)
    finally:
        stop_server(process)
        shutil.rmtree(base, ignore_errors=True)


def test_cell_runs_on_the_gateway_and_restart_recovers_after_it_went_away(
    gateway_server: Server, kernel_gateway: KernelGateway, page: Page
) -> None:
    write_notebook(gateway_server.root / "remote.ipynb",
                   [("code", "import os\nprint('pid', os.getpid(), 'parent', os.getppid())")])
    open_notebook(page, gateway_server.url("/notebooks/remote.ipynb"))
    wait_idle(page)
    chooser = page.get_by_test_id("kernel-select")
    expect(chooser.locator("option")).to_contain_text(["Python 3 (ipykernel)"])  # the gateway's kernelspec
    cell = cells(page).nth(0)
    cell.get_by_test_id("run-cell").click()
    expect(output(cell)).to_contain_text(f"parent {kernel_gateway.pid}", timeout=KERNEL_TIMEOUT)
    pid = int(output(cell).inner_text().split()[1])
    assert pid not in (os.getpid(), gateway_server.process.pid)
    page.screenshot(path=str(SHOTS / "gateway-cell.png"))

    kernel_gateway.kill()
    expect(page.get_by_test_id("kernel-status")).to_have_text("dead", timeout=KERNEL_TIMEOUT)
    expect(page.get_by_test_id("kernel-message")).to_contain_text("the gateway went away")
    page.screenshot(path=str(SHOTS / "gateway-dead.png"))
    with urllib.request.urlopen(gateway_server.url("/api/kernelspecs"), timeout=30) as response:
        specs = json.load(response)  # the last list the gateway gave, and why it is not fresher
    assert [s["name"] for s in specs["kernelspecs"]] == ["python3"]
    assert specs["error"].startswith(f"cannot reach the gateway at {kernel_gateway.url}")

    kernel_gateway.start()
    page.get_by_test_id("restart-kernel").click()
    page.get_by_test_id("confirm-restart").click()
    wait_idle(page)
    expect(page.get_by_test_id("kernel-message")).to_be_hidden()
    cell.get_by_test_id("run-cell").click()
    expect(output(cell)).to_contain_text(f"parent {kernel_gateway.pid}", timeout=KERNEL_TIMEOUT)
    assert int(output(cell).inner_text().split()[1]) != pid
    assert not page.js_errors  # type: ignore[attr-defined]
