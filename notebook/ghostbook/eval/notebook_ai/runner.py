"""Run a task: its notebook in a fresh kernel (the user ran it: the kernel's names and the failing cell's
error go to Ask), the answer, its plan accepted whole and applied as the session applies
`apply_cell_changes`, then the changed notebook in a restarted kernel, cell by cell, and the kind's check."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass

from ghostbook import protocol as p
from ghostbook.asking.accept import accepted_changes
from ghostbook.eval.kernel import TaskKernel
from ghostbook.eval.notebook_ai.asking_path import Answerer
from ghostbook.eval.notebook_ai.checks import check
from ghostbook.eval.notebook_ai.probe import probe
from ghostbook.eval.notebook_ai.tasks import NotebookAiTask
from ghostbook.session import reducer
from ghostbook.session.ops import FromClient
from ghostbook.session.outputs import CellOutputs
from ghostbook.session.state import Cell, NotebookData

# where a task ended: passed, or the first step that failed
STAGES = ("passed", "invalid", "no_changes", "not_applied", "run", "check")


@dataclass
class TaskResult:
    task_id: str
    kind: str
    split: str
    source: str
    stage: str
    detail: str = ""
    parsed: int = 0  # changes the plan parser read from the answer
    applied: int = 0  # changes applied to the notebook (0: none, or the session refused them)
    calls: int = 0
    tokens: int = 0
    prompt_tokens: int = 0
    answer_s: float = 0.0
    wall_s: float = 0.0
    answer: str = ""
    cells: list[str] | None = None  # the notebook after the changes

    @property
    def passed(self) -> bool:
        return self.stage == "passed"

    @property
    def runs(self) -> bool:
        return self.stage in ("passed", "check")

    def to_json(self) -> dict[str, object]:
        return asdict(self)


async def run_notebook(kernel: TaskKernel, cells: list[Cell], timeout: float) -> int | None:
    """Run the cells in order, as Run All does, until one fails (its error output goes into its outputs);
    the failing cell's index, or None when all ran."""
    for index, cell in enumerate(cells):
        run = await kernel.run(cell.source, timeout)
        if not run.ok:
            cell.outputs = CellOutputs.from_json([{"output_type": "error", **(run.error or {})}])
            return index
    return None


async def run_task(task: NotebookAiTask, answerer: Answerer, timeout: float = 60.0) -> TaskResult:
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ghostbook-nbai-eval-") as tmp:
        async with TaskKernel(tmp) as kernel:
            result = await _run(task, answerer, kernel, timeout)
    result.wall_s = time.perf_counter() - began
    return result


async def _run(task: NotebookAiTask, answerer: Answerer, kernel: TaskKernel, timeout: float) -> TaskResult:
    result = TaskResult(task.id, task.kind, task.split, task.source, "invalid")
    data = NotebookData("task.ipynb", [Cell(cell_id, "code", source) for cell_id, source in
                                       zip(task.ids, task.cells, strict=True)])
    failed = await run_notebook(kernel, data.cells, timeout)
    if (failed is None) == (task.kind == "import"):  # only the import task's notebook fails, with NameError
        result.detail = "the notebook does not run here" if failed is not None else "the notebook ran"
        return result
    selected = [task.ids[i] for i in task.selected] + ([data.cells[failed].id] if failed is not None else [])
    namespace = await kernel.namespace()
    answered = time.perf_counter()
    answer = await answerer.answer(task, data.cells, selected, namespace)
    result.answer_s = time.perf_counter() - answered
    result.answer = answer.text
    result.calls, result.tokens = answer.stats.get("calls", 0), answer.stats.get("tokens", 0)
    result.prompt_tokens = answer.stats.get("prompt_tokens", 0)
    result.parsed = len(answer.plan.changes)
    changes = accepted_changes(answer.plan, {cell.id: cell.source for cell in data.cells})
    if not changes:
        result.stage, result.detail = "no_changes", answer.error or "; ".join(answer.plan.notes)
        return result
    try:
        reducer.apply(data, FromClient("eval", p.ApplyCellChanges(type="apply_cell_changes", ref="eval",
                                                                  changes=changes)))
    except ValueError as exc:  # the session refuses the whole request (reducer.OperationError is one)
        result.stage, result.detail = "not_applied", str(exc)
        return result
    result.applied = len(changes)
    result.cells = [cell.source for cell in data.cells]
    await kernel.restart()
    failed = await run_notebook(kernel, data.cells, timeout)
    if failed is not None:
        result.stage, result.detail = "run", f"cell {failed + 1}: {_error_line(data.cells[failed])}"
        return result
    state = await probe(kernel)
    why = "the probe failed" if state is None else check(task, result.cells, state)
    result.stage, result.detail = ("check", why) if why else ("passed", "")
    return result


def _error_line(cell: Cell) -> str:
    error = next((o for o in cell.outputs.to_json() if o.get("output_type") == "error"), {})
    return f"{error.get('ename')}: {error.get('evalue')}"[:300]
