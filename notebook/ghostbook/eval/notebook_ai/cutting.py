"""Cut tasks from a notebook that runs here (pure: the kernel's part is done by `generate`). At most one task
of each kind a notebook, each with a correct answer written in the plan format (`reference`):

- `import`: an import whose name three other cells use is taken out; the notebook fails with NameError;
- `rename`: a variable one cell assigns and other cells use, renamed everywhere;
- `split`: the longest cell with four or more top-level statements, split into steps;
- `plot`: a 1-D numeric array or Series the notebook made, plotted in a new cell with a title.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from ghostbook.eval.notebook_ai.analysis import (
    assigned_names,
    import_lines,
    renamed,
    statement_starts,
    used_names,
)
from ghostbook.eval.notebook_ai.tasks import Fingerprint, NotebookAiTask

MIN_USES = 3  # cells besides the import's that use its name
MIN_STATEMENTS = 4  # top-level statements of a cell worth splitting
PLOTTABLE = ("ndarray", "Series")


@dataclass(frozen=True)
class RunnableNotebook:
    """A notebook's first cells that ran here, their final `state` and open `figures`."""

    id: str
    split: str
    source: str
    licence: str
    cells: list[str]
    state: Fingerprint
    figures: int

    @property
    def ids(self) -> list[str]:
        return cell_ids(self.id, len(self.cells))


def cell_ids(notebook: str, n: int) -> list[str]:
    """Stable cell ids, as the editor's (hex), from the notebook's id."""
    return [hashlib.sha1(f"{notebook}#{i}".encode()).hexdigest()[:8] for i in range(n)]


def _task(nb: RunnableNotebook, kind: str, **fields: object) -> NotebookAiTask:
    name = nb.id.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    task_id = f"{kind}:{nb.source}/{name}:{hashlib.sha1(nb.id.encode()).hexdigest()[:4]}"
    values: dict[str, object] = {"cells": nb.cells, "ids": nb.ids, "state": nb.state, "figures": nb.figures,
                                 **fields}
    return NotebookAiTask(task_id, kind, nb.split, nb.source, nb.id, nb.licence, **values)  # type: ignore[arg-type]


def _change(cell_id: str, code: str) -> str:
    return f"Cell {cell_id}:\n```python\n{code}\n```\n"


def missing_import(nb: RunnableNotebook) -> NotebookAiTask | None:
    for index, cell in enumerate(nb.cells):
        for line in import_lines(cell):
            users = [i for i, other in enumerate(nb.cells) if i != index and line.name in used_names(other)]
            if len(users) < MIN_USES or line.name in used_names(cell):
                continue
            rest = cell.split("\n")
            del rest[line.line]
            cells = list(nb.cells)
            ids = list(nb.ids)
            if "\n".join(rest).strip():
                cells[index] = "\n".join(rest).strip("\n")
            else:
                del cells[index], ids[index]
            reference = _change(ids[0], f"{line.text.strip()}\n{cells[0]}")
            instruction = (f"Running the notebook fails: NameError: name '{line.name}' is not defined. "
                           f"Add the missing import, once, so that every cell runs.")
            return _task(nb, "import", cells=cells, ids=ids, instruction=instruction, target=line.name,
                         reference=reference)  # the runner selects the cell that fails, as the user would
    return None


def rename(nb: RunnableNotebook) -> NotebookAiTask | None:
    for index, cell in enumerate(nb.cells):
        for name in sorted(assigned_names(cell)):
            users = [i for i, other in enumerate(nb.cells) if i != index and name in used_names(other)]
            if not users or len(name) < 2 or name not in nb.state or name.startswith("_"):
                continue
            if any(name in assigned_names(nb.cells[i]) for i in users):
                continue  # assigned again later: a rename of one of them would be ambiguous
            new = f"{name}_data" if not name.endswith("data") else f"{name}_values"
            if any(new in used_names(c) for c in nb.cells):
                continue
            reference = "".join(_change(nb.ids[i], renamed(c, name, new))
                                for i, c in enumerate(nb.cells) if name in used_names(c))
            instruction = f"Rename the variable `{name}` to `{new}` everywhere it is used in the notebook."
            return _task(nb, "rename", instruction=instruction, target=name, new_name=new, reference=reference)
    return None


def split_cell(nb: RunnableNotebook) -> NotebookAiTask | None:
    candidates = [(len(cell), i) for i, cell in enumerate(nb.cells) if len(statement_starts(cell)) >= MIN_STATEMENTS]
    if not candidates:
        return None
    _, index = max(candidates)
    cell, cell_id = nb.cells[index], nb.ids[index]
    starts = statement_starts(cell)
    lines = cell.split("\n")
    middle = starts[len(starts) // 2]
    first, second = "\n".join(lines[:middle]).strip("\n"), "\n".join(lines[middle:]).strip("\n")
    reference = _change(cell_id, first) + f"\nNew cell after {cell_id}:\n```python\n{second}\n```\n"
    instruction = (f"Split cell {cell_id} into smaller cells, one step each, without changing what the "
                   f"notebook computes.")
    return _task(nb, "split", instruction=instruction, target=cell_id, reference=reference, selected=[index])


def plot(nb: RunnableNotebook) -> NotebookAiTask | None:
    for name, (kind, size, dtype) in sorted(nb.state.items()):
        if kind not in PLOTTABLE or not isinstance(size, list) or len(size) != 1 or dtype not in ("f", "i", "u"):
            continue
        if not 3 <= int(size[0]) <= 100_000:
            continue
        last = nb.ids[-1]
        code = (f"import matplotlib.pyplot as plt\n\nfig, ax = plt.subplots()\nax.plot({name})\n"
                f"ax.set_title(\"{name}\")\nplt.show()")
        reference = f"New cell after {last}:\n```python\n{code}\n```\n"
        instruction = f"Add a cell at the end that plots `{name}` as a line chart with matplotlib, with a title."
        return _task(nb, "plot", instruction=instruction, target=name, reference=reference)
    return None


CUTTERS = (missing_import, rename, split_cell, plot)


def cut_tasks(nb: RunnableNotebook) -> list[NotebookAiTask]:
    """Every kind's task this notebook has (at most one a kind)."""
    return [task for cutter in CUTTERS if (task := cutter(nb)) is not None]


def choose_cells(cells: Sequence[str], max_cells: int, max_chars: int) -> list[str]:
    """The first cells, at most `max_cells` and `max_chars` characters in all (a prompt SmolLM2 can hold)."""
    kept: list[str] = []
    for cell in cells[:max_cells]:
        if sum(map(len, kept)) + len(cell) > max_chars:
            break
        kept.append(cell)
    return kept
