"""Notebook-AI tasks: a real notebook (its first cells that run here), an instruction that needs changes to
more than one cell, and what its check needs. Stored one JSON object a line (`tasks.jsonl`, written by
`generate`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

KINDS = ("import", "rename", "split", "plot")
Fingerprint = dict[str, list[object]]  # name → [type name, shape or len, dtype kind] (`probe.PROBE`)


@dataclass(frozen=True)
class NotebookAiTask:
    """`cells` (ids `ids`) as the user has them, the `instruction` asked with the `selected` cells; `target`
    is the task's name (the import's, the variable renamed or plotted, the split cell's id), `new_name` the
    rename's; `state` the working notebook's final variables, `figures` its open figures; `reference` a
    correct answer in the plan format (`asking.plan`)."""

    id: str
    kind: str
    split: str
    source: str  # the notebook's source repository (or package)
    notebook: str
    licence: str
    cells: list[str]
    ids: list[str]
    instruction: str
    target: str
    reference: str
    selected: list[int] = field(default_factory=list)
    new_name: str = ""
    state: Fingerprint = field(default_factory=dict)
    figures: int = 0

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


def tasks_path() -> Path:
    """The shipped tasks (`ghostbook eval notebook-ai generate` writes them)."""
    return Path(str(resources.files("ghostbook.eval.notebook_ai") / "tasks.jsonl"))


def load_tasks(path: Path | None = None) -> list[NotebookAiTask]:
    with (path or tasks_path()).open(encoding="utf-8") as handle:
        return [NotebookAiTask(**json.loads(line)) for line in handle if line.strip()]


def write_tasks(path: Path, tasks: list[NotebookAiTask]) -> None:
    path.write_text("".join(task.to_json() + "\n" for task in tasks), encoding="utf-8")


def select(tasks: list[NotebookAiTask], kind: str | None = None, ids: list[str] | None = None,
           limit: int | None = None) -> list[NotebookAiTask]:
    """`limit`: the first N of them, taken round-robin over the kinds (a quick run sees every kind)."""
    chosen = [t for t in tasks if (kind is None or t.kind == kind) and (not ids or t.id in ids)]
    if limit is None:
        return chosen
    by_kind = [[t for t in chosen if t.kind == k] for k in KINDS]
    mixed = [t for group in _zip_longest(by_kind) for t in group]
    return mixed[:limit]


def _zip_longest(groups: list[list[NotebookAiTask]]) -> list[list[NotebookAiTask]]:
    return [[g[i] for g in groups if i < len(g)] for i in range(max((len(g) for g in groups), default=0))]
