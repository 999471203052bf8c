"""The whole text of long stream outputs, in files beside the session instead of in memory.

A stream past its cap shows its head and tail (session/outputs.py); what it drops goes here, one file
per stream in a temporary folder of the session's own, so "show all" can page through the whole text.
Bounded: at most `cell_bytes` per cell and `total_bytes` per session (what is over is counted, not
kept). A stream's file goes when the stream does (its cell cleared or run again), the folder when the
session closes.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ghostbook.session.outputs import StreamText
from ghostbook.session.state import Cell

PAGE_LINES = 2_000
CELL_BYTES = 32 * 2**20
TOTAL_BYTES = 256 * 2**20
_CHUNK = 2**20


@dataclass
class _File:
    path: Path
    cell_id: str
    stream: StreamText
    size: int = 0
    lost_lines: int = 0  # dropped lines over the caps: not kept anywhere
    lost_chars: int = 0


@dataclass(frozen=True)
class Page:
    """Lines `first`+1 .. `first`+len(lines) of the whole text (1-based when shown), page `page` of `pages`."""

    name: str  # stdout | stderr
    lines: list[str]
    page: int
    pages: int
    first: int
    total_lines: int


class FullOutputs:
    """The files of one session's long streams, named by `StreamText.full_id`."""

    def __init__(self, cell_bytes: int = CELL_BYTES, total_bytes: int = TOTAL_BYTES) -> None:
        self.cell_bytes = cell_bytes
        self.total_bytes = total_bytes
        self._dir: Path | None = None
        self._files: dict[str, _File] = {}
        self.total = 0

    def collect(self, cell: Cell) -> None:
        """After `cell`'s outputs changed: store what its streams dropped; forget streams it no longer has."""
        present: set[str] = set()
        for item in cell.outputs.items:
            if isinstance(item, StreamText) and item.full_id is not None:
                present.add(item.full_id)
                self._store(cell.id, item)
        for full_id, file in list(self._files.items()):
            if file.cell_id == cell.id and full_id not in present:
                self._remove(full_id)

    def __contains__(self, full_id: str) -> bool:
        return full_id in self._files

    def snapshot(self, full_id: str) -> tuple[Path, int, str, str] | None:
        """(file, its size, the text after it, stream name) of a stream, as it is now; None if unknown."""
        file = self._files.get(full_id)
        if file is None:
            return None
        self._store(file.cell_id, file.stream)  # what it dropped since the last output
        rest = file.stream.rest()
        if file.lost_chars:
            gap = f"[… {file.lost_lines:,} lines ({file.lost_chars:,} characters) not kept: over the limit …]\n"
            rest = ("" if file.size == 0 or _ends_with_newline(file.path, file.size) else "\n") + gap + rest
        return file.path, file.size, rest, file.stream.name

    def close(self) -> None:
        """Delete every file (the session is closing)."""
        self._files.clear()
        self.total = 0
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _store(self, cell_id: str, stream: StreamText) -> None:
        text = stream.take_dropped()
        file = self._files.get(stream.full_id or "")
        if file is None:
            if self._dir is None:
                self._dir = Path(tempfile.mkdtemp(prefix="ghostbook-outputs-"))
            file = self._files[stream.full_id or ""] = _File(self._dir / f"{stream.full_id}.txt", cell_id, stream)
            file.path.touch()
        if not text:
            return
        used = sum(f.size for f in self._files.values() if f.cell_id == cell_id)
        room = max(0, min(self.cell_bytes - used, self.total_bytes - self.total))
        data = text.encode()
        if file.lost_chars or len(data) > room:  # once over, nothing more is written: the text stays whole
            kept = data[:room].decode(errors="ignore") if not file.lost_chars else ""
            lost = text[len(kept):]
            file.lost_chars += len(lost)
            file.lost_lines += lost.count("\n")
            data = kept.encode()
        if data:
            with file.path.open("ab") as handle:
                handle.write(data)
            file.size += len(data)
            self.total += len(data)

    def _remove(self, full_id: str) -> None:
        file = self._files.pop(full_id)
        self.total -= file.size
        file.path.unlink(missing_ok=True)


def _ends_with_newline(path: Path, size: int) -> bool:
    with path.open("rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


def read_page(path: Path, size: int, rest: str, name: str, page: int, page_lines: int = PAGE_LINES) -> Page:
    """Page `page` (0-based, clamped) of the text `path`[:size] + `rest`, found by counting newlines in
    chunks (a file of tens of MB takes milliseconds; run it in a thread)."""
    file_newlines, ends_newline = _count(path, size)
    text_ends_newline = rest.endswith("\n") if rest else ends_newline
    newlines = file_newlines + rest.count("\n")
    empty = size == 0 and not rest
    total = 0 if empty else newlines + (0 if text_ends_newline else 1)
    pages = max(1, -(-total // page_lines))
    page = max(0, min(page, pages - 1))
    first = page * page_lines
    if size and first <= file_newlines:
        start = _offset_after(path, size, first)
        end = _offset_after(path, size, first + page_lines) if first + page_lines <= file_newlines else size
        with path.open("rb") as handle:
            handle.seek(start)
            text = handle.read(end - start).decode(errors="replace")
        taken = text.count("\n")
        if first + page_lines > file_newlines:
            text += _take_lines(rest, 0, page_lines - taken)
    else:
        text = _take_lines(rest, first - file_newlines, page_lines)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return Page(name, lines[:page_lines], page, pages, first, total)


def _count(path: Path, size: int) -> tuple[int, bool]:
    """Newlines in path[:size], and whether it ends with one."""
    count, last = 0, b""
    with path.open("rb") as handle:
        left = size
        while left > 0:
            chunk = handle.read(min(_CHUNK, left))
            if not chunk:
                break
            count += chunk.count(b"\n")
            last = chunk[-1:]
            left -= len(chunk)
    return count, last == b"\n"


def _offset_after(path: Path, size: int, newlines: int) -> int:
    """The byte offset just after the `newlines`-th newline of path[:size] (0 for none)."""
    if newlines == 0:
        return 0
    seen, pos = 0, 0
    with path.open("rb") as handle:
        while pos < size:
            chunk = handle.read(min(_CHUNK, size - pos))
            if not chunk:
                break
            found = chunk.count(b"\n")
            if seen + found >= newlines:
                at = -1
                for _ in range(newlines - seen):
                    at = chunk.index(b"\n", at + 1)
                return pos + at + 1
            seen += found
            pos += len(chunk)
    return size


def _take_lines(text: str, skip: int, count: int) -> str:
    """`count` lines of `text` after its first `skip` lines (newlines kept)."""
    start = 0
    for _ in range(skip):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = start
    for _ in range(count):
        at = text.find("\n", end)
        if at == -1:
            return text[start:]
        end = at + 1
    return text[start:end]
