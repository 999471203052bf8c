"""The interpreter behind a kernelspec, and how packages get installed into it (kernel/interpreter.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from ghostbook.kernel.interpreter import install_command, kernel_python
from jupyter_client.kernelspec import KernelSpecManager

from tests.kernel.wheels import make_kernel_venv, write_kernelspec


def specs(tmp_path: Path) -> KernelSpecManager:
    return KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")])


def test_a_bare_python_is_the_servers_own_as_jupyter_client_runs_it(tmp_path: Path) -> None:
    write_kernelspec(tmp_path, "bare", ["python"])
    write_kernelspec(tmp_path, "versioned", [f"python{sys.version_info[0]}"])
    assert kernel_python("bare", specs(tmp_path)) == sys.executable
    assert kernel_python("versioned", specs(tmp_path)) == sys.executable


def test_an_absolute_interpreter_is_taken_as_it_is(tmp_path: Path) -> None:
    python = make_kernel_venv(tmp_path / "venv")
    write_kernelspec(tmp_path, "venv", [str(python)])
    assert kernel_python("venv", specs(tmp_path)) == str(python)


def test_unknown_interpreters_get_none(tmp_path: Path) -> None:
    write_kernelspec(tmp_path, "wrapped", ["/usr/bin/env", sys.executable])  # a launcher, not an interpreter
    write_kernelspec(tmp_path, "gone", [str(tmp_path / "nowhere" / "python3")])
    folder = write_kernelspec(tmp_path, "r", ["R"])
    spec = json.loads((folder / "kernel.json").read_text())
    (folder / "kernel.json").write_text(json.dumps({**spec, "language": "R"}))
    for name in ("wrapped", "gone", "r", "not-installed"):
        assert kernel_python(name, specs(tmp_path)) is None, name


async def test_pip_of_the_interpreter_when_it_has_one() -> None:
    command = await install_command(sys.executable)
    assert command is not None and command[:4] == [sys.executable, "-m", "pip", "install"]


async def test_uv_where_the_interpreter_has_no_pip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    python = tmp_path / "bare" / "bin" / "python"
    import venv

    venv.EnvBuilder(with_pip=False, symlinks=True).create(tmp_path / "bare")  # sees no pip at all
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert await install_command(str(python)) is None
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "uv").write_text("#!/bin/sh\n")
    os.chmod(tools / "uv", 0o755)
    monkeypatch.setenv("PATH", str(tools))
    assert await install_command(str(python)) == [str(tools / "uv"), "pip", "install", "--python", str(python)]
