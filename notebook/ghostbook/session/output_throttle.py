"""Rate-limit output broadcasts per cell so a tight print loop cannot flood the browser."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

MIN_INTERVAL = 0.05  # seconds between two sends of one cell's outputs


class OutputThrottle:
    """Calls `send(cell_id)` at once when urgent or when the cell was quiet, else at most every
    MIN_INTERVAL, always with the latest outputs (the callback reads the current state)."""

    def __init__(self, send: Callable[[str], None], interval: float = MIN_INTERVAL) -> None:
        self._send = send
        self._interval = interval
        self._last: dict[str, float] = {}
        self._pending: dict[str, asyncio.TimerHandle] = {}

    def changed(self, cell_id: str, urgent: bool) -> None:
        now = time.monotonic()
        due = self._last.get(cell_id, 0.0) + self._interval
        if urgent or now >= due:
            self._flush(cell_id)
        elif cell_id not in self._pending:
            loop = asyncio.get_running_loop()
            self._pending[cell_id] = loop.call_later(due - now, self._flush, cell_id)

    def _flush(self, cell_id: str) -> None:
        handle = self._pending.pop(cell_id, None)
        if handle is not None:
            handle.cancel()
        self._last[cell_id] = time.monotonic()
        self._send(cell_id)

    def cancel(self) -> None:
        for handle in self._pending.values():
            handle.cancel()
        self._pending.clear()
