"""Run edit tasks: a fresh kernel each, the prefix, (fix: the broken cell for its traceback), the
proposal, the check. Score pass rate, untouched lines kept, parse failures and latency."""

from __future__ import annotations

import ast
import difflib
import importlib.util
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from tqdm import tqdm

from ghostbook.eval.edits.propose import Proposal, Proposer, TaskState
from ghostbook.eval.edits.tasks import KINDS, EditTask
from ghostbook.eval.kernel import TaskKernel

# stage a task ended at: passed, or where it failed
STAGES = ("passed", "skipped", "invalid", "no_proposal", "run", "check")


@dataclass(frozen=True)
class EditResult:
    task_id: str
    kind: str
    category: str
    stage: str
    detail: str = ""
    source: str = ""
    proposal: str | None = None
    parses: bool | None = None
    kept: int = 0  # lines the reference keeps from the cell that the proposal keeps too
    keepable: int = 0  # lines the reference keeps from the cell
    ms: float = 0.0
    calls: int = 0
    tokens: int = 0
    error: str = ""  # fix tasks: the traceback's last line the proposer was given

    @property
    def passed(self) -> bool:
        return self.stage == "passed"


def kept_lines(original: str, edited: str) -> set[int]:
    """Indices of `original`'s lines that `edited` keeps byte-identical (difflib's matching blocks)."""
    a, b = original.split("\n"), edited.split("\n")
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return {block.a + k for block in matcher.get_matching_blocks() for k in range(block.size)}


def parses(text: str) -> bool:
    """Does the cell parse as Python (IPython `%` and `!` lines aside)?"""
    lines = ["pass" if line.lstrip().startswith(("%", "!")) else line for line in text.split("\n")]
    try:
        ast.parse("\n".join(lines))
    except SyntaxError:
        return False
    return True


def missing_modules(task: EditTask) -> list[str]:
    return sorted(m for m in task.modules if importlib.util.find_spec(m) is None)


async def run_task(task: EditTask, proposer: Proposer, timeout: float = 60.0) -> EditResult:
    """One task in its own kernel, in a temporary folder."""
    missing = missing_modules(task)
    if missing:
        return EditResult(task.id, task.kind, task.category, "skipped", "not installed: " + ", ".join(missing))
    with tempfile.TemporaryDirectory(prefix="ghostbook-edit-eval-") as tmp:
        async with TaskKernel(tmp) as kernel:
            return await _run(task, proposer, kernel, timeout)


async def _run(task: EditTask, proposer: Proposer, kernel: TaskKernel, timeout: float) -> EditResult:
    def result(stage: str, detail: str = "", proposal: Proposal | None = None, **more: object) -> EditResult:
        extra = {} if proposal is None else {"source": proposal.source, "proposal": proposal.text,
                                             "ms": proposal.ms, "calls": proposal.calls, "tokens": proposal.tokens}
        return EditResult(task.id, task.kind, task.category, stage, detail, **extra, **more)  # type: ignore[arg-type]

    for k, cell in enumerate(task.prefix):
        run = await kernel.run(cell, timeout)
        if not run.ok:
            return result("invalid", f"prefix cell {k} failed: {run.describe()}")
    error = None
    if task.kind == "fix":
        broken = await kernel.run(task.cell, timeout)
        if broken.error is None or broken.error.get("ename") != task.error:
            return result("invalid", f"the cell should raise {task.error}, got {broken.describe()}")
        error = broken.error
    state = TaskState((*task.prefix, task.cell), await kernel.namespace(), error, kernel.runner)
    proposal = await proposer.propose(task, state)
    said = _error_line(error)
    if proposal.text is None:
        return result("no_proposal", proposal.failure or "", proposal, error=said)
    keep = kept_lines(task.cell, task.reference)
    scores = {"parses": parses(proposal.text), "kept": len(keep & kept_lines(task.cell, proposal.text)),
              "keepable": len(keep), "error": said}
    run = await kernel.run(proposal.text, timeout)
    if not run.ok:
        return result("run", run.describe(), proposal, **scores)
    check = await kernel.run(check_code(task, proposal.text, run.stdout), timeout)
    if not check.ok:
        return result("check", check.describe(), proposal, **scores)
    return result("passed", proposal.description or "", proposal, **scores)


def check_code(task: EditTask, proposal: str, stdout: str) -> str:
    """The task's check, with the proposal's source as `__cell__` and what it printed as `__stdout__`."""
    return f"__cell__ = {proposal!r}\n__stdout__ = {stdout!r}\n{task.check}"


def _error_line(error: dict[str, object] | None) -> str:
    if error is None:
        return ""
    return f"{error.get('ename')}: {error.get('evalue')}"[:300]


async def run_tasks(tasks: Sequence[EditTask], proposer: Proposer, progress: bool = True,
                    timeout: float = 60.0) -> list[EditResult]:
    results = []
    for task in tqdm(tasks, desc=f"eval edits ({proposer.label})", unit="task", disable=not progress):
        results.append(await run_task(task, proposer, timeout))
    return results


def summarise(results: Sequence[EditResult]) -> dict[str, object]:
    """The table row: pass rate over the tasks that ran (not skipped), tasks with no proposal, proposals made
    by the offline fixes (the engine tries them first on a fix), untouched lines kept, parse failures, model
    calls and latency of the proposals."""
    ran = [r for r in results if r.stage != "skipped"]
    n = max(1, len(ran))
    proposed = [r for r in ran if r.proposal is not None]
    keepable = sum(r.keepable for r in proposed)
    ms = sorted(r.ms for r in proposed) or [0.0]
    return {"n": len(ran), "skipped": len(results) - len(ran), "pass": sum(r.passed for r in ran) / n,
            "passed": sum(r.passed for r in ran), "invalid": sum(r.stage == "invalid" for r in ran),
            "no_proposal": sum(r.stage == "no_proposal" for r in ran),
            "by_rules": sum(r.source == "rules" for r in proposed),
            "kept": sum(r.kept for r in proposed) / keepable if keepable else None,
            "parse_fail": sum(r.parses is False for r in proposed),
            "calls": statistics.mean(r.calls for r in proposed) if proposed else 0.0,
            "p50_ms": statistics.median(ms), "p95_ms": ms[min(len(ms) - 1, int(0.95 * len(ms)))]}


def rows(label: dict[str, object], results: Sequence[EditResult]) -> list[dict[str, object]]:
    """The overall row, then one per kind present."""
    out: list[dict[str, object]] = [{**label, "kind": "all", **summarise(results)}]
    for kind in KINDS:
        part = [r for r in results if r.kind == kind]
        if part and len(part) < len(results):
            out.append({**label, "kind": kind, **summarise(part)})
    return out


def by_category(results: Sequence[EditResult]) -> list[dict[str, object]]:
    """Pass counts per task category (fix: missing import, misspelt name, ...; edit: labels, column, ...)."""
    categories = sorted({(r.kind, r.category) for r in results})
    out: list[dict[str, object]] = []
    for kind, category in categories:
        part = [r for r in results if r.kind == kind and r.category == category and r.stage != "skipped"]
        out.append({"kind": kind, "category": category, "n": len(part), "passed": sum(r.passed for r in part)})
    return out


def details(results: Sequence[EditResult]) -> list[dict[str, object]]:
    return [asdict(r) for r in results]
