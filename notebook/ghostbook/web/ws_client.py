"""A connected tab: a send queue drained by one writer task, so broadcasting never blocks.

The queue is bounded in bytes. A message sent with a `key` supersedes the queued, unsent message
with the same key (a cell's whole output list: only the latest matters), so a slow tab receives
the newest state instead of every step. A tab whose backlog still exceeds `MAX_BACKLOG_BYTES` (or
twice its largest queued message, so one huge output list alone never drops a tab) is dropped
(closed with 1013); it reconnects and resyncs from a snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import OrderedDict

from starlette.websockets import WebSocket

MAX_BACKLOG_BYTES = 16 * 1024 * 1024  # unsent bytes behind the message being written


class WebSocketClient:
    def __init__(self, websocket: WebSocket, max_backlog_bytes: int = MAX_BACKLOG_BYTES) -> None:
        self.id = uuid.uuid4().hex[:12]
        self.texts_shared = False  # snapshots without cell sources: the client reads them from the shared texts
        self._websocket = websocket
        self._max_bytes = max_backlog_bytes
        # Unsent messages in order; keyed ones under their key, the others under a fresh int.
        self._queue: OrderedDict[str | int, str | bytes] = OrderedDict()  # bytes: a binary frame
        self._seq = 0
        self.backlog_bytes = 0
        self._largest = 0  # the largest message queued since the queue was last empty
        self._wakeup = asyncio.Event()
        self._writer = asyncio.create_task(self._write())
        self._closer: asyncio.Task[None] | None = None
        self.closed = False

    def send(self, text: str | bytes, key: str | None = None) -> None:
        """Queue `text` (bytes: a binary frame); with a `key`, replace the unsent message of that key (it
        moves to the end)."""
        if self.closed:
            return
        slot: str | int
        if key is None:
            self._seq += 1
            slot = self._seq
        else:
            slot = key
            old = self._queue.pop(key, None)
            if old is not None:
                self.backlog_bytes -= len(old)
        self._queue[slot] = text
        self.backlog_bytes += len(text)  # characters: bytes for ASCII, near enough otherwise
        self._largest = max(self._largest, len(text))
        if self.backlog_bytes > max(self._max_bytes, 2 * self._largest):
            self._drop()
            return
        self._wakeup.set()

    def _drop(self) -> None:
        """Too far behind: free the backlog and close; the tab reconnects to a fresh snapshot."""
        self.closed = True
        self._queue.clear()
        self.backlog_bytes = 0
        self._writer.cancel()  # it may be blocked on a peer that reads nothing
        self._closer = asyncio.create_task(self._close(1013, "too far behind; reconnect"))

    async def _close(self, code: int, reason: str) -> None:
        # The close frame goes out once the peer reads what is already in flight (or the
        # connection is lost); the queue is freed already, so waiting costs nothing.
        with contextlib.suppress(Exception):
            await self._websocket.close(code=code, reason=reason)

    async def _write(self) -> None:
        try:
            while not self.closed:
                if not self._queue:
                    self._largest = 0
                    self._wakeup.clear()
                    await self._wakeup.wait()
                    continue
                _, text = self._queue.popitem(last=False)
                self.backlog_bytes -= len(text)
                if isinstance(text, bytes):
                    await self._websocket.send_bytes(text)
                else:
                    await self._websocket.send_text(text)
        except Exception:
            self.closed = True
            self._queue.clear()
            self.backlog_bytes = 0

    async def aclose(self) -> None:
        self.closed = True
        self._queue.clear()
        self.backlog_bytes = 0
        for task in (self._writer, self._closer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
