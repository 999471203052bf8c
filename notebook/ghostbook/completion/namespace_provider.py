"""The kernel namespace summary as completion context: runs kernels/ghostbook_kernel/namespace.py
silently in the notebook's kernel (whatever IPython kernel it is; nothing is installed there); and
what one object there has (`attributes`: ghost text after `df.`).

Completion sees only `namespace_lines()`, `attributes()` and `files()`; this module sees only an object with
`run_silent`.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib.util
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ghostbook.completion.file_paths import kernel_files
from ghostbook.completion.kernel_attributes import kernel_attributes
from ghostbook.completion.silent_runner import SilentRunner

log = logging.getLogger(__name__)

MODULE = "__ghostbook_kernel__"
ATTRIBUTES_TIMEOUT = 0.5  # a request waits at most this long for an object's attributes (a busy kernel)
FILES_TIMEOUT = 0.5  # and for the working folder's files
EXPRESSION = (f"__import__('sys').modules[{MODULE!r}].summary(get_ipython().user_ns, "
              "get_ipython().user_ns_hidden)")


def kernel_source_path(name: str = "namespace.py") -> Path:
    """The source of kernels/ghostbook_kernel/`name` (installed with Ghostbook as `ghostbook_kernel`)."""
    spec = importlib.util.find_spec("ghostbook_kernel")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))) / name
    return Path(__file__).resolve().parents[3] / "kernels" / "ghostbook_kernel" / name


def install_code(source: str) -> str:
    """Code that executes `source` inside a private module of the kernel, defining no user names."""
    return (f"exec(compile({source!r}, '<ghostbook_kernel>', 'exec'), __import__('sys').modules.setdefault("
            f"{MODULE!r}, __import__('types').ModuleType({MODULE!r})).__dict__)")


def parse_reply(reply: dict[str, Any]) -> list[str]:
    """The summary lines from a run_silent reply (user_expressions["ns"] holds the repr of a JSON string)."""
    result = reply.get("user_expressions", {}).get("ns", {})
    if result.get("status") != "ok":
        raise ValueError(f"namespace summary failed: {result.get('ename')}: {result.get('evalue')}")
    lines = json.loads(ast.literal_eval(result["data"]["text/plain"]))
    return [str(line) for line in lines if isinstance(line, str)]


class KernelNamespace:
    """Caches the latest summary; `refresh()` coalesces calls so at most one runs at a time. A run's end
    makes a summary owed (`outdated`): a request that comes before it is made waits for it (`settled`)."""

    def __init__(self, runner: Callable[[], SilentRunner | None], timeout: float = 5.0,
                 settle_timeout: float = 1.0) -> None:
        self._runner = runner
        self._timeout = timeout
        self._code: str | None = None
        self.lines: list[str] = []
        self._running = False
        self._again = False
        self._idle = asyncio.Event()  # set while no refresh runs
        self._idle.set()
        self._owed = False  # the namespace changed after the last refresh began
        self._settle_timeout = settle_timeout
        self._task: asyncio.Task[None] | None = None
        self._attributes: dict[str, tuple[str, ...] | None] = {}  # since the last run ended
        self._files: list[tuple[str, ...] | None] = []  # the answer since the last run ended, once asked
        self._files_source: str | None = None

    def namespace_lines(self) -> list[str]:
        return self.lines

    async def attributes(self, owner: str) -> tuple[str, ...] | None:
        """The public attribute names of `owner` (a dotted name) in the kernel, asked once between runs;
        None where the kernel has no such object or cannot say in time."""
        if owner not in self._attributes:
            runner = self._runner()
            found = await kernel_attributes(runner, [owner], ATTRIBUTES_TIMEOUT) if runner is not None else {}
            self._attributes[owner] = found.get(owner)
        return self._attributes[owner]

    async def files(self) -> tuple[str, ...] | None:
        """The files in the kernel's working folder (`completion.file_paths`), asked once between runs (a
        run may write one, or change the folder); None where the kernel cannot say in time."""
        if not self._files:
            runner = self._runner()
            if runner is None:
                return None
            if self._files_source is None:
                self._files_source = await asyncio.to_thread(kernel_source_path("files.py").read_text)
            self._files[:] = [await kernel_files(runner, self._files_source, FILES_TIMEOUT)]
        return self._files[0]

    def clear(self) -> None:
        """The kernel restarted: its namespace is empty."""
        self.lines = []
        self._owed = False
        self._attributes.clear()
        self._files.clear()

    def outdated(self) -> None:
        """A run ended in the kernel: the summary is out of date until the next refresh."""
        self._owed = True
        self._attributes.clear()
        self._files.clear()

    async def settled(self) -> None:
        """Wait (at most `settle_timeout`) for a summary begun after the last run ended, when one is owed or in
        flight; the refresh runs in a task of its own, so a request cancelled meanwhile does not cut it short."""
        if self._owed and self._running:  # the refresh in flight began before the names changed
            self._again = True
        elif self._owed:
            self._task = asyncio.get_running_loop().create_task(self.refresh())
        elif not self._running:  # the summary is up to date (else the one in flight is and will be)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._idle.wait()), self._settle_timeout)

    async def refresh(self) -> None:
        if self._running:
            self._again = True
            return
        self._running = True
        self._idle.clear()
        try:
            while True:
                self._again = self._owed = False
                await self._refresh_once()
                if not self._again:
                    break
        finally:
            self._running = False
            self._idle.set()

    async def _refresh_once(self) -> None:
        runner = self._runner()
        if runner is None:
            return
        if self._code is None:
            self._code = install_code(await asyncio.to_thread(kernel_source_path().read_text))
        try:
            reply = await runner.run_silent(self._code, self._timeout, {"ns": EXPRESSION})
            self.lines = parse_reply(reply)
        except Exception as exc:  # a busy, dead or foreign kernel: keep the last summary
            log.info("namespace summary unavailable: %s", exc)
