"""Crash-safe saving of a session's document within a bounded time of each change, reporting its status as data."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ghostbook.documents.ipynb_file import notebook_to_json, write_atomic

log = logging.getLogger(__name__)
AUTOSAVE_DELAY = 0.5  # seconds from the first unsaved edit to its save, however much editing follows
OUTPUT_DELAY = 3.0  # the same for changes made by the kernel alone (outputs, execution counts)


class Autosaver:
    """Saves `snapshot()` to `path` at most `delay` seconds after the first unsaved change.

    A change only ever brings the next save forward, never pushes it back: steady typing, or a cell
    that prints all the time, cannot starve it. Kernel-made changes wait `output_delay` (they are
    cheap to lose and can be frequent); an edit made meanwhile is still saved within `delay`.
    Saves run one at a time, each writing the document as it is when its turn comes. A big
    notebook waits at least twice as long as its last save held the event loop.
    """

    def __init__(self, path: Path, snapshot: Callable[[], dict[str, Any]],
                 on_status: Callable[[dict[str, Any]], None], delay: float = AUTOSAVE_DELAY,
                 output_delay: float = OUTPUT_DELAY) -> None:
        self.path = path
        self._snapshot = snapshot
        self._on_status = on_status
        self._delay = delay
        self._output_delay = output_delay
        self._timer: asyncio.TimerHandle | None = None
        self._due = math.inf  # loop time of the scheduled save
        self._cost = 0.0  # seconds the last save held the event loop (serialising)
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._dirty = False
        self._disabled = False
        self.status: dict[str, Any] = {"status": "saved", "message": None}

    def disable(self) -> None:
        """Never save again (the file was deleted)."""
        self._disabled = True
        self._cancel_timer()

    def mark_dirty(self, by_kernel: bool = False) -> None:
        """The document changed; `by_kernel`: only outputs or execution state did."""
        if self._disabled:
            return
        if not self._dirty:
            self._dirty = True
            self._set_status("dirty", None)
        loop = asyncio.get_running_loop()
        due = loop.time() + max(self._output_delay if by_kernel else self._delay, 2 * self._cost)
        if due < self._due:
            self._cancel_timer()
            self._due = due
            self._timer = loop.call_at(due, self._start_save)

    def _start_save(self) -> None:
        self._timer, self._due = None, math.inf
        task = asyncio.create_task(self._save_if_dirty())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _save_if_dirty(self) -> None:
        async with self._lock:
            if self._dirty:
                await self._write()

    async def save(self) -> bool:
        """Write the document now; True on success. The in-memory document is never lost."""
        async with self._lock:
            return await self._write()

    async def flush(self) -> None:
        """Save pending changes at once (used on shutdown)."""
        self._cancel_timer()
        await self._save_if_dirty()

    async def _write(self) -> bool:
        if self._disabled:
            return False
        self._dirty = False
        self._cancel_timer()  # this write holds every change so far; one made while it runs sets its own timer
        self._set_status("saving", None)
        try:
            started = time.perf_counter()
            text = notebook_to_json(self._snapshot())
            self._cost = time.perf_counter() - started
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

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._due = None, math.inf

    def _set_status(self, status: str, message: str | None) -> None:
        self.status = {"status": status, "message": message}
        self._on_status(self.status)
