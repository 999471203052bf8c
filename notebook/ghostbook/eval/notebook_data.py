"""Notebooks for the notebook benchmark and the training corpus: read, split, store.

Sources are folders (an unpacked sdist, or a repository snapshot) holding `.ipynb` files and
notebook-style scripts (gallery scripts with `# %%` cells, example scripts). Each becomes a
`Notebook`: its code cells, in order. Notebooks are split by a hash of their id into
train / validation / test, deduplicated by content, and stored as gzip jsonl (one notebook a line).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

SPLITS = ("train", "validation", "test")
# a cell marker of percent-format / sphinx-gallery scripts: `# %%`, `#%%`, `# In[3]:`, a line of 20+ '#'
_CELL_MARK = re.compile(r"^(#\s?%%.*|# In\[\d*\]:.*|#{20,}\s*)$")
_EXAMPLE_DIR = re.compile(r"(^|/)(examples?|galler(y|ies)|tutorials?|notebooks|doc|docs)/")
_SKIP_DIR = re.compile(r"(^|/)(_build|build|tools|sphinxext|_templates|tests?|site-packages|\.[^/]+)/")
_SKIP_FILE = {"conf.py", "setup.py", "__init__.py", "conftest.py"}
MAX_CELL_CHARS = 4000
MAX_CELLS = 120


@dataclass(frozen=True)
class Notebook:
    """A notebook's code cells. `id` is `source/relative/path`; `licence` is its source's."""

    id: str
    source: str
    licence: str
    cells: list[str]

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


# ---- reading ------------------------------------------------------------------------------------


def cells_from_ipynb(text: str) -> list[str]:
    """The non-empty code cells of an .ipynb (nbformat 4 or 3 JSON); [] if it is not one."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    raw = data.get("cells")
    if raw is None:  # nbformat 3: worksheets
        raw = [c for w in data.get("worksheets", []) if isinstance(w, dict) for c in w.get("cells", [])]
    cells = []
    for cell in raw if isinstance(raw, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source", cell.get("input", ""))
        src = "".join(src) if isinstance(src, list) else str(src)
        src = src.strip("\n")
        if src.strip():
            cells.append(src)
    return cells


def cells_from_script(text: str) -> list[str]:
    """A notebook-style script as cells: split at `# %%`-style markers, or else at blank lines before
    top-level statements (chunks of at least three lines); the module docstring is left out."""
    body = _drop_docstring(text)
    lines = body.split("\n")
    chunks: list[list[str]] = [[]]
    if any(_CELL_MARK.match(line) for line in lines):
        for line in lines:
            if _CELL_MARK.match(line):
                chunks.append([])
            else:
                chunks[-1].append(line)
    else:
        for line in lines:
            current = chunks[-1]
            top_level = bool(line) and not line[0].isspace() and not line.startswith((")", "]", "}"))
            if top_level and current and not current[-1].strip() and sum(bool(x.strip()) for x in current) >= 3:
                chunks.append([])
            chunks[-1].append(line)
    cells = ["\n".join(c).strip("\n") for c in chunks]
    return [c for c in cells if _has_code(c)]


def _has_code(cell: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") for line in cell.split("\n"))


def _drop_docstring(text: str) -> str:
    stripped = text.lstrip()
    for quote in ('"""', "'''", 'r"""'):
        if stripped.startswith(quote):
            end = stripped.find(quote[-3:], len(quote))
            if end > 0:
                return stripped[end + 3 :]
    return text


def is_notebook_script(rel_path: str, text: str) -> bool:
    """A .py file that reads like a notebook: a gallery/example/tutorial script, or any with `# %%`."""
    name = rel_path.rsplit("/", 1)[-1]
    if name in _SKIP_FILE or _SKIP_DIR.search(rel_path):
        return False
    return bool(_EXAMPLE_DIR.search(rel_path)) or "\n# %%" in text


def read_notebooks(root: Path, source: str, licence: str) -> Iterator[Notebook]:
    """Every notebook under `root` (sorted by path) with at least two code cells."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or path.suffix not in (".ipynb", ".py") or _SKIP_DIR.search(rel):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if path.suffix == ".ipynb":
            if ".ipynb_checkpoints" in rel:
                continue
            cells = cells_from_ipynb(text)
        elif is_notebook_script(rel, text):
            cells = cells_from_script(text)
        else:
            continue
        cells = [c for c in cells if len(c) <= MAX_CELL_CHARS][:MAX_CELLS]
        if len(cells) >= 2:
            yield Notebook(f"{source}/{rel}", source, licence, cells)


# ---- splitting and storing ------------------------------------------------------------------------


def split_of(notebook_id: str, validation: float = 0.15, test: float = 0.15) -> str:
    """Deterministic split of a notebook by the hash of its id without the extension (a gallery's
    `plot_x.py` and the `plot_x.ipynb` made from it fall on the same side)."""
    family = notebook_id.rsplit(".", 1)[0] if "/" not in notebook_id.rsplit(".", 1)[-1] else notebook_id
    h = int(hashlib.sha1(family.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if h < test else "validation" if h < test + validation else "train"


def content_key(nb: Notebook) -> str:
    return hashlib.sha256("\n\x00".join(c.strip() for c in nb.cells).encode()).hexdigest()


def dedupe(notebooks: Iterable[Notebook]) -> list[Notebook]:
    """Drop notebooks whose code cells repeat an earlier one's (first kept)."""
    seen: set[str] = set()
    out = []
    for nb in notebooks:
        key = content_key(nb)
        if key not in seen:
            seen.add(key)
            out.append(nb)
    return out


def write_notebooks(path: Path, notebooks: Iterable[Notebook]) -> int:
    """Write gzip jsonl (deterministic bytes: no timestamp in the gzip header); returns the count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [nb.to_json() + "\n" for nb in notebooks]
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write("".join(lines).encode("utf-8"))
    return len(lines)


def load_notebooks(path: Path) -> list[Notebook]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [Notebook(**json.loads(line)) for line in f if line.strip()]


def packaged_split(split: str) -> Path:
    """The stored notebooks of a split shipped with Ghostbook (validation and test)."""
    return Path(str(resources.files("ghostbook.eval") / "data" / f"notebooks-{split}.jsonl.gz"))


def notebook_text(nb: Notebook) -> str:
    """A notebook as one Python text, cells joined as the editor's prompt joins them."""
    from ghostbook.completion.context import CELL_SEPARATOR, CellText, as_code

    return CELL_SEPARATOR.join(t for t in (as_code(CellText("code", c)) for c in nb.cells) if t) + "\n"

