"""The paths benchmark: ghost text at a reading call's path (`pd.read_csv(`) while a notebook is written.

A task is a call in a notebook that reads a file by a literal, local path (`pd.read_csv('data/x.csv')`,
`np.loadtxt(`, `open(`): the cells above and the cell up to the call's bracket exist, nothing after the
cursor, as in writing mode. The notebook's folder is rebuilt from its repository: every file that any
notebook of the repository reads is made (empty) where that notebook reads it from, so a task's folder
holds the file it reads and its repository's others. The kernel-side listing the editor asks for
(`kernels/ghostbook_kernel/files.py`, run here in-process on the rebuilt folder) says which files are
there; each task is asked with it and without it (no files known: the editor before), through the
editor's completion service. No cell runs: the kernel's names are not in either side's prompt.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import posixpath
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ghostbook.completion.namespace_provider import kernel_source_path
from ghostbook.completion.settings import CompletionSettings
from ghostbook.decoding.paths import path_at
from ghostbook.eval.notebook_bench import FixedNamespace, NotebookResult, run_tasks
from ghostbook.eval.notebook_data import Notebook
from ghostbook.eval.notebook_tasks import NotebookTask

_LITERAL = re.compile(r"""\s*[rR]?(['"])([^'"\\\n{}]+)\1""")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


@dataclass(frozen=True)
class PathTask:
    """A reading call's path to complete (`task`: cursor after the bracket), the `path` it reads, and
    where the notebook is in its repository (`repository`, `folder`)."""

    task: NotebookTask
    path: str
    repository: str
    folder: str


def path_tasks(notebooks: Sequence[Notebook]) -> list[PathTask]:
    """Every call in `notebooks`' code cells that reads a local file by a literal path inside the
    repository (no URL, no absolute path, none above the repository's root)."""
    out = []
    for notebook in notebooks:
        repository, _, inside = notebook.id.partition("/")
        folder = posixpath.dirname(inside)
        for index, cell in enumerate(notebook.cells):
            offset = 0
            for line in cell.split("\n"):
                for bracket in (m.end() for m in re.finditer(r"\(", line)):
                    literal = _LITERAL.match(line, bracket)
                    if literal is None or path_at(line[:bracket]) is None or not _local(literal.group(2), folder):
                        continue
                    task = NotebookTask(f"{notebook.id}#{index}:{offset + bracket}", notebook.id, "path",
                                        (*notebook.cells[:index], cell[: offset + bracket]), index,
                                        offset + bracket, line[bracket:])
                    out.append(PathTask(task, literal.group(2), repository, folder))
                offset += len(line) + 1
    return out


def _local(path: str, folder: str) -> bool:
    """Whether `path`, read from `folder` (in its repository), is a file inside the repository."""
    if _URL.match(path) or path.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", path):
        return False
    where = posixpath.normpath(posixpath.join(folder, path))
    return not where.startswith("..") and where != "."


def _listing() -> Callable[[str], str]:
    """The kernel-side `data_files(root)`, loaded from its source as the kernel runs it."""
    spec = importlib.util.spec_from_file_location("ghostbook_files_listing", kernel_source_path("files.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return _data_files(module)


def _data_files(module: ModuleType) -> Callable[[str], str]:
    function: Callable[[str], str] = module.data_files
    return function


def folder_files(tasks: Sequence[PathTask], root: Path) -> list[tuple[str, ...]]:
    """Rebuild each task's repository under `root` (every file its notebooks read, empty) and list what
    the kernel would, from each task's notebook folder."""
    for task in tasks:
        where = root / task.repository / posixpath.normpath(posixpath.join(task.folder, task.path))
        where.parent.mkdir(parents=True, exist_ok=True)
        where.touch()
        (root / task.repository / task.folder).mkdir(parents=True, exist_ok=True)
    listing = _listing()
    return [tuple(json.loads(listing(str(root / task.repository / task.folder)))) for task in tasks]


def names_path(result: NotebookResult, task: PathTask) -> bool:
    """Whether the suggestion's first line opens the path's string with the path the notebook reads."""
    literal = _LITERAL.match(result.completion)
    return literal is not None and literal.group(2) == task.path


def names_path_auto(result: NotebookResult, task: PathTask) -> bool:
    """The same for the automatic request's shown text."""
    literal = _LITERAL.match((result.shown_auto or "").split("\n", 1)[0])
    return literal is not None and literal.group(2) == task.path


def summary(tasks: Sequence[PathTask], results: Sequence[NotebookResult]) -> dict[str, float | int]:
    """Forced: the path right, the line exact; automatic: shown, the path right among shown."""
    n = len(tasks)
    shown = [(t, r) for t, r in zip(tasks, results, strict=True) if r.shown_auto]
    return {"n": n,
            "forced path": sum(names_path(r, t) for t, r in zip(tasks, results, strict=True)) / max(n, 1),
            "forced exact": sum(r.exact for r in results) / max(n, 1),
            "auto shown": len(shown) / max(n, 1),
            "auto path among shown": sum(names_path_auto(r, t) for t, r in shown) / max(len(shown), 1)}


def run(tasks: Sequence[PathTask], model: str, settings: CompletionSettings,
        progress: bool = True) -> dict[str, list[NotebookResult]]:
    """Ask every task without the kernel's files and with them (`before`, `files`)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = folder_files(tasks, Path(tmp))
    plain = [task.task for task in tasks]
    before = asyncio.run(run_tasks(plain, model, settings, progress, automatic=True,
                                   kernels=[FixedNamespace() for _ in tasks], desc="paths: no files"))
    known = asyncio.run(run_tasks(plain, model, settings, progress, automatic=True,
                                  kernels=[FixedNamespace(files_there=f) for f in files], desc="paths: files"))
    return {"before": before, "files": known}


def table(tasks: Sequence[PathTask], found: dict[str, list[NotebookResult]]) -> str:
    """The side-by-side table, all tasks and by repository."""
    groups: dict[str, list[int]] = defaultdict(list)
    for k, task in enumerate(tasks):
        groups[task.repository].append(k)
    lines = ["| tasks | files known | n | forced: path right | forced: line exact | automatic: shown | "
             "automatic: path right among shown |", "|---|---|---|---|---|---|---|"]
    for name, picked in [("all", list(range(len(tasks)))), *sorted(groups.items())]:
        for side, results in found.items():
            row = summary([tasks[k] for k in picked], [results[k] for k in picked])
            lines.append(f"| {name} | {'yes' if side == 'files' else 'no'} | {row['n']} | "
                         f"{row['forced path']:.1%} | {row['forced exact']:.1%} | {row['auto shown']:.1%} | "
                         f"{row['auto path among shown']:.1%} |")
    return "\n".join(lines)


def run_cli(notebooks: Sequence[Notebook], model: str, settings: CompletionSettings, title: str,
            progress: bool = True, out: Path | None = None) -> str:
    """`ghostbook eval MODEL --tasks paths`: run, print and return the table (and write the details)."""
    tasks = path_tasks(notebooks)
    found = run(tasks, model, settings, progress)
    text = f"paths: {title}, {len(tasks)} reading calls\n" + table(tasks, found)
    print(text)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({side: [{"task": t.task.task_id, "path": t.path, "forced": r.completion,
                                           "auto": r.shown_auto} for t, r in zip(tasks, results, strict=True)]
                                   for side, results in found.items()}, indent=1))
    return text
