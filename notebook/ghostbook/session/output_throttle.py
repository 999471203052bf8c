"""Rate-limit output broadcasts per cell so a tight print loop cannot flood the browser."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

MIN_INTERVAL = 0.05  # seconds between two throttled sends of one cell's outputs


class OutputThrottle:
    """Calls `send(cell_id)` at once when urgent or when the cell was quiet, else at most every
    MIN_INTERVAL, always with the latest outputs (the callback reads the current state).

    Only throttled changes (streams) space each other out: an urgent send (a run's start and end, a rich
    output) neither waits nor makes the next stream wait, so a cell's first print is never held back by
    the clearing of its outputs a moment before. A flood of prints still goes out at most every interval.
    """

    def __init__(self, send: Callable[[str], None], interval: float = MIN_INTERVAL) -> None:
        self._send = send
        self._interval = interval
        self._last: dict[str, float] = {}  # when a throttled change of the cell was last sent
        self._pending: dict[str, asyncio.TimerHandle] = {}

    def changed(self, cell_id: str, urgent: bool) -> None:
        if urgent:
            self._flush(cell_id)
            return
        now = time.monotonic()
        due = self._last.get(cell_id, -self._interval) + self._interval
        if now >= due:
            self._throttled_flush(cell_id)
        elif cell_id not in self._pending:
            loop = asyncio.get_running_loop()
            self._pending[cell_id] = loop.call_later(due - now, self._throttled_flush, cell_id)

    def _throttled_flush(self, cell_id: str) -> None:
        self._last[cell_id] = time.monotonic()
        self._flush(cell_id)

    def _flush(self, cell_id: str) -> None:
        handle = self._pending.pop(cell_id, None)
        if handle is not None:
            handle.cancel()
        self._send(cell_id)

    def cancel(self) -> None:
        for handle in self._pending.values():
            handle.cancel()
        self._pending.clear()
