"""A notebook file as the session last read or wrote it: tells a change made outside (a `git pull`,
another editor) from the session's own saves, by time and size first, then by a hash of the content."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ghostbook.documents.ipynb_file import write_atomic


@dataclass(frozen=True)
class FileStamp:
    mtime_ns: int
    size: int
    inode: int
    sha256: str

    @classmethod
    def of(cls, stat: os.stat_result, data: bytes) -> FileStamp:
        return cls(stat.st_mtime_ns, stat.st_size, stat.st_ino, hashlib.sha256(data).hexdigest())

    def same_stat(self, stat: os.stat_result) -> bool:
        return (stat.st_mtime_ns, stat.st_size, stat.st_ino) == (self.mtime_ns, self.size, self.inode)


def stamp_file(path: Path, known: FileStamp | None = None) -> FileStamp | None:
    """`path`'s stamp now, None when there is no such file. The content is read and hashed only when
    its time, size or inode differ from `known`'s (then `known` itself is returned)."""
    try:
        if known is not None and known.same_stat(os.stat(path)):
            return known
        with path.open("rb") as handle:
            stat = os.fstat(handle.fileno())
            return FileStamp.of(stat, handle.read())
    except FileNotFoundError:
        return None


def write_stamped(path: Path, text: str) -> FileStamp:
    """Write `text` atomically (ipynb_file.write_atomic) and return the stamp of what was written."""
    stat = write_atomic(path, text)
    return FileStamp.of(stat, text.encode("utf-8"))
