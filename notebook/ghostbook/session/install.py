"""Missing packages, one click: install a distribution into the local kernel's own interpreter.

The page shows "Install <package>" on a `ModuleNotFoundError` (it maps the import name to the
distribution: frontend/src/install.ts) when the kernel says `can_install`. The session then runs the
kernel's pip (or uv) here and streams its output to every tab as `install_progress`, each message
carrying the whole log so far, and the tab offers to re-run the cell. Only a local kernel whose
interpreter is known can install; a gateway's kernels run on another machine.

pip and uv read their own environment (`PIP_FIND_LINKS`, `PIP_NO_INDEX`, `UV_INDEX_URL`, ...), so an
offline machine or a private index is configured as it would be for a pip run in a terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import tempfile
import time
from collections.abc import Awaitable, Callable

from ghostbook import protocol as p
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.interpreter import install_command, kernel_python

log = logging.getLogger(__name__)

# A distribution name (PEP 508 `name`) and nothing else: no version, extras, URL, path or option.
PACKAGE_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$")
LOG_LIMIT = 64_000  # characters of pip's output kept (the latest)
FLUSH_SECONDS = 0.2  # at most this often a progress message per install
TIMEOUT_SECONDS = 30 * 60

Send = Callable[[p.ServerEvent], None]
Broadcast = Callable[[p.ServerEvent, str | None], None]  # (message, key: a newer one replaces it unsent)


async def installer_for(kernel: object) -> list[str] | None:
    """How to install into `kernel`'s interpreter: None for gateway (or test) kernels and unknown ones."""
    if not isinstance(kernel, KernelAdapter):
        return None
    python = await asyncio.to_thread(kernel_python, kernel.kernel_name)
    return None if python is None else await install_command(python)


class PackageInstaller:
    """One install at a time per notebook; `command` is set for each kernel the session starts."""

    def __init__(self, broadcast: Broadcast) -> None:
        self._broadcast = broadcast
        self.command: list[str] | None = None
        self._task: asyncio.Task[None] | None = None
        self._package: str | None = None

    def install(self, ref: str | None, cell_id: str, package: str, reply: Send,
                after: Callable[[], Awaitable[None]] | None = None) -> None:
        """Start installing `package` for the cell `cell_id`; a refusal goes to `reply` only (as a
        finished, failed progress message). `after` runs once it succeeded (the kernel's import caches)."""
        def refuse(why: str) -> None:
            reply(_progress(ref, cell_id, package, why, done=True, ok=False))

        if self.command is None:
            return refuse("This kernel cannot install packages here (it runs on a gateway, or its Python "
                          "interpreter is unknown).")
        if not PACKAGE_NAME.match(package):
            return refuse(f"{package!r} is not a package name.")
        if self._task is not None and not self._task.done():
            return refuse(f"{self._package} is being installed: try again when it is done.")
        self._package = package
        command = [*self.command, package]
        self._task = asyncio.get_running_loop().create_task(self._run(command, ref, cell_id, package, after))

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self, command: list[str], ref: str | None, cell_id: str, package: str,
                   after: Callable[[], Awaitable[None]] | None) -> None:
        key = f"install_progress:{cell_id}"
        output = f"$ {' '.join(command)}\n"

        def send(done: bool = False, ok: bool = False) -> None:
            self._broadcast(_progress(ref, cell_id, package, _tail(output), done=done, ok=ok), key)

        send()
        env = {**os.environ, "PIP_NO_INPUT": "1", "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
        with tempfile.TemporaryDirectory(prefix="ghostbook-install-") as cwd:  # never a local dir named `package`
            try:
                process = await asyncio.create_subprocess_exec(
                    *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT, env=env, cwd=cwd)
            except OSError as exc:
                output += f"cannot run the installer: {exc}\n"
                send(done=True)
                return
            assert process.stdout is not None
            flushed = time.monotonic()
            try:
                async with asyncio.timeout(TIMEOUT_SECONDS):
                    while chunk := await process.stdout.read(4096):
                        output = _tail(output + chunk.decode(errors="replace"))
                        if time.monotonic() - flushed >= FLUSH_SECONDS:
                            flushed = time.monotonic()
                            send()
                    code = await process.wait()
            except BaseException as exc:  # cancelled (the notebook closed) or too slow: stop pip
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
                if not isinstance(exc, TimeoutError):
                    raise
                output += f"\nstopped after {TIMEOUT_SECONDS // 60} minutes\n"
                code = -1
        ok = code == 0
        if ok and after is not None:
            try:
                await after()
            except Exception as exc:  # the kernel may have died meanwhile; the install itself worked
                log.info("after installing %s: %s", package, exc)
        if code > 0:
            output += f"\nthe installer exited with status {code}\n"
        send(done=True, ok=ok)


def _progress(ref: str | None, cell_id: str, package: str, text: str, *, done: bool, ok: bool) -> p.InstallProgress:
    return p.InstallProgress.model_construct(ref=ref, cell_id=cell_id, package=package, text=text, done=done, ok=ok)


def _tail(text: str) -> str:
    if len(text) <= LOG_LIMIT:
        return text
    cut = text.find("\n", len(text) - LOG_LIMIT)
    return "[… earlier output dropped …]\n" + text[cut + 1 if cut != -1 else len(text) - LOG_LIMIT:]
