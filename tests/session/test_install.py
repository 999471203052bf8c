"""Missing packages, one click (session/install.py): a wheel built here is installed into a throwaway
kernel venv by that venv's own pip, offline (`PIP_FIND_LINKS` + `PIP_NO_INDEX`), its output streamed to
the tabs; failures carry pip's error; kernels that are not local Pythons cannot install."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from ghostbook import protocol as p
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.gateway import GatewayKernelAdapter
from ghostbook.kernel.gateway_client import GatewayConfig
from ghostbook.session.install import PackageInstaller, installer_for
from ghostbook.session.ops import KernelChosen
from ghostbook.session.reducer import apply

from tests.kernel.wheels import build_wheel, make_kernel_venv, write_kernelspec

from .test_reducer import broadcasts, client, notebook


@pytest.fixture
def kernel_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kernelspec `demo` on a fresh venv; pip there finds only the wheels in tmp_path/wheels."""
    python = make_kernel_venv(tmp_path / "venv")
    write_kernelspec(tmp_path / "jupyter", "demo", [str(python)])
    build_wheel(tmp_path / "wheels", "ghostbook-demo-pkg", "ghostbook_demo_pkg")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "wheels"))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    return python


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[dict[str, Any], str | None]] = []
        self.replies: list[dict[str, Any]] = []
        self.afters = 0

    def broadcast(self, message: p.ServerEvent, key: str | None = None) -> None:
        self.sent.append((json.loads(p.encode(message)), key))

    def reply(self, message: p.ServerEvent) -> None:
        self.replies.append(json.loads(p.encode(message)))

    async def after(self) -> None:
        self.afters += 1


async def install(installer: PackageInstaller, recorder: Recorder, package: str) -> dict[str, Any]:
    installer.install("r1", "c0", package, recorder.reply, recorder.after)
    assert installer._task is not None
    await installer._task
    return recorder.sent[-1][0]


async def test_installs_into_the_kernels_own_interpreter_and_streams_pips_output(kernel_venv: Path) -> None:
    command = await installer_for(KernelAdapter(lambda _: None, kernel_name="demo"))
    assert command is not None and command[:4] == [str(kernel_venv), "-m", "pip", "install"]
    recorder = Recorder()
    installer = PackageInstaller(recorder.broadcast)
    installer.command = command
    last = await install(installer, recorder, "ghostbook_demo_pkg")  # the import name: pip normalises it

    first = recorder.sent[0][0]
    assert first["type"] == "install_progress" and first["done"] is False and first["text"].startswith("$ ")
    assert {key for _, key in recorder.sent} == {"install_progress:c0"}  # a newer message replaces an unsent one
    assert last["done"] is True and last["ok"] is True, last["text"]
    assert last["ref"] == "r1" and last["cell_id"] == "c0" and last["package"] == "ghostbook_demo_pkg"
    assert re.search(r"Successfully installed ghostbook[-_]demo[-_]pkg-1\.0", last["text"])
    assert recorder.afters == 1 and recorder.replies == []
    ran = await asyncio.create_subprocess_exec(
        str(kernel_venv), "-c", "import ghostbook_demo_pkg; print(ghostbook_demo_pkg.VALUE)",
        stdout=asyncio.subprocess.PIPE)
    stdout, _ = await ran.communicate()
    assert ran.returncode == 0 and stdout.decode().strip() == "42"
    with pytest.raises(ModuleNotFoundError):  # into the kernel's venv, never the server's
        __import__("ghostbook_demo_pkg")


async def test_a_failure_shows_pips_error(kernel_venv: Path) -> None:
    recorder = Recorder()
    installer = PackageInstaller(recorder.broadcast)
    installer.command = await installer_for(KernelAdapter(lambda _: None, kernel_name="demo"))
    last = await install(installer, recorder, "ghostbook-absent-pkg")
    assert last["done"] is True and last["ok"] is False
    assert "No matching distribution found for ghostbook-absent-pkg" in last["text"]
    assert "the installer exited with status 1" in last["text"]
    assert recorder.afters == 0


async def test_kernels_that_cannot_install_and_names_that_are_not_packages_are_refused(kernel_venv: Path) -> None:
    assert await installer_for(object()) is None
    gateway = GatewayKernelAdapter(lambda _: None, gateway=GatewayConfig("http://127.0.0.1:9"), kernel_name="demo")
    assert await installer_for(gateway) is None  # its kernel runs on another machine
    assert await installer_for(KernelAdapter(lambda _: None, kernel_name="no-such-kernel")) is None

    recorder = Recorder()
    installer = PackageInstaller(recorder.broadcast)
    installer.install("r1", "c0", "pandas", recorder.reply)
    assert "cannot install packages" in recorder.replies[-1]["text"]
    installer.command = ["/bin/sleep", "5"]  # stands in for a slow pip
    for name in ("--index-url=http://evil", "../x", "x y", "pandas>=2", "git+https://x/y", "-e."):
        installer.install("r1", "c0", name, recorder.reply)
        assert recorder.replies[-1]["text"] == f"{name!r} is not a package name.", name
    installer.install("r2", "c0", "pandas", recorder.reply)
    installer.install("r3", "c1", "numpy", recorder.reply)
    assert recorder.replies[-1] == {"type": "install_progress", "ref": "r3", "cell_id": "c1", "package": "numpy",
                                    "text": "pandas is being installed: try again when it is done.",
                                    "done": True, "ok": False}
    assert all(message["done"] and not message["ok"] for message in recorder.replies)
    assert not [m for m, _ in recorder.sent if m["package"] != "pandas"]  # refusals go to the asker only
    await installer.close()  # stops the installer it started


def test_the_kernel_says_whether_it_can_install() -> None:
    data = notebook("import sklearn")
    actions = apply(data, KernelChosen("python3", "Python 3", can_install=True))
    assert [m["kernel"]["can_install"] for m in broadcasts(actions, "kernel_status")] == [True]
    actions = client(data, {"type": "change_kernel", "name": "other"})
    assert [m["kernel"]["can_install"] for m in broadcasts(actions, "kernel_status")] == [False]
    assert data.snapshot()["kernel"].can_install is False


def test_the_wire_message_is_validated() -> None:
    message = p.parse_client_message('{"type": "install_package", "ref": "r", "cell_id": "c0", "package": "pandas"}')
    assert isinstance(message, p.InstallPackage) and message.package == "pandas"
    with pytest.raises(p.ProtocolError):
        p.parse_client_message('{"type": "install_package", "cell_id": "c0", "package": ""}')
