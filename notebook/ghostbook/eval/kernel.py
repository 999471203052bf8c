"""A benchmark's kernel: Ghostbook's own `KernelAdapter`, each cell run to its end, its error kept.

Figures stay open (matplotlib's Agg backend, set silently before the first cell) so that a check can look
at the current axes after a cell called `plt.show()`; nothing of the setup enters the user namespace.
A cell that runs past its time is interrupted, and the kernel restarted if that does not end it; a kernel
that died is restarted; either way the next cell finds a kernel (with an empty namespace). Of a cell's
outputs only its error and the first `MAX_STDOUT` characters it printed are kept, and the kernel process's
own stdout and stderr are dropped; `input()` reads "".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from ghostbook.completion.kernel_attributes import kernel_attributes
from ghostbook.completion.namespace_provider import KernelNamespace
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.errors import KernelNotRunning
from ghostbook.kernel.events import ExecutionFinished, KernelEvent, Output, StdinRequested

log = logging.getLogger(__name__)

_SETUP = (
    "exec('try:\\n import matplotlib\\n matplotlib.use(\"Agg\")\\nexcept ImportError:\\n pass\\n"
    "import warnings\\nwarnings.filterwarnings(\"ignore\", \".*non-interactive.*\")', {})"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
MAX_STDOUT = 100_000
INTERRUPT_WAIT = 5.0  # how long an interrupted cell may take to stop before the kernel is restarted


@dataclass(frozen=True)
class CellRun:
    """How a run ended: status ok | error | timeout | dead; `error` is the nbformat error output."""

    status: str
    error: dict[str, Any] | None = None
    stdout: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self) -> str:
        """One line: `NameError: name 'np' is not defined`, or the status."""
        if self.error is not None:
            return f"{self.error.get('ename')}: {_ANSI.sub('', str(self.error.get('evalue', '')))}"[:300]
        return self.status


@dataclass
class _Pending:
    done: asyncio.Future[ExecutionFinished]
    error: dict[str, Any] | None = None
    stdout: list[str] = field(default_factory=list)
    size: int = 0

    def add(self, output: Output) -> None:
        if output.msg_type == "error" and self.error is None:
            self.error = dict(output.content)
        elif output.msg_type == "stream" and output.content.get("name") == "stdout" and self.size < MAX_STDOUT:
            text = str(output.content.get("text", ""))[: MAX_STDOUT - self.size]
            self.stdout.append(text)
            self.size += len(text)


class TaskKernel:
    """One python3 kernel in `cwd`; `async with` starts and stops it."""

    def __init__(self, cwd: str, kernel_name: str = "python3") -> None:
        self._adapter = KernelAdapter(self._on_event, kernel_name=kernel_name, cwd=cwd, quiet=True)
        self._pending: dict[str, _Pending] = {}
        self._namespace = KernelNamespace(lambda: self._adapter, timeout=10.0)
        self.restarts = 0

    async def __aenter__(self) -> TaskKernel:
        await self._adapter.start()
        await self._adapter.run_silent(_SETUP, timeout=30.0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._adapter.shutdown()

    def _on_event(self, event: KernelEvent) -> None:
        if isinstance(event, StdinRequested):  # nobody types: input() gets an empty line
            with contextlib.suppress(Exception):
                self._adapter.send_stdin("")
            return
        pending = self._pending.get(getattr(event, "msg_id", ""))
        if pending is None:
            return
        if isinstance(event, Output):
            pending.add(event)
        elif isinstance(event, ExecutionFinished) and not pending.done.done():
            pending.done.set_result(event)

    async def restart(self) -> None:
        """A fresh kernel (empty namespace), set up as at the start."""
        self.restarts += 1
        await self._adapter.restart()
        self._namespace.clear()
        await self._adapter.run_silent(_SETUP, timeout=30.0)

    async def run(self, code: str, timeout: float = 60.0) -> CellRun:
        """Execute `code` as a cell and wait for its end (interrupted after `timeout` seconds; the kernel
        restarted if the interrupt does not stop it, or if it died)."""
        try:
            msg_id = self._adapter.execute(code)
        except KernelNotRunning as exc:  # it died between cells
            await self.restart()
            return CellRun("dead", {"ename": "KernelDied", "evalue": str(exc), "traceback": []})
        pending = self._pending[msg_id] = _Pending(asyncio.get_running_loop().create_future())
        try:
            finished = await asyncio.wait_for(asyncio.shield(pending.done), timeout)
        except TimeoutError:
            await self._stop(pending)
            return CellRun("timeout", {"ename": "TimeoutError", "evalue": f"the cell ran over {timeout:.0f}s",
                                       "traceback": []})
        finally:
            self._pending.pop(msg_id, None)
        stdout = "".join(pending.stdout)
        if finished.status == "dead":
            await self.restart()
            return CellRun("dead", {"ename": "KernelDied", "evalue": finished.reason or "", "traceback": []}, stdout)
        error = pending.error
        return CellRun("error" if error is not None or finished.status != "ok" else "ok", error, stdout)

    async def _stop(self, pending: _Pending) -> None:
        """Interrupt the running cell; restart the kernel if it does not stop within `INTERRUPT_WAIT`."""
        with contextlib.suppress(Exception):
            await self._adapter.interrupt()
            await asyncio.wait_for(pending.done, INTERRUPT_WAIT)
            if pending.done.result().status != "dead":
                return
        log.info("an interrupted cell did not stop: restarting the kernel")
        await self.restart()

    @property
    def runner(self) -> KernelAdapter:
        """The kernel's adapter: silent requests (what the editor's Fix asks of objects)."""
        return self._adapter

    async def attributes(self, owner: str) -> tuple[str, ...] | None:
        """What the editor asks of the kernel after `owner.` (`completion.kernel_attributes`); None where
        the kernel has no such object."""
        return (await kernel_attributes(self._adapter, [owner], timeout=10.0)).get(owner)

    async def namespace(self) -> list[str]:
        """The kernel state as the editor sends it to the model (`df: DataFrame ... columns=[...]`)."""
        await self._namespace.refresh()
        return list(self._namespace.lines)
