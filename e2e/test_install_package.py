"""Missing packages, one click (issue 29.5): a ModuleNotFoundError shows "Install <package>" beside Fix;
the click runs the kernel's own pip (offline: a wheel built here, `PIP_FIND_LINKS` + `PIP_NO_INDEX`),
streams its output to every tab, then offers to run the cell again. pip's error shows when it fails; a
kernel whose interpreter is unknown gets no button."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.kernel.wheels import build_wheel, make_kernel_venv, write_kernelspec

from .conftest import _free_port
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


@pytest.fixture
def install_server() -> Iterator[tuple[Server, Path]]:
    """A server whose kernelspec `demo` runs a fresh venv (pip there sees only our wheels), and `wrapped`
    runs Python behind /usr/bin/env (an interpreter the server cannot know)."""
    base = Path(tempfile.mkdtemp(prefix="ghostbook-e2e-install-"))
    root = base / "notebooks"
    root.mkdir()
    python = make_kernel_venv(base / "venv")
    write_kernelspec(base / "jupyter", "demo", [str(python)], "Demo venv")
    write_kernelspec(base / "jupyter", "wrapped", ["/usr/bin/env", sys.executable], "Wrapped")
    build_wheel(base / "wheels", "ghostbook-demo-pkg", "ghostbook_demo_pkg")
    config = base / "config"
    (config / "ghostbook").mkdir(parents=True)
    (config / "ghostbook" / "settings.json").write_text('{"completion": {"enabled": false}}')
    env = {"XDG_CONFIG_HOME": str(config), "JUPYTER_PATH": str(base / "jupyter"),
           "PIP_FIND_LINKS": str(base / "wheels"), "PIP_NO_INDEX": "1"}
    port = _free_port()
    process = launch_server(root, port, base / "server.log", env)
    try:
        yield Server(f"http://127.0.0.1:{port}", root, process), python
    finally:
        stop_server(process)
        shutil.rmtree(base, ignore_errors=True)


def notebook_on(path: Path, kernel: str, cells_: list[tuple[str, str]]) -> None:
    write_notebook(path, cells_)
    notebook = json.loads(path.read_text())
    notebook["metadata"]["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    path.write_text(json.dumps(notebook))


def open_on_kernel(page: Page, url: str, kernel: str) -> None:
    """Open the notebook and wait for its kernel: never the server's own (an install would land there)."""
    open_notebook(page, url)
    wait_idle(page)
    expect(page.get_by_test_id("kernel-select")).to_have_value(kernel)


def test_install_a_missing_package_then_run_the_cell_again(install_server: tuple[Server, Path], page: Page,
                                                           context: BrowserContext) -> None:
    server, python = install_server
    notebook_on(server.root / "install.ipynb", "demo", [
        ("code", "import ghostbook_demo_pkg\nprint('value', ghostbook_demo_pkg.VALUE)"),
        ("code", "import ghostbook_absent_pkg"),
    ])
    open_on_kernel(page, server.url("/notebooks/install.ipynb"), "demo")
    other = context.new_page()  # a second tab sees the progress too
    open_notebook(other, server.url("/notebooks/install.ipynb"))
    cell = cells(page).nth(0)
    cell.get_by_test_id("run-cell").click()
    expect(output(cell).locator(".output-error")).to_contain_text("ModuleNotFoundError", timeout=KERNEL_TIMEOUT)
    install = cell.get_by_test_id("install-button")
    expect(install).to_have_text("⬇ Install ghostbook_demo_pkg")
    fix = cell.get_by_test_id("fix-button")
    expect(fix).to_be_visible()
    fix_box, install_box = fix.bounding_box(), install.bounding_box()
    assert fix_box and install_box and abs(fix_box["y"] - install_box["y"]) < 4  # side by side
    page.screenshot(path="/tmp/i29m_install_button.png")

    install.click()
    status = cell.get_by_test_id("install-status")
    expect(status).to_have_text("✓ Installed ghostbook_demo_pkg.", timeout=60_000)
    expect(cell.get_by_test_id("install-log")).to_contain_text("Successfully installed")
    expect(cell.get_by_test_id("install-log")).to_contain_text(f"{python} -m pip install")
    expect(install).to_be_hidden()
    expect(cells(other).nth(0).get_by_test_id("install-status")).to_have_text("✓ Installed ghostbook_demo_pkg.")
    page.screenshot(path="/tmp/i29m_install_done.png")

    cell.get_by_test_id("install-rerun").click()
    expect(output(cell)).to_contain_text("value 42", timeout=KERNEL_TIMEOUT)
    expect(output(cell).locator(".output-error")).to_have_count(0)
    expect(cell.get_by_test_id("install-panel")).to_have_count(0)

    # a package pip cannot find: its error, no re-run offer
    failing = cells(page).nth(1)
    failing.get_by_test_id("run-cell").click()
    failing.get_by_test_id("install-button").click(timeout=KERNEL_TIMEOUT)
    expect(failing.get_by_test_id("install-status")).to_have_text("✗ Could not install ghostbook_absent_pkg.",
                                                                  timeout=60_000)
    expect(failing.get_by_test_id("install-log")).to_contain_text("No matching distribution found")
    expect(failing.get_by_test_id("install-rerun")).to_be_hidden()
    expect(failing.get_by_test_id("install-button")).to_be_enabled()  # may be tried again
    failing.scroll_into_view_if_needed()
    page.screenshot(path="/tmp/i29m_install_failed.png")
    assert not page.js_errors  # type: ignore[attr-defined]


def test_no_button_where_the_interpreter_is_unknown(install_server: tuple[Server, Path], page: Page) -> None:
    server, _ = install_server
    notebook_on(server.root / "wrapped.ipynb", "wrapped", [("code", "import ghostbook_demo_pkg")])
    open_on_kernel(page, server.url("/notebooks/wrapped.ipynb"), "wrapped")
    cell = cells(page).nth(0)
    cell.get_by_test_id("run-cell").click()
    expect(output(cell).locator(".output-error")).to_contain_text("ModuleNotFoundError", timeout=KERNEL_TIMEOUT)
    expect(cell.get_by_test_id("fix-button")).to_be_visible()
    expect(cell.get_by_test_id("install-button")).to_have_count(0)
