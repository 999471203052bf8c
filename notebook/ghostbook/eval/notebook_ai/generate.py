"""`ghostbook eval notebook-ai generate`: cut the tasks from the notebook benchmark's test splits (`test`, by
notebook, and `unseen-test`, whole repositories), reproducibly: the same notebooks and packages give the same
file.

A notebook is read when every module it imports is installed and it reads no file or URL; its first cells
(`MAX_CELLS`, `MAX_CHARS`) run in a real kernel, and the cells before the first that fails are its notebook
(counted, with the notebooks left out, in the report). At most `PER_SOURCE` notebooks a source repository,
in the split's order, and one of a gallery script and the notebook made from it. A task is kept when its
reference answer passes its check through the eval's own runner.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import tempfile
from collections import Counter
from collections.abc import Sequence

from ghostbook.eval.kernel import TaskKernel
from ghostbook.eval.notebook_ai.analysis import parse
from ghostbook.eval.notebook_ai.asking_path import FixedAnswerer
from ghostbook.eval.notebook_ai.cutting import RunnableNotebook, choose_cells, cut_tasks
from ghostbook.eval.notebook_ai.probe import probe
from ghostbook.eval.notebook_ai.runner import run_task
from ghostbook.eval.notebook_ai.tasks import NotebookAiTask
from ghostbook.eval.notebook_data import Notebook, load_notebooks, packaged_split

SPLITS = ("test", "unseen-test")
MAX_CELLS = 8
MAX_CHARS = 1800  # the notebook's code: the prompt and a rewrite of several cells fit a small model's budget
MIN_CELLS = 3
PER_SOURCE = 6
CELL_TIMEOUT = 30.0
_READS = re.compile(r"https?://|read_csv|read_table|read_excel|read_json|read_pickle|read_parquet|open\(|"
                    r"load_dataset|loadtxt|genfromtxt|np\.load\(|fetch_|download|urlopen|input\(|get_rdataset")


def imports_installed(cell: str) -> bool:
    tree = parse(cell)
    if tree is None:
        return False
    modules = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    modules |= {n.module.split(".")[0] for n in ast.walk(tree)
                if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    return all(importlib.util.find_spec(m) is not None for m in modules)


def offline_cells(nb: Notebook) -> list[str]:
    """The notebook's first cells that import only what is installed and read no file or URL."""
    cells = []
    for cell in choose_cells(nb.cells, MAX_CELLS, MAX_CHARS):
        if _READS.search(cell) or not imports_installed(cell):
            break
        cells.append(cell)
    return cells


async def runnable(nb: Notebook, split: str, cells: list[str]) -> RunnableNotebook | None:
    """The cells before the first that fails here, with the final state; None when fewer than MIN_CELLS."""
    with tempfile.TemporaryDirectory(prefix="ghostbook-nbai-gen-") as tmp:
        async with TaskKernel(tmp) as kernel:
            ran = []
            for cell in cells:
                if not (await kernel.run(cell, CELL_TIMEOUT)).ok:
                    break
                ran.append(cell)
            if len(ran) < MIN_CELLS:
                return None
            if len(ran) < len(cells):  # the state of the cells kept, not of the failed one's half
                await kernel.restart()
                for cell in ran:
                    await kernel.run(cell, CELL_TIMEOUT)
            state = await probe(kernel)
    if state is None:
        return None
    return RunnableNotebook(nb.id, split, nb.source, nb.licence, ran, state.names, len(state.figures))


async def verified(task: NotebookAiTask) -> str | None:
    """None when the reference answer passes; else why the task is dropped (that the untouched notebook
    fails every check, the tests show)."""
    reference = await run_task(task, FixedAnswerer("reference"), CELL_TIMEOUT)
    return None if reference.passed else f"reference: {reference.stage} {reference.detail}"


async def generate(splits: Sequence[str] = SPLITS, log: bool = True) -> tuple[list[NotebookAiTask], Counter[str]]:
    """The tasks and the counts of what was left out (notebooks, cells, tasks)."""
    tasks: list[NotebookAiTask] = []
    counts: Counter[str] = Counter()
    for split in splits:
        per_source: Counter[str] = Counter()
        families: set[str] = set()  # a gallery's `plot_x.py` and its `plot_x.ipynb` are one notebook
        for nb in load_notebooks(packaged_split(split)):
            counts["notebooks"] += 1
            family = nb.id.rsplit(".", 1)[0]
            if per_source[nb.source] >= PER_SOURCE or family in families:
                continue
            cells = offline_cells(nb)
            if len(cells) < MIN_CELLS:
                counts["notebooks left out: imports or reads data"] += 1
                continue
            ready = await runnable(nb, split, cells)
            if ready is None:
                counts["notebooks left out: fewer than 3 cells run"] += 1
                continue
            per_source[nb.source] += 1
            families.add(family)
            counts["notebooks used"] += 1
            counts["cells that do not run here (left out)"] += len(cells) - len(ready.cells)
            for task in cut_tasks(ready):
                why = await verified(task)
                counts["tasks kept" if why is None else "tasks dropped"] += 1
                if log:
                    print(f"{task.id}: {'ok' if why is None else why}", flush=True)
                if why is None:
                    tasks.append(task)
    return tasks, counts
