"""Crash-safe saving of a session's document within a bounded time of each change, reporting its status as data.

The file is the file of record: a change made to it outside the session (a `git pull`, another editor)
is found before each save and every few seconds, and then nothing is saved over it until the user
chooses (JupyterLab's "File Changed": overwrite it with the session's version, or revert to the file's).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ghostbook.documents.ipynb_file import notebook_to_json
from ghostbook.documents.stamp import FileStamp, stamp_file, write_stamped

log = logging.getLogger(__name__)
AUTOSAVE_DELAY = 0.5  # seconds from the first unsaved edit to its save, however much editing follows
OUTPUT_DELAY = 3.0  # the same for changes made by the kernel alone (outputs, execution counts)
CHECK_INTERVAL = 2.0  # seconds between looks at the file for a change made outside the session
CONFLICT = "the file has changed on disk since it was opened or saved: choose Revert or Overwrite"
T = TypeVar("T")


class Autosaver:
    """Saves `snapshot()` to `path` at most `delay` seconds after the first unsaved change.

    A change only ever brings the next save forward, never pushes it back: steady typing, or a cell
    that prints all the time, cannot starve it. Kernel-made changes wait `output_delay` (they are
    cheap to lose and can be frequent); an edit made meanwhile is still saved within `delay`.
    Saves run one at a time, each writing the document as it is when its turn comes. A big
    notebook waits at least twice as long as its last save held the event loop.

    `stamp` is the file as the session read it (None: unknown, the first look takes the file as it is).
    When the file's content differs from the stamp of the last read or save, the status becomes
    "conflict" and nothing is written until `overwrite()` or `revert()`; changes go on being kept.
    """

    def __init__(self, path: Path, snapshot: Callable[[], dict[str, Any]],
                 on_status: Callable[[dict[str, Any]], None], delay: float = AUTOSAVE_DELAY,
                 output_delay: float = OUTPUT_DELAY, stamp: FileStamp | None = None,
                 check_interval: float = CHECK_INTERVAL) -> None:
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
        self.stamp = stamp
        self.conflict = False  # the file changed outside the session: saving waits for the user's choice
        self.error: str | None = None  # why the last write failed
        self._check_interval = check_interval
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
            if not self.conflict:
                self._set_status("dirty", None)
        if not self.conflict:  # kept, not saved, until the user chooses
            self._schedule(self._output_delay if by_kernel else self._delay)

    def _schedule(self, delay: float) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + max(delay, 2 * self._cost)
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

    # ---- changes made outside the session ---------------------------------------------------------

    async def watch(self) -> None:
        """Look at the file every `check_interval` seconds, so the tabs hear of a change before any save."""
        while not self._disabled:
            await asyncio.sleep(self._check_interval)
            try:
                await self.check()
            except OSError as exc:  # unreadable for now (permissions, a vanished folder): the next look may do
                log.info("cannot check %s for changes: %s", self.path, exc)

    async def check(self) -> bool:
        """Has the file changed outside the session (now or before)? Entering the conflict tells the tabs."""
        async with self._lock:
            if not (self._disabled or self.conflict) and await self._changed_on_disk():
                self._found_conflict()
            return self.conflict

    async def overwrite(self) -> bool:
        """Save the session's version over the file, changed on disk or not; True on success."""
        async with self._lock:
            return await self._write(overwrite=True)

    async def revert(self, read: Callable[[Path], T]) -> T:
        """Read the file with `read` (in a thread) as the document's new version: nothing is unsaved then,
        and later looks compare with this file. No save runs meanwhile; if `read` raises, nothing changes."""
        async with self._lock:
            stamp = await asyncio.to_thread(stamp_file, self.path)  # before reading: a change made meanwhile shows
            result = await asyncio.to_thread(read, self.path)
            self.stamp, self.conflict, self._dirty = stamp, False, False
            self._cancel_timer()
            self._set_status("saved", None)
            return result

    async def _changed_on_disk(self) -> bool:
        """The file's content differs from the session's last read or save (a missing file has not changed:
        a delete through the file browser stops saving on its own; after any other, the next save writes it)."""
        current = await asyncio.to_thread(stamp_file, self.path, self.stamp)
        if current is None:
            return False
        if self.stamp is None or current.sha256 == self.stamp.sha256:
            self.stamp = current  # first look, or only touched (or copied back unchanged): not a change
            return False
        return True

    def _found_conflict(self) -> None:
        log.warning("%s changed on disk: not saving over it until a tab chooses", self.path)
        self.conflict = True
        self._cancel_timer()
        self._set_status("conflict", CONFLICT)

    # ---- writing -----------------------------------------------------------------------------------

    async def _write(self, overwrite: bool = False) -> bool:
        if self._disabled or (self.conflict and not overwrite):
            return False
        try:
            if not overwrite and await self._changed_on_disk():
                self._found_conflict()
                return False
        except OSError as exc:
            return self._failed(exc)
        self._dirty = False
        self._cancel_timer()  # this write holds every change so far; one made while it runs sets its own timer
        self._set_status("saving", None)
        try:
            started = time.perf_counter()
            text = notebook_to_json(self._snapshot())
            self._cost = time.perf_counter() - started
            self.stamp = await asyncio.to_thread(write_stamped, self.path, text)
        except Exception as exc:  # a full disk, a vanished folder, or a bug: report it, keep the document
            return self._failed(exc)
        self.error = None
        if self.conflict:  # overwritten: saving goes on as before, changes made meanwhile included
            self.conflict = False
            if self._dirty:
                self._set_status("dirty", None)
                self._schedule(self._delay)
        if not self._dirty:
            self._set_status("saved", None)
        return True

    def _failed(self, exc: Exception) -> bool:
        log.warning("saving %s failed: %s", self.path, exc)
        self._dirty = True
        message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        self.error = message or type(exc).__name__
        if self.conflict:  # an overwrite that failed: the choice is still to make
            self._set_status("conflict", CONFLICT)
        else:
            self._set_status("error", self.error)
        return False

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._due = None, math.inf

    def _set_status(self, status: str, message: str | None) -> None:
        self.status = {"status": status, "message": message}
        self._on_status(self.status)
