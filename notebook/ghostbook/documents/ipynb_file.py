"""Read and write .ipynb files (nbformat v4); saves are atomic and crash-safe."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4.nbjson import JSONWriter

TMP_NAME_BYTES = 200  # of the notebook's name in its temporary file's: ".~" + 200 + ".XXXXXXXX.tmp" < 255


class NotebookFormatError(ValueError):
    """The file is not a notebook Ghostbook can open; the file itself is left untouched."""


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Parse `path` as an nbformat 4 notebook (nbformat 3 is upgraded in memory, as Jupyter does).

    Anything else, or a file its format's schema rejects, raises NotebookFormatError. Nothing here
    writes: a notebook is written only when it is edited.
    """
    name = path.name
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookFormatError(f"{name} is not UTF-8 text: {exc}") from None
    if not raw.strip():
        return nbformat.v4.new_notebook()
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise NotebookFormatError(f"{name} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise NotebookFormatError(f"{name} is not a valid notebook: it is not a JSON object")
    if "nbformat" not in data:
        raise NotebookFormatError(f"{name} is not a valid notebook: it has no nbformat version")
    major, minor = data["nbformat"], data.get("nbformat_minor", 0)
    if major not in (3, 4) or type(major) is not int or type(minor) is not int:
        raise NotebookFormatError(f"{name} has nbformat version {major!r}: only nbformat 4 (or 3) notebooks open")
    cells = data.get("cells")
    if major == 4 and minor >= 5 and isinstance(cells, list) and any(
            isinstance(cell, dict) and "id" not in cell for cell in cells):
        minor = 4  # cells without ids (some tools write them): checked as 4.4, given ids when read
    try:
        error = next(nbformat.validator.iter_validate(data, version=major, version_minor=minor), None)
    except Exception as exc:  # a schema checker failing on odd input is a broken notebook too
        error = exc
    if error is not None:
        raise NotebookFormatError(f"{name} is not a valid notebook (nbformat {major}): {_brief(error)}")
    notebook = nbformat.versions[major].to_notebook_json(data)
    return nbformat.convert(notebook, 4) if major != 4 else notebook


def _brief(error: Exception) -> str:
    """A schema error in one line: what is wrong and where (never the whole offending value)."""
    where = "/".join(str(part) for part in getattr(error, "absolute_path", ()))
    message = str(getattr(error, "message", None) or error).splitlines()[0]
    value = repr(getattr(error, "instance", None))
    if len(value) > 40 and message.startswith(value):
        message = "this value" + message[len(value):]
    if len(message) > 200:
        message = message[:200] + "…"
    return f"{message} (at {where})" if where else message


def notebook_to_json(notebook: dict[str, Any]) -> str:
    """Serialise like Jupyter does (indent 1, sorted keys, lines split, trailing newline).

    Unlike `nbformat.writes` this skips schema validation: the document comes from our own state
    and unknown metadata must be written back as it was read.
    """
    return JSONWriter().writes(nbformat.from_dict(notebook)) + "\n"


def write_atomic(path: Path, text: str) -> os.stat_result:
    """Write `text` to `path` so that a crash leaves either the old or the new file, never half.

    The data goes to a temporary file in the same folder, is fsync'ed, then renamed over `path`
    (os.replace is atomic on POSIX), and the folder entry is fsync'ed. On any error the temporary
    file is removed and the original is untouched. Returns the written file's stat, taken before the
    rename (so a change made by someone else right after it cannot pass for ours).
    """
    folder = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".~{_shortened(path.name)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
            written = os.fstat(handle.fileno())
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
    return written


def _shortened(name: str, limit: int = TMP_NAME_BYTES) -> str:
    """`name` cut to at most `limit` bytes (whole characters), so the temporary file's name fits the
    file system's limit of 255 bytes even when the notebook's own name uses all of it."""
    while len(os.fsencode(name)) > limit:
        name = name[:-1]
    return name


def write_notebook(path: Path, notebook: dict[str, Any]) -> None:
    write_atomic(path, notebook_to_json(notebook))
