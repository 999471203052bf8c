"""Each kind's assertion on the notebook after the changes, once it ran without an error: from its cells'
code and the kernel's state (`probe.Probe`). A check returns None when it holds, else why not."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ghostbook.eval.notebook_ai.analysis import bound_by_imports, used_names
from ghostbook.eval.notebook_ai.probe import Probe
from ghostbook.eval.notebook_ai.tasks import NotebookAiTask

Check = Callable[[NotebookAiTask, Sequence[str], Probe], str | None]


def import_once(task: NotebookAiTask, cells: Sequence[str], state: Probe) -> str | None:
    """The missing import exists exactly once (that its name is defined, the notebook's run has shown: the
    cells that use it ran)."""
    count = bound_by_imports(list(cells), task.target)
    return None if count == 1 else f"`{task.target}` is imported {count} times"


def renamed_everywhere(task: NotebookAiTask, cells: Sequence[str], state: Probe) -> str | None:
    """The old name is used nowhere, the new one in as many cells as the old was, holding the same value."""
    old, new = task.target, task.new_name
    still = sum(old in used_names(cell) for cell in cells)
    if still:
        return f"`{old}` is still used in {still} cell(s)"
    wanted = sum(old in used_names(cell) for cell in task.cells)
    have = sum(new in used_names(cell) for cell in cells)
    if have < wanted:
        return f"`{new}` is used in {have} cell(s), `{old}` was in {wanted}"
    if state.names.get(new) != task.state.get(old):
        return f"`{new}` is {state.names.get(new)}, `{old}` was {task.state.get(old)}"
    return None


def split_same_state(task: NotebookAiTask, cells: Sequence[str], state: Probe) -> str | None:
    """More cells than before, and every variable of the notebook as it was (type, shape, dtype)."""
    if len(cells) <= len(task.cells):
        return f"{len(cells)} cells, as many as before or fewer"
    return _same_state(task, state)


def plotted(task: NotebookAiTask, cells: Sequence[str], state: Probe) -> str | None:
    """A new or changed cell uses the variable, a new figure has a titled axes with something drawn on it, and
    the variable is as it was (other names, such as `fig, ax`, the new cell may take)."""
    before = set(task.cells)
    if not any(task.target in used_names(cell) for cell in cells if cell not in before):
        return f"no new or changed cell uses `{task.target}`"
    if len(state.figures) <= task.figures:
        return f"{len(state.figures)} figures open, {task.figures} before: no new figure"
    if not any(state.titled_plot_in(i) for i in range(task.figures, len(state.figures))):
        return "no new figure has a titled plot"
    if state.names.get(task.target) != task.state.get(task.target):
        return f"`{task.target}` is {state.names.get(task.target)}, was {task.state.get(task.target)}"
    return None


def _same_state(task: NotebookAiTask, state: Probe) -> str | None:
    changed = sorted(name for name, value in task.state.items() if state.names.get(name) != value)
    return f"changed or missing: {', '.join(changed[:5])}" if changed else None


CHECKS: dict[str, Check] = {"import": import_once, "rename": renamed_everywhere, "split": split_same_state,
                            "plot": plotted}


def check(task: NotebookAiTask, cells: Sequence[str], state: Probe) -> str | None:
    return CHECKS[task.kind](task, cells, state)
