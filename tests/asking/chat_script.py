"""A scripted OpenAI-compatible chat server on a loopback port (`tests.loopback`): `/v1/models`, llama-server's
`/health` and `/props` (so it serves as `llamacpp:` too) and a streamed `/v1/chat/completions` that writes
`answer` in small pieces, holds on `hold` (cleared: the stream waits), or fails with an error event after
`fail_after` characters. It records the requests' bodies."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from tests.loopback import Loopback


class ScriptedChat:
    def __init__(self, answer: str = "Hello.") -> None:
        self.answer = answer
        self.delay = 0.01
        self.fail_after: int | None = None
        self.hold = threading.Event()
        self.hold.set()
        self.requests: list[dict[str, Any]] = []
        self._loopback = Loopback()
        self.url = self._loopback.serve([Route("/v1/models", self._models), Route("/health", self._health),
                                         Route("/props", self._props),
                                         Route("/v1/chat/completions", self._chat, methods=["POST"])])

    @property
    def spec(self) -> str:
        """The edit model setting that names this server."""
        return f"openai:{self.url}"

    @property
    def llamacpp_spec(self) -> str:
        """The edit model setting that names this server as a llama.cpp server."""
        return f"llamacpp:{self.url}"

    def stop(self) -> None:
        self.hold.set()
        self._loopback.stop()

    async def _models(self, request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": "scripted-chat", "object": "model"}]})

    async def _health(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def _props(self, request: Request) -> JSONResponse:
        return JSONResponse({"default_generation_settings": {"n_ctx": 8192}})

    async def _chat(self, request: Request) -> StreamingResponse:
        self.requests.append(await request.json())
        return StreamingResponse(self._events(self.answer), media_type="text/event-stream")

    async def _events(self, text: str) -> AsyncIterator[str]:
        for start in range(0, len(text), 5):
            if not self.hold.is_set():
                await asyncio.to_thread(self.hold.wait)
            if self.fail_after is not None and start >= self.fail_after:
                yield f"data: {json.dumps({'error': {'message': 'the model ran out of memory'}})}\n\n"
                return
            yield f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': text[start:start + 5]}}]})}\n\n"
            await asyncio.sleep(self.delay)
        yield f"data: {json.dumps({'choices': [{'index': 0, 'delta': {}, 'finish_reason': 'stop'}]})}\n\n"
        yield "data: [DONE]\n\n"
