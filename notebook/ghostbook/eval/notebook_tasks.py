"""Notebook completion tasks: a cursor in a real notebook, the rest of that line to predict.

A task is the whole notebook: the cells above, the cell being edited (with the text after the cursor
on its line cut away) and the cells below. Cursor kinds, as people type in notebooks:

- `line`: a new line, after its indentation (the line's code is the answer);
- `after .`, `after (`, `after =`, `after ,`, `after import`: mid-line, after that token (and the one
  space typed after `=`, `,`); the rest of the line is the answer;
- `cell`: the start of a new, empty cell inserted where a cell was; its first line is the answer.

Tasks are cut deterministically (a RNG seeded by the notebook id).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ghostbook.completion.scan import position_kind
from ghostbook.eval.notebook_data import Notebook
from ghostbook.eval.tasks import humaneval_single_line

KINDS = ("line", "after .", "after (", "after =", "after ,", "after import", "cell")
_TRIGGER = re.compile(r"(?<=[A-Za-z0-9_\)\]])\.(?=[A-Za-z_])|\((?=\S)|(?<![=!<>])=(?!=) ?|, ?|\bimport ")


@dataclass(frozen=True)
class NotebookTask:
    """Complete at `cursor` in `cells[index]` (the other cells as they are); `expected` is the rest of
    the line that was cut away."""

    task_id: str
    notebook: str
    kind: str
    cells: tuple[str, ...]
    index: int
    cursor: int
    expected: str

    @property
    def line_above(self) -> str:
        """The line above the cursor's line in its cell ("" on the first line)."""
        before = self.cells[self.index][: self.cursor]
        lines = before.split("\n")
        return lines[-2] if len(lines) > 1 else ""


def _target(line: str) -> bool:
    body = line.strip()
    return len(body) >= 3 and not body.startswith(("#", "%", "!", "@")) and body not in (")", "]", "}", "):")


def _kind(token: str) -> str:
    token = token.strip()
    return "after import" if token == "import" else f"after {token}"


def _candidates(nb: Notebook) -> dict[str, list[tuple[int, int, int]]]:
    """(cell index, line number, column of the cursor) per cursor kind."""
    found: dict[str, list[tuple[int, int, int]]] = {k: [] for k in KINDS}
    for ci, cell in enumerate(nb.cells):
        lines = cell.split("\n")
        if ci > 0 and _target(lines[0]) and not lines[0][:1].isspace():
            found["cell"].append((ci, 0, 0))
        offset = 0
        for li, line in enumerate(lines):
            start = offset
            offset += len(line) + 1
            if not _target(line) or position_kind(cell[:start]) != "code":
                continue
            indent = len(line) - len(line.lstrip())
            if ci > 0 or li > 0:
                found["line"].append((ci, li, indent))
            for m in _TRIGGER.finditer(line):
                col = m.end()
                rest = line[col:]
                if col <= indent or len(rest.strip()) < 2 or rest.lstrip().startswith("#"):
                    continue
                if position_kind(cell[: start + col]) != "code":
                    continue
                found[_kind(m.group())].append((ci, li, col))
    return found


def tasks_for(nb: Notebook, per_notebook: int = 6) -> list[NotebookTask]:
    """Up to `per_notebook` tasks: one `cell` task, two `line` tasks, the rest mid-line, spread over
    the trigger kinds the notebook has."""
    rng = random.Random(nb.id)
    found = _candidates(nb)
    mid = [k for k in KINDS if k.startswith("after ") and found[k]]
    rng.shuffle(mid)
    plan = ["cell", "line", "line"] + [mid[i % len(mid)] for i in range(per_notebook)] if mid else \
        ["cell"] + ["line"] * per_notebook
    picked: list[tuple[str, int, int, int]] = []
    for kind in plan:
        if len(picked) >= per_notebook:
            break
        left = [c for c in found[kind] if (kind, *c) not in picked]
        if left:
            picked.append((kind, *rng.choice(left)))
    return [_task(nb, kind, ci, li, col, n) for n, (kind, ci, li, col) in enumerate(picked)]


def _task(nb: Notebook, kind: str, ci: int, li: int, col: int, n: int) -> NotebookTask:
    cells = list(nb.cells)
    lines = cells[ci].split("\n")
    if kind == "cell":
        expected, cells[ci], cursor = lines[0].strip(), "", 0
    else:
        line = lines[li]
        expected = line[col:].rstrip()
        lines[li] = line[:col]
        cells[ci] = "\n".join(lines)
        cursor = sum(len(x) + 1 for x in lines[:li]) + col
    return NotebookTask(f"{nb.id}#{n}", nb.id, kind, tuple(cells), ci, cursor, expected)


def notebook_tasks(notebooks: Iterable[Notebook], per_notebook: int = 6) -> list[NotebookTask]:
    return [t for nb in notebooks for t in tasks_for(nb, per_notebook)]


def humaneval_tasks(stride: int = 1) -> list[NotebookTask]:
    """HumanEval single-line infilling as the editor meets it: each problem one cell, the cursor after
    the masked line's indentation (where auto-indent leaves it), every `stride`-th line; kind "line"."""
    return [NotebookTask(t.task_id, t.task_id.rsplit("/", 1)[0], "line", (t.prefix + t.suffix,), 0, len(t.prefix),
                         t.middle.rstrip())
            for t in humaneval_single_line(cut="indent")[::stride]]
