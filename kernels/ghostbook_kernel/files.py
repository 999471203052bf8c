"""Kernel-side: the files a notebook's code may read, where it reads them from (the kernel's working
folder: `open("x")` and `pd.read_csv("x")` look there). Runs in ANY IPython kernel, uninstalled (sent as
source, like namespace.py, into a private module of its own).

`data_files()` returns a JSON list of paths relative to the working folder, with forward slashes, nearest
first: the folder's files and its subfolders' a few levels down, then the data files of the data folders
beside it and beside the folder above (`../data/gapminder.tsv`, `../../data/iris.csv`: a notebook in a
subfolder of its project). Hidden entries, code, notebooks and
environments are left out; the walk is bounded in entries, so a home folder costs no more than a project.
Stdlib only.
"""

from __future__ import annotations  # any Python 3 the kernel runs: the hints are not evaluated

import json
import os
from collections.abc import Callable

DEPTH = 3  # folders below the working folder looked into
PARENT_DEPTH = 2  # folders below a data folder beside it (or beside the folder above)
DATA_FOLDERS = {"input", "inputs", "raw", "files", "resources", "assets", "csv", "db", "datasets", "dataset"}
MAX_FILES = 200
MAX_ENTRIES = 5000  # directory entries read in all, at most
SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"}
CODE = (".py", ".pyc", ".ipynb", ".pyi", ".so", ".pyd", ".egg-info")
DATA = (".csv", ".tsv", ".txt", ".dat", ".json", ".jsonl", ".xlsx", ".xls", ".parquet", ".feather", ".pkl",
        ".pickle", ".h5", ".hdf5", ".npy", ".npz", ".mat", ".zip", ".gz", ".bz2", ".xz", ".xml", ".html",
        ".sqlite", ".db", ".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".wav", ".nc", ".geojson",
        ".shp", ".dta", ".sav", ".sas7bdat", ".data", ".names", ".yaml", ".yml", ".md")


def _walk(root: str, start: str, depth: int, keep: Callable[[str], bool], budget: list[int],
          out: list[str]) -> None:
    """Files under `start` (a folder relative to `root`; breadth first, names sorted) that `keep`
    accepts, into `out` as paths relative to `root`; `budget` is a one-item list of directory entries
    left to read."""
    level = [start]
    for _ in range(depth + 1):
        below = []
        for folder in level:
            try:
                entries = sorted(os.scandir(os.path.join(root, folder)), key=lambda e: e.name)
            except OSError:
                continue
            budget[0] -= len(entries)
            for entry in entries:
                if entry.name.startswith(".") or entry.name in SKIP_DIRS:
                    continue
                path = entry.name if folder == "." else folder + "/" + entry.name
                try:
                    if entry.is_dir():
                        below.append(path)
                    elif keep(entry.name) and len(out) < MAX_FILES:
                        out.append(path)
                except OSError:
                    continue
            if budget[0] <= 0 or len(out) >= MAX_FILES:
                return
        level = below


def data_files(root: str = ".") -> str:
    """The JSON list of readable files (module docstring), relative to `root` (the working folder)."""
    out: list[str] = []
    budget = [MAX_ENTRIES]
    _walk(root, ".", DEPTH, lambda name: not name.endswith(CODE), budget, out)
    here = os.path.abspath(root)
    for up in ("..", "../.."):
        try:
            beside = sorted(e.name for e in os.scandir(os.path.join(root, up)) if e.is_dir() and _data_folder(e.name)
                            and not (here + os.sep).startswith(os.path.abspath(e.path) + os.sep))
        except OSError:
            beside = []
        for name in beside:
            _walk(root, up + "/" + name, PARENT_DEPTH, lambda n: n.lower().endswith(DATA), budget, out)
    return json.dumps(out)


def _data_folder(name: str) -> bool:
    """Whether a folder beside the working folder (or the one above it) is one a project keeps its data
    in (`../data`, Kaggle's `../input`): the folder above may be a home or a temporary folder, whose
    others are not."""
    lower = name.lower()
    return lower in DATA_FOLDERS or lower.startswith("data")
