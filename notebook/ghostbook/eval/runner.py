"""Run infilling tasks against a backend: exact match, pass@1 (sandboxed) and timing."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from tqdm import tqdm

from ghostbook.eval.generate import complete
from ghostbook.eval.sandbox import run_program
from ghostbook.eval.tasks import Task
from ghostbook.models.backend import Backend
from ghostbook.models.templates import Layout


def normalise(text: str) -> str:
    """Compare code modulo trailing whitespace and surrounding blank lines."""
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n")).strip()


def exact_match(candidate: str, reference: str, single_line: bool) -> bool:
    if single_line:
        return candidate.strip() == reference.strip()
    return normalise(candidate) == normalise(reference)


@dataclass
class TaskResult:
    task_id: str
    kind: str
    completion: str
    exact: bool
    passed: bool | None
    status: str
    seconds: float


@dataclass
class Summary:
    kind: str
    n: int
    exact_match: float
    pass_at_1: float | None
    mean_latency_ms: float
    results: list[TaskResult] = field(default_factory=list)

    def row(self) -> dict[str, object]:
        d = asdict(self)
        d.pop("results")
        return d


def evaluate(backend: Backend, tasks: list[Task], kind: str, execute: bool = True,
             healing: bool = True, max_new: int | None = None, timeout: float = 5.0,
             progress: bool = True, layout: Layout = "psm", beam: int = 1, syntax: bool = True,
             reading: bool = True, copies: bool = True) -> Summary:
    """Complete every task as the editor does (FIM `layout` "psm" or "spm", beam `beam`) and score it."""
    single = kind != "multi"
    max_new = max_new or (48 if single else 128)
    results = []
    for task in tqdm(tasks, desc=f"eval {kind}", unit="task", disable=not progress):
        t0 = time.perf_counter()
        comp = complete(backend, task.prefix, task.suffix, max_new, single, healing, layout, beam, syntax,
                        reading, copies)
        dt = time.perf_counter() - t0
        em = exact_match(comp.text, task.middle, single)
        passed: bool | None = None
        status = "skipped"
        if execute and task.test:
            r = run_program(task.program(comp.text), timeout=timeout)
            passed, status = r.passed, r.status
        results.append(TaskResult(task.task_id, kind, comp.text, em, passed, status, dt))
    n = max(1, len(results))
    executed = [r for r in results if r.passed is not None]
    return Summary(
        kind=kind,
        n=len(results),
        exact_match=sum(r.exact for r in results) / n,
        pass_at_1=(sum(bool(r.passed) for r in executed) / len(executed)) if executed else None,
        mean_latency_ms=1000 * sum(r.seconds for r in results) / n,
        results=results,
    )
