"""Debounced, crash-safe saving of a session's document, reporting its status as data."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ghostbook.documents.ipynb_file import notebook_to_json, write_atomic

log = logging.getLogger(__name__)
AUTOSAVE_DELAY = 0.6  # seconds after the last change


class Autosaver:
    """Saves `snapshot()` to `path` shortly after the last change; reports status via `on_status`."""

    def __init__(self, path: Path, snapshot: Callable[[], dict[str, Any]],
                 on_status: Callable[[dict[str, Any]], None], delay: float = AUTOSAVE_DELAY) -> None:
        self.path = path
        self._snapshot = snapshot
        self._on_status = on_status
        self._delay = delay
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[bool] | None = None
        self._dirty = False
        self._disabled = False
        self.status: dict[str, Any] = {"status": "saved", "message": None}

    def disable(self) -> None:
        """Never save again (the file was deleted)."""
        self._disabled = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def mark_dirty(self) -> None:
        if self._disabled:
            return
        if not self._dirty:
            self._dirty = True
            self._set_status("dirty", None)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self._delay, self._start_save)

    def _start_save(self) -> None:
        self._timer = None
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self.save())
        else:  # a save is running: try again once it is done
            self._timer = asyncio.get_running_loop().call_later(self._delay, self._start_save)

    async def save(self) -> bool:
        """Write the document now; True on success. The in-memory document is never lost."""
        if self._disabled:
            return False
        self._dirty = False
        self._set_status("saving", None)
        try:
            text = notebook_to_json(self._snapshot())
            await asyncio.to_thread(write_atomic, self.path, text)
        except Exception as exc:  # a full disk, a vanished folder, or a bug: report it, keep the document
            log.warning("saving %s failed: %s", self.path, exc)
            self._dirty = True
            message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self._set_status("error", message or type(exc).__name__)
            return False
        if not self._dirty:
            self._set_status("saved", None)
        return True

    async def flush(self) -> None:
        """Save pending changes at once (used on shutdown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._task is not None and not self._task.done():
            await self._task
        if self._dirty:
            await self.save()

    def _set_status(self, status: str, message: str | None) -> None:
        self.status = {"status": status, "message": message}
        self._on_status(self.status)
