"""The Python interpreter behind a local kernelspec, and the command that installs packages into it.

A kernelspec's `argv[0]` names the interpreter; jupyter_client runs a bare `python` (or `python3`,
`python3.X`) as the server's own interpreter, and so do we. A kernel whose language is not Python, or
whose launcher is not a Python interpreter (`conda run ...`, a wrapper script), has no known
interpreter: nothing is installed for it.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

_PYTHON_NAME = re.compile(r"^python(\d+(\.\d+)?)?(\.exe)?$", re.IGNORECASE)
# jupyter_client.manager.KernelManager.format_kernel_cmd swaps these for sys.executable
_BARE_PYTHON = {"python", f"python{sys.version_info[0]}", f"python{sys.version_info[0]}.{sys.version_info[1]}"}


def kernel_python(kernel_name: str, ksm: KernelSpecManager | None = None) -> str | None:
    """The interpreter that runs kernelspec `kernel_name`, or None when it is not a known Python."""
    try:
        spec = (ksm or KernelSpecManager()).get_kernel_spec(kernel_name)
    except (NoSuchKernel, OSError, ValueError):
        return None
    if (spec.language or "").lower() != "python" or not spec.argv:
        return None
    command = spec.argv[0]
    if command in _BARE_PYTHON:
        return sys.executable
    if not _PYTHON_NAME.match(Path(command).name):
        return None
    path = command if os.path.isabs(command) else shutil.which(command)
    return path if path and os.path.isfile(path) and os.access(path, os.X_OK) else None


async def install_command(python: str) -> list[str] | None:
    """The command that installs packages (appended to it) into `python`'s environment: its own pip
    (`python -m pip install`), else uv's pip (`uv pip install --python ...`) where uv is found; None when
    neither is there."""
    if await _has_pip(python):
        return [python, "-m", "pip", "install", "--progress-bar", "off", "--disable-pip-version-check"]
    uv = shutil.which("uv") or _beside(python, "uv")
    if uv is not None:
        return [uv, "pip", "install", "--python", python]
    return None


def _beside(python: str, name: str) -> str | None:
    candidate = Path(python).parent / name
    return str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None


async def _has_pip(python: str) -> bool:
    try:
        process = await asyncio.create_subprocess_exec(
            python, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('pip') is None)",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return False
    try:
        return await asyncio.wait_for(process.wait(), 30) == 0
    except TimeoutError:
        process.kill()
        await process.wait()
        return False
