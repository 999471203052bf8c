"""The files a reading call may name (`pd.read_csv(` -> `'data/sales.csv')`), as the kernel sees them.

The kernel's working folder is where the notebook's code reads from: `kernel_files` asks the kernel for
the files there (`kernels/ghostbook_kernel/files.py`, run silently in a private module), and
`path_rests` makes the rests of the cursor's line that name them: files whose kind the call reads first
(`read_csv`: `.csv`, `.tsv`), those the notebook named last first (a notebook reads its data again,
section after section), then the nearest, in the notebook's quotes, the call closed. The decoding keeps
the model's own strings there to the same files (`decoding.paths`). Pure text but for the kernel's
question.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from collections.abc import Sequence

from ghostbook.completion.calls import closers
from ghostbook.completion.silent_runner import SilentRunner
from ghostbook.decoding.paths import PathAt, Paths, bound_names, path_at

log = logging.getLogger(__name__)

MODULE = "__ghostbook_files__"
MAX_RESTS = 3
_STRING = re.compile(r"""\s*[rR]?['"]""")
# the kinds of file each reader reads, where it reads only some
KINDS = {
    "read_csv": (".csv", ".tsv", ".txt", ".dat", ".data", ".csv.gz", ".csv.zip", ".zip", ".gz"),
    "read_table": (".tsv", ".txt", ".csv", ".dat", ".data", ".tab"),
    "read_fwf": (".txt", ".dat", ".fwf"),
    "read_excel": (".xlsx", ".xls", ".xlsm", ".ods"),
    "ExcelFile": (".xlsx", ".xls", ".xlsm", ".ods"),
    "load_workbook": (".xlsx", ".xlsm"),
    "read_json": (".json", ".jsonl", ".json.gz"),
    "read_parquet": (".parquet", ".pq"),
    "read_feather": (".feather",),
    "read_pickle": (".pkl", ".pickle", ".pkl.gz"),
    "read_hdf": (".h5", ".hdf5", ".hdf"),
    "read_stata": (".dta",),
    "read_sas": (".sas7bdat", ".xpt"),
    "read_spss": (".sav",),
    "read_xml": (".xml",),
    "read_html": (".html", ".htm"),
    "loadtxt": (".txt", ".csv", ".dat", ".tsv", ".data"),
    "genfromtxt": (".txt", ".csv", ".dat", ".tsv", ".data"),
    "load": (".npy", ".npz", ".pkl", ".pickle", ".joblib", ".json"),
    "fromfile": (".bin", ".dat", ".raw"),
    "imread": (".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp"),
    "Image.open": (".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp"),
    "loadmat": (".mat",),
    "open_dataset": (".nc", ".nc4", ".grib", ".zarr"),
    "read_file": (".shp", ".geojson", ".gpkg", ".json"),
}


def install_code(source: str) -> str:
    """Code that executes `source` (files.py) inside a private module of the kernel, defining no user names."""
    return (f"exec(compile({source!r}, '<ghostbook_files>', 'exec'), __import__('sys').modules.setdefault("
            f"{MODULE!r}, __import__('types').ModuleType({MODULE!r})).__dict__)")


EXPRESSION = f"__import__('sys').modules[{MODULE!r}].data_files()"


async def kernel_files(runner: SilentRunner, source: str, timeout: float) -> tuple[str, ...] | None:
    """The files in the kernel's working folder (`source`: files.py's text); None where the kernel cannot
    say (busy, dead, not Python)."""
    try:
        reply = await runner.run_silent(install_code(source), timeout, {"files": EXPRESSION})
        result = reply.get("user_expressions", {}).get("files", {})
        if result.get("status") != "ok":
            raise ValueError(f"{result.get('ename')}: {result.get('evalue')}")
        found = json.loads(ast.literal_eval(result["data"]["text/plain"]))
    except Exception as exc:
        log.info("files unavailable: %s", exc)
        return None
    return tuple(str(name) for name in found if isinstance(name, str)) if isinstance(found, list) else None


def path_rests(head: str, files: Sequence[str], before: str, rest: str = "") -> list[str]:
    """Where `head` (the cursor's line up to it) is at a reading call's path: the rests of the line that
    name one of `files` (nearest first), best first (module docstring); `before` is the notebook's text
    above, `rest` what the line has after the cursor (the editor's closing bracket: a rest ending in it
    drops it)."""
    at = path_at(head)
    if at is None or not files:
        return []
    ranked = _ranked(at, files, before)
    quote = at.quote or _quote(before)
    out = []
    for name in ranked:
        string = (quote if not at.quote else "") + name[len(at.typed):] + quote
        extra = ", sep='\\t'" if at.reader == "read_csv" and name.lower().endswith(".tsv") else ""
        text = string + extra + closers(head + string)
        tail = rest.strip()
        out.append(text[: len(text) - len(tail)] if tail and text.endswith(tail) else text)
    return out


def with_paths(found: Sequence[str], head: str, files: Sequence[str], before: str, rest: str = "") -> list[str]:
    """Where `head` ends at a reading call's path: the notebook's candidate rests (`found`) that the path
    rule keeps (`decoding.paths`); where none of them names one of `files` (with the arguments the
    notebook passes its reads: `'data/movie.csv', index_col='title')`), then `path_rests`. (More
    candidates would lower the confidence of all: the paths benchmark showed half as many automatic
    suggestions with the files' rests added after the notebook's, docs/benchmarks.md.) Elsewhere `found`."""
    at = path_at(head)
    if at is None:
        return list(found)
    rule = Paths(at, files, bound_names(before))
    kept = [line for line in found if rule.fits(line.encode())]
    names_one = any(at.quote or _STRING.match(line) for line in kept)  # (a kept string is a file's, or a URL)
    return kept if names_one else kept + path_rests(head, files, before, rest)


def only_file(head: str, files: Sequence[str] | None) -> str | None:
    """The file where `head` is at the path of a call that reads some kinds of file and one file only is
    of the likeliest kind there is for it (`read_csv`: a `.csv`, else a `.tsv`): in the working folder,
    else beside it. No guess: the folder says it, so the suggestion names it (`choices`) and an
    automatic one shows whatever the confidence model says."""
    at = path_at(head)
    if files is None or at is None or (kinds := KINDS.get(at.reader)) is None:
        return None
    readable = [name for name in files if _kind(name, kinds) < len(kinds)]
    best = min((_kind(name, kinds) for name in readable), default=len(kinds))
    fitting = [name for name in readable if _kind(name, kinds) == best]
    fitting = [name for name in fitting if not name.startswith("../")] or fitting
    if len(fitting) != 1 or not fitting[0].startswith(at.typed) or len(fitting[0]) == len(at.typed):
        return None
    return fitting[0]


def choices(head: str, files: Sequence[str] | None) -> tuple[str, ...] | None:
    """The files a path at the end of `head` may name: the one `only_file`, where there is one, else all."""
    only = only_file(head, files)
    return (only,) if only is not None else None if files is None else tuple(files)


def _ranked(at: PathAt, files: Sequence[str], before: str) -> list[str]:
    """`files` that may complete the path at `at`, best first (module docstring); none where no file is
    of a kind the call reads (the file is elsewhere, or made later)."""
    kinds = KINDS.get(at.reader)
    fitting = [name for name in files if name.startswith(at.typed) and len(name) > len(at.typed)
               and (at.quote or "\\" not in name)]
    ranked = sorted(fitting, key=lambda name: (_kind(name, kinds), -before.rfind(name)))
    if kinds is not None and ranked and _kind(ranked[0], kinds) == len(kinds):
        return []
    return ranked[:MAX_RESTS]


def _kind(name: str, kinds: Sequence[str] | None) -> int:
    """Where `name`'s kind comes in `kinds` (the reader's, likeliest first): len(kinds) for none; 0
    where any kind is read."""
    if kinds is None:
        return 0
    lower = name.lower()
    return min((i for i, kind in enumerate(kinds) if lower.endswith(kind)), default=len(kinds))


def _quote(before: str) -> str:
    """The quote the notebook's strings use most in its last lines (`'` where none)."""
    tail = before[-3000:]
    return '"' if tail.count('"') > tail.count("'") else "'"
