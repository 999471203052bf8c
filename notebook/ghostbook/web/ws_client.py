"""A connected tab: a send queue drained by one writer task, so broadcasting never blocks."""

from __future__ import annotations

import asyncio
import contextlib
import uuid

from starlette.websockets import WebSocket

MAX_BACKLOG = 5_000  # messages; a tab this far behind is dropped and resyncs from a snapshot


class WebSocketClient:
    def __init__(self, websocket: WebSocket) -> None:
        self.id = uuid.uuid4().hex[:12]
        self._websocket = websocket
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write())
        self.closed = False

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self._queue.qsize() > MAX_BACKLOG:
            self.closed = True
            self._queue.put_nowait(None)
            return
        self._queue.put_nowait(text)

    async def _write(self) -> None:
        try:
            while (text := await self._queue.get()) is not None:
                await self._websocket.send_text(text)
        except Exception:
            self.closed = True
        if self.closed:
            with contextlib.suppress(Exception):
                await self._websocket.close(code=1013, reason="too far behind; reconnect")

    async def aclose(self) -> None:
        self.closed = True
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._writer
