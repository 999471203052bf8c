"""Read and write .ipynb files (nbformat v4); saves are atomic and crash-safe."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4.nbjson import JSONWriter


class NotebookFormatError(ValueError):
    """The file is not a notebook Ghostbook can open; the file itself is left untouched."""


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Parse `path` as a v4 notebook (older versions are upgraded in memory)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookFormatError(f"{path.name} is not UTF-8 text: {exc}") from None
    if not raw.strip():
        return nbformat.v4.new_notebook()
    try:
        notebook = nbformat.reads(raw, as_version=4)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError) as exc:
        raise NotebookFormatError(f"{path.name} is not valid JSON: {exc}") from None
    except Exception as exc:  # nbformat raises a zoo of types for structurally broken files
        raise NotebookFormatError(f"{path.name} is not a valid notebook: {exc}") from None
    if not isinstance(notebook.get("cells"), list):
        raise NotebookFormatError(f"{path.name} is not a valid notebook: it has no list of cells")
    for index, cell in enumerate(notebook.cells):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise NotebookFormatError(f"{path.name}: cell {index} is malformed")
    return notebook


def notebook_to_json(notebook: dict[str, Any]) -> str:
    """Serialise like Jupyter does (indent 1, sorted keys, lines split, trailing newline).

    Unlike `nbformat.writes` this skips schema validation: the document comes from our own state
    and unknown metadata must be written back as it was read.
    """
    return JSONWriter().writes(nbformat.from_dict(notebook)) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that a crash leaves either the old or the new file, never half.

    The data goes to a temporary file in the same folder, is fsync'ed, then renamed over `path`
    (os.replace is atomic on POSIX), and the folder entry is fsync'ed. On any error the temporary
    file is removed and the original is untouched.
    """
    folder = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".~{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp_name, path.stat().st_mode & 0o777)
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def write_notebook(path: Path, notebook: dict[str, Any]) -> None:
    write_atomic(path, notebook_to_json(notebook))
