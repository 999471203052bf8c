"""One session per open notebook, created on first open and kept while the server runs."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ghostbook.documents.contents import Contents, ContentsError
from ghostbook.documents.ipynb_file import read_notebook
from ghostbook.documents.stamp import stamp_file
from ghostbook.session.runtime import KernelFactory, NotebookSession
from ghostbook.session.state import NotebookData


class SessionManager:
    """Sessions keyed by the notebook's path relative to the root.

    A session outlives its tabs: output produced while no tab is open is kept, and a tab that
    comes back gets it in its snapshot.
    """

    def __init__(self, contents: Contents, kernel_factory: KernelFactory, default_kernel: str = "python3") -> None:
        self.contents = contents
        self._kernel_factory = kernel_factory
        self._default_kernel = default_kernel
        self.sessions: dict[str, NotebookSession] = {}
        self._moves: list[tuple[str, str]] = []  # (old, new) renames, oldest first, for tabs that come back
        self._lock = asyncio.Lock()

    async def open(self, path: str) -> NotebookSession:
        """The session of notebook `path`, opening it if needed.

        Raises ContentsError (bad path, not a notebook) or NotebookFormatError (unparseable file;
        the file is left untouched).
        """
        async with self._lock:
            file_path = self.contents.resolve(path)
            key = self.contents.relative(file_path)
            session = self.sessions.get(key)
            if session is None and not file_path.exists():
                session = self.sessions.get(self._moved(key))  # a tab that reconnects after a rename
            if session is not None and not session.closed:
                return session
            if file_path.suffix != ".ipynb" or not file_path.is_file():
                raise ContentsError(f"no such notebook: {path}")
            stamp = await asyncio.to_thread(stamp_file, file_path)  # before reading: a change made meanwhile shows
            notebook = await asyncio.to_thread(read_notebook, file_path)
            session = NotebookSession(NotebookData.from_nbformat(key, notebook), file_path,
                                      self._kernel_factory, self._default_kernel, stamp=stamp)
            self.sessions[key] = session
            session.start()
            return session

    def renamed(self, old: str, new: str) -> None:
        """Follow a rename (of a notebook or a folder): open sessions save to the new place and tell
        their tabs the new path."""
        for key in list(self.sessions):
            moved = _follow(key, old, new)
            if moved != key:
                session = self.sessions.pop(key)
                session.moved(moved, self.contents.resolve(moved))
                self.sessions[moved] = session
        self._moves = [*self._moves[-(MAX_MOVES - 1):], (old, new)]

    def _moved(self, key: str) -> str:
        """Where the notebook once at `key` is now, after the renames since."""
        for old, new in self._moves:
            key = _follow(key, old, new)
        return key

    async def deleted(self, path: str) -> None:
        """Close the sessions of a deleted notebook or folder without saving them again."""
        for key in list(self.sessions):
            if key == path or key.startswith(path.rstrip("/") + "/"):
                session = self.sessions.pop(key)
                session.discard()
                await session.close()

    def full_output(self, full_id: str) -> NotebookSession | None:
        """The open session that keeps the whole text of stream `full_id` (session/full_outputs.py)."""
        return next((s for s in self.sessions.values() if full_id in s.full_outputs), None)

    async def close_all(self) -> None:
        sessions, self.sessions = list(self.sessions.values()), {}
        await asyncio.gather(*(session.close() for session in sessions), return_exceptions=True)

    def default_path(self) -> Path:
        return self.contents.root


MAX_MOVES = 100


def _follow(key: str, old: str, new: str) -> str:
    """`key` after renaming `old` to `new` (`old` is the notebook itself or a folder above it)."""
    if key == old:
        return new
    prefix = old.rstrip("/") + "/"
    return new.rstrip("/") + "/" + key[len(prefix):] if key.startswith(prefix) else key
