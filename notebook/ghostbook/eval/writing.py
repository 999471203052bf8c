"""Writing mode of the notebook benchmark: the notebook as it is while the user writes it.

A task keeps only the cells above and its own cell up to the cursor (`as_written`). The cells above
were run, as the user ran them: one real kernel per notebook (in a temporary folder) runs its cells in
order up to each task's cell (`prepare`), and the task gets the kernel namespace summary the editor's
own provider (`completion.namespace_provider.KernelNamespace`) makes there. Shell lines (`!cmd`,
`%pip`) are not run (the user's environment has what they install); a shell cell is not run at all.
A cell that fails (an error, missing data or packages, past `timeout`, the kernel died) is counted;
the notebook's later tasks are set apart (`Prepared.clean` false) and its later cells still run. Where
the cursor takes an attribute of a kernel object (`df.`), the task also gets what the editor asks the
kernel there (`completion.kernel_attributes`: the object's attribute names).
"""

from __future__ import annotations

import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby

from ghostbook.completion.kernel_attributes import owner_at_cursor
from ghostbook.eval.kernel import TaskKernel
from ghostbook.eval.notebook_bench import FixedNamespace
from ghostbook.eval.notebook_tasks import NotebookTask

_SHELL_LINE = re.compile(r"^(\s*)(!|%(pip|conda|mamba|sx|system|sh)\b)")
_SHELL_CELL = re.compile(r"^%%(bash|sh|script|system|cmd|perl|ruby|html|javascript|js)\b")


@dataclass(frozen=True)
class Prepared:
    """A task as written (`as_written`) with the namespace summary of its notebook's kernel there;
    `clean`: every cell above ran without error; `attributes`: the kernel's answer for the object whose
    attribute the cursor takes ({owner: names}; {} where there is none or the kernel has no such object)."""

    task: NotebookTask
    namespace: tuple[str, ...]
    clean: bool
    attributes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def kernel(self, attributes: bool = True) -> FixedNamespace:
        """What the kernel says to the completion service at the task (`attributes`: its answer for the
        cursor's object too); its working folder is a temporary one, so no files are named."""
        return FixedNamespace(self.namespace, self.attributes if attributes else {})


@dataclass
class KernelStats:
    """What the kernel phase ran: cells by how they ended (ok, error, timeout, dead, shell, no kernel)."""

    notebooks: int = 0
    cells: Counter[str] = field(default_factory=Counter)
    restarts: int = 0
    seconds: float = 0.0
    errors: Counter[str] = field(default_factory=Counter)  # the exception names of failed cells

    def to_json(self) -> dict[str, object]:
        return {"notebooks": self.notebooks, "cells": dict(self.cells), "restarts": self.restarts,
                "seconds": round(self.seconds, 1), "errors": dict(self.errors)}

    def line(self) -> str:
        ran = sum(self.cells.values())
        parts = ", ".join(f"{k} {v}" for k, v in self.cells.most_common())
        top = ", ".join(f"{k} {v}" for k, v in self.errors.most_common(5))
        return (f"kernel phase: {self.notebooks} notebooks, {ran} cells ({parts}); {self.restarts} kernel "
                f"restarts; {self.seconds:.0f} s" + (f"; errors: {top}" if top else ""))


def as_written(task: NotebookTask) -> NotebookTask:
    """The task with no cells below and nothing after the cursor in its cell."""
    cells = (*task.cells[: task.index], task.cells[task.index][: task.cursor])
    return replace(task, cells=cells)


def runnable(cell: str) -> str | None:
    """The cell as run here: shell lines become `pass`; None for a cell of shell (or browser) code."""
    if _SHELL_CELL.match(cell.lstrip()):
        return None
    return "\n".join(_SHELL_LINE.sub(r"\1pass  # ", line) if _SHELL_LINE.match(line) else line
                     for line in cell.split("\n"))


async def prepare(tasks: Sequence[NotebookTask], timeout: float = 20.0,
                  tick: Callable[[int], None] | None = None, stats: KernelStats | None = None) -> list[Prepared]:
    """Each task as written with its kernel's namespace, in the order of `tasks`; `tick(n)` after each
    `n` cells run; `stats` counts them."""
    stats = stats if stats is not None else KernelStats()
    start = time.perf_counter()
    done: dict[str, Prepared] = {}
    ordered = sorted(tasks, key=lambda t: t.notebook)
    for _, group in groupby(ordered, key=lambda t: t.notebook):
        stats.notebooks += 1
        for p in await _notebook(sorted(group, key=lambda t: (t.index, t.cursor)), timeout, tick, stats):
            done[p.task.task_id] = p
    stats.seconds += time.perf_counter() - start
    return [done[t.task_id] for t in tasks]


async def _notebook(tasks: list[NotebookTask], timeout: float, tick: Callable[[int], None] | None,
                    stats: KernelStats) -> list[Prepared]:
    """One notebook's tasks (sorted by cell): its cells run once, in order, in one kernel."""
    source = tasks[-1].cells  # the cells above the last task's cell are the notebook's own
    out: list[Prepared] = []
    ran, clean = 0, True
    try:
        with tempfile.TemporaryDirectory(prefix="ghostbook-writing-") as tmp:
            async with TaskKernel(tmp) as kernel:
                try:
                    for task in tasks:
                        while ran < task.index:
                            clean &= await _run(kernel, source[ran], timeout, stats)
                            ran += 1
                            if tick is not None:
                                tick(1)
                        written = as_written(task)
                        out.append(Prepared(written, tuple(await kernel.namespace()), clean,
                                            await _attributes(kernel, written)))
                finally:
                    stats.restarts += kernel.restarts
    except Exception as exc:  # the kernel would not start (or restart): the rest has no namespace
        left = tasks[len(out):]
        missing = max((t.index for t in left), default=ran) - ran
        stats.cells["no kernel"] += missing
        stats.errors[type(exc).__name__] += 1
        if tick is not None and missing > 0:
            tick(missing)
        out += [Prepared(as_written(t), (), False) for t in left]
    return out


async def _attributes(kernel: TaskKernel, task: NotebookTask) -> dict[str, tuple[str, ...]]:
    """What the editor would ask the kernel at the task's cursor: the attributes of its owner."""
    owner = owner_at_cursor(task.cells[task.index][: task.cursor])
    found = await kernel.attributes(owner) if owner is not None else None
    return {owner: found} if owner is not None and found is not None else {}


async def _run(kernel: TaskKernel, cell: str, timeout: float, stats: KernelStats) -> bool:
    code = runnable(cell)
    if code is None:
        stats.cells["shell"] += 1
        return False
    run = await kernel.run(code, timeout)
    stats.cells[run.status] += 1
    if not run.ok:
        stats.errors[str((run.error or {}).get("ename", run.status))] += 1
    return run.ok
