"""A task's kernel: Ghostbook's own `KernelAdapter`, each cell run to its end, its error kept.

Figures stay open (matplotlib's Agg backend, set silently before the first cell) so that a check can look
at the current axes after a cell called `plt.show()`; nothing of the setup enters the user namespace.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass, field
from typing import Any

from ghostbook.completion.namespace_provider import KernelNamespace
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.events import ExecutionFinished, KernelEvent, Output

_SETUP = (
    "exec('try:\\n import matplotlib\\n matplotlib.use(\"Agg\")\\nexcept ImportError:\\n pass\\n"
    "import warnings\\nwarnings.filterwarnings(\"ignore\", \".*non-interactive.*\")', {})"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


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
    outputs: list[Output] = field(default_factory=list)


class TaskKernel:
    """One python3 kernel in `cwd`; `async with` starts and stops it."""

    def __init__(self, cwd: str, kernel_name: str = "python3") -> None:
        self._adapter = KernelAdapter(self._on_event, kernel_name=kernel_name, cwd=cwd)
        self._pending: dict[str, _Pending] = {}
        self._namespace = KernelNamespace(lambda: self._adapter, timeout=10.0)

    async def __aenter__(self) -> TaskKernel:
        await self._adapter.start()
        await self._adapter.run_silent(_SETUP, timeout=30.0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._adapter.shutdown()

    def _on_event(self, event: KernelEvent) -> None:
        pending = self._pending.get(getattr(event, "msg_id", ""))
        if pending is None:
            return
        if isinstance(event, Output):
            pending.outputs.append(event)
        elif isinstance(event, ExecutionFinished) and not pending.done.done():
            pending.done.set_result(event)

    async def run(self, code: str, timeout: float = 60.0) -> CellRun:
        """Execute `code` as a cell and wait for its end (interrupted after `timeout` seconds)."""
        msg_id = self._adapter.execute(code)
        pending = self._pending[msg_id] = _Pending(asyncio.get_running_loop().create_future())
        try:
            finished = await asyncio.wait_for(asyncio.shield(pending.done), timeout)
        except TimeoutError:
            with contextlib.suppress(Exception):
                await self._adapter.interrupt()
                await asyncio.wait_for(pending.done, 10.0)
            return CellRun("timeout", {"ename": "TimeoutError", "evalue": f"the cell ran over {timeout:.0f}s",
                                       "traceback": []})
        finally:
            self._pending.pop(msg_id, None)
        error = next((dict(o.content) for o in pending.outputs if o.msg_type == "error"), None)
        stdout = "".join(str(o.content.get("text", "")) for o in pending.outputs
                         if o.msg_type == "stream" and o.content.get("name") == "stdout")
        if finished.status == "dead":
            return CellRun("dead", {"ename": "KernelDied", "evalue": finished.reason or "", "traceback": []}, stdout)
        return CellRun("error" if error is not None or finished.status != "ok" else "ok", error, stdout)

    @property
    def runner(self) -> KernelAdapter:
        """The kernel's adapter: silent requests (what the editor's Fix asks of objects)."""
        return self._adapter

    async def namespace(self) -> list[str]:
        """The kernel state as the editor sends it to the model (`df: DataFrame ... columns=[...]`)."""
        await self._namespace.refresh()
        return list(self._namespace.lines)
