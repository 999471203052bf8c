"""A loopback stand-in for a llama.cpp server's `/infill` (llama-cpp-python's server has none): the
shipped GGUF through llama_cpp, `input_extra` chunks put before the prefix as llama-server does,
the model's FIM template around prefix and suffix, streamed as server-sent events like llama-server's
(`{"content", "stop"}`), plus `/health` and `/props`. It records each request body."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ghostbook.models.remote import template_prompt
from ghostbook.models.templates import TEMPLATES
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.loopback import Loopback

N_CTX = 512


class InfillStandIn:
    def __init__(self, model: Path) -> None:
        import llama_cpp

        self.llm = llama_cpp.Llama(model_path=str(model), n_ctx=N_CTX, n_threads=1, verbose=False)
        self.bodies: list[dict[str, Any]] = []
        self.url = ""
        self._lock = threading.Lock()
        self._loopback = Loopback()

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def props(self, request: Request) -> Response:
        return JSONResponse({"default_generation_settings": {"n_ctx": N_CTX}})

    async def infill(self, request: Request) -> Response:
        body = await request.json()
        self.bodies.append(body)
        extra = "".join(f"# {chunk['filename']}\n{chunk['text']}\n" for chunk in body.get("input_extra", []))
        prompt, stops = template_prompt("ghostbook", extra + body["input_prefix"] + body.get("prompt", ""),
                                        body.get("input_suffix", ""))
        tokens = self.llm.tokenize(prompt.encode(), add_bos=False, special=True)
        keep = max(0, len(tokens) - (N_CTX - int(body.get("n_predict", 32)) - 1))
        prompt_text = self.llm.detokenize(tokens[keep:], special=True).decode("utf-8", "ignore")

        def events() -> Iterator[str]:
            limited = False
            with self._lock:
                for part in self.llm.create_completion(prompt_text, max_tokens=int(body.get("n_predict", 32)),
                                                       temperature=0, stream=True, stop=stops):
                    choice = part["choices"][0]  # type: ignore[index]
                    limited = choice.get("finish_reason") == "length"
                    if choice["text"]:
                        yield f"data: {json.dumps({'content': choice['text'], 'stop': False})}\n\n"
            yield f"data: {json.dumps({'content': '', 'stop': True, 'stopped_limit': limited})}\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    def start(self) -> InfillStandIn:

        self.url = self._loopback.serve([Route("/health", self.health), Route("/props", self.props),
                                         Route("/infill", self.infill, methods=["POST"])])
        return self

    def stop(self) -> None:
        self._loopback.stop()
        self.llm.close()


assert "ghostbook" in TEMPLATES
