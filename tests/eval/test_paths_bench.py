"""The paths benchmark: tasks at reading calls' paths, the repository's folder rebuilt, the shipped model
asked with the kernel's listing and without it."""

from __future__ import annotations

from pathlib import Path

from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval import paths_bench
from ghostbook.eval.notebook_data import Notebook

NOTEBOOKS = [
    Notebook("owner__repo/notebooks/intro.ipynb", "owner__repo", "MIT",
             ["import pandas as pd", "df = pd.read_csv('../data/gapminder.tsv', sep='\\t')\ndf.head()",
              "url = 'https://example.org/x.csv'\nremote = pd.read_csv(url)\nweb = pd.read_csv('https://e.org/y.csv')"]),
    Notebook("owner__repo/notebooks/more.ipynb", "owner__repo", "MIT",
             ["import numpy as np", "x = np.loadtxt('measurements.txt')", "with open('/etc/hosts') as f:\n    pass"]),
]


def test_tasks_are_the_literal_local_paths_read_with_only_what_is_above() -> None:
    tasks = paths_bench.path_tasks(NOTEBOOKS)
    assert [(t.path, t.task.expected, t.folder) for t in tasks] == [
        ("../data/gapminder.tsv", "'../data/gapminder.tsv', sep='\\t')", "notebooks"),
        ("measurements.txt", "'measurements.txt')", "notebooks")]
    first = tasks[0].task
    assert first.cells == ("import pandas as pd", "df = pd.read_csv(") and first.cursor == len("df = pd.read_csv(")


def test_the_folder_is_rebuilt_with_every_file_the_repository_reads(tmp_path: Path) -> None:
    tasks = paths_bench.path_tasks(NOTEBOOKS)
    files = paths_bench.folder_files(tasks, tmp_path)
    assert files[0] == ("measurements.txt", "../data/gapminder.tsv")  # the folder's own, then beside it
    assert (tmp_path / "owner__repo" / "data" / "gapminder.tsv").is_file()


def test_the_kernels_files_name_the_path_the_model_alone_does_not() -> None:
    tasks = paths_bench.path_tasks(NOTEBOOKS)
    found = paths_bench.run(tasks, "default", CompletionSettings(), progress=False)
    before, known = (paths_bench.summary(tasks, found[side]) for side in ("before", "files"))
    assert known["forced path"] == 1.0 and before["forced path"] < 1.0, (before, known)
    assert "| all | yes | 2 | 100.0% |" in paths_bench.table(tasks, found)
