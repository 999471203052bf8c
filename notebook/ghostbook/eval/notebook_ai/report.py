"""The table: per task kind and overall, of the tasks that ran (not invalid here)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ghostbook.eval.notebook_ai.runner import TaskResult
from ghostbook.eval.notebook_ai.tasks import KINDS


def summarise(results: Sequence[TaskResult]) -> dict[str, object]:
    """`parsed`: answers with at least one change read; `applied`: those the session applied; `runs`: changed
    notebooks that ran without an error; `passed`: and whose check held; calls, tokens (the answer's) and
    prompt tokens are means a task, `answer_s` the mean answer time, `wall_s` the whole run's."""
    ran = [r for r in results if r.stage != "invalid"]
    n = len(ran)
    return {"tasks": n, "invalid": len(results) - n, "parsed": sum(r.parsed > 0 for r in ran),
            "applied": sum(r.applied > 0 for r in ran), "runs": sum(r.runs for r in ran),
            "passed": sum(r.passed for r in ran), "pass": sum(r.passed for r in ran) / n if n else 0.0,
            "calls": _mean([r.calls for r in ran]), "tokens": _mean([r.tokens for r in ran]),
            "prompt_tokens": _mean([r.prompt_tokens for r in ran]), "answer_s": _mean([r.answer_s for r in ran]),
            "wall_s": sum(r.wall_s for r in results)}


def rows(label: dict[str, object], results: Sequence[TaskResult]) -> list[dict[str, object]]:
    """One row a kind present, then `all`."""
    out = [{**label, "kind": kind, **summarise(part)} for kind in KINDS
           if (part := [r for r in results if r.kind == kind])]
    return [*out, {**label, "kind": "all", **summarise(results)}]


def by_source(results: Sequence[TaskResult]) -> list[dict[str, object]]:
    """Passes per split and source repository."""
    keys = sorted({(r.split, r.source) for r in results})
    return [{"split": split, "source": source, "tasks": len(part), "passed": sum(r.passed for r in part)}
            for split, source in keys if (part := [r for r in results if (r.split, r.source) == (split, source)])]


def _mean(values: Sequence[float]) -> float:
    return statistics.mean(values) if values else 0.0
