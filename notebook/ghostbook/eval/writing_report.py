"""The writing-mode table: forced (Ctrl+Space) and automatic requests, per group and per repository.

For each kind of request: exact (the shown first line is the line's rest, over all tasks), shown (a
ghost text came), precision (exact among shown), empty (no ghost text: for automatic requests also
where the gate or the confidence threshold held it back), garbage (what a suggestion rule would cut,
`completion.garbage`, over all tasks) and the time to the first text of those shown (p50 / p95 ms).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from ghostbook.eval.notebook_bench import NotebookResult

GROUPS = {True: "ran", False: "after a failed cell"}


def repository(result: NotebookResult) -> str:
    """The source repository of the task's notebook (notebook ids are `source/path`)."""
    return result.task_id.split("/", 1)[0]


def _answers(results: Sequence[NotebookResult], trigger: str) -> list[tuple[bool, bool, bool, float | None]]:
    """(exact, shown, garbage, first-text ms) per result for `trigger` (forced or auto)."""
    if trigger == "forced":
        return [(r.exact, not r.empty, r.garbage is not None, r.first_ms) for r in results]
    out = []
    for r in results:
        text = r.shown_auto or ""
        out.append((bool(text.strip()) and text.split("\n", 1)[0].strip() == r.expected, bool(text.strip()),
                    r.auto_garbage is not None, r.auto_first_ms))
    return out


def summary(results: Sequence[NotebookResult], trigger: str) -> dict[str, object]:
    answers = _answers(results, trigger)
    n = max(1, len(answers))
    exact, shown = sum(a[0] for a in answers), sum(a[1] for a in answers)
    ms = sorted(a[3] for a in answers if a[1] and a[3] is not None)
    return {"n": len(answers), "exact": exact / n, "shown": shown / n,
            "precision": exact / shown if shown else 0.0, "empty": 1 - shown / n,
            "garbage": sum(a[2] for a in answers) / n,
            "first_p50_ms": statistics.median(ms) if ms else None,
            "first_p95_ms": ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else None}


def rows(mode: str, results: Sequence[NotebookResult], clean: Mapping[str, bool] | None,
         by_repository: bool = False) -> list[dict[str, object]]:
    """One row per request kind and group (all tasks when `clean` is None; else the tasks whose cells above
    all ran, then those after a failed cell); `by_repository`: per repository too, tasks that ran only."""
    groups: list[tuple[str, str, list[NotebookResult]]] = []
    if clean is None:
        groups.append(("all", "all", list(results)))
    else:
        for ok, name in GROUPS.items():
            part = [r for r in results if clean[r.task_id] == ok]
            if part:
                groups.append((name, "all", part))
        if by_repository:
            ran = [r for r in results if clean[r.task_id]]
            for repo in sorted({repository(r) for r in ran}):
                groups.append(("ran", repo, [r for r in ran if repository(r) == repo]))
    return [{"mode": mode, "requests": trigger, "group": group, "repository": repo, **summary(part, trigger)}
            for group, repo, part in groups for trigger in ("forced", "auto")]
