"""The edit models' chat client (`models.remote_chat`): against a loopback stand-in that records each
request (the `prediction` field, the retry without it, the memory of a refusal, errors mid-stream,
cancel), and against a real llama-cpp-python server (`llama_cpp.server`, OpenAI-compatible
`/v1/chat/completions`) with the shipped GGUF."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from ghostbook.models.remote import RemoteError
from ghostbook.models.remote_chat import ChatServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.loopback import Loopback

from .conftest import KEY, free_port

MESSAGES = [{"role": "system", "content": "You edit notebook cells."},
            {"role": "user", "content": "Rename x to total.\n\n```python\nx = 1\nprint(x)\n```"}]
DRAFT = "```python\nx = 1\nprint(x)\n```"
ANSWER = "```python\ntotal = 1\nprint(total)\n```"


class ChatStandIn:
    """`/v1/chat/completions` streamed in 4-character deltas (the prediction's text when one comes, so
    the answer shows it arrived, else ANSWER), `/v1/models`, `/health`, `/props`. Options: refuse the
    `prediction` field (HTTP 400, as OpenAI answers an unknown argument), a required key, and `mode`:
    "ok", "error" (an error event after two deltas), "drop" (the connection breaks after two deltas),
    "stall" (one delta, then nothing)."""

    def __init__(self, refuse_prediction: bool = False, key: str = "", mode: str = "ok") -> None:
        self.refuse_prediction = refuse_prediction
        self.key = key
        self.mode = mode
        self.bodies: list[dict[str, Any]] = []
        self.hung_up = threading.Event()  # a stalled answer saw the client go
        self.url = ""
        self._loopback = Loopback()

    def _refused_key(self, request: Request) -> Response | None:
        if self.key and request.headers.get("authorization") != f"Bearer {self.key}":
            return JSONResponse({"error": {"message": "Invalid API key", "type": "invalid_request_error"}}, 401)
        return None

    async def models(self, request: Request) -> Response:
        return self._refused_key(request) or JSONResponse({"object": "list", "data": [{"id": "standin-coder"}]})

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def props(self, request: Request) -> Response:
        return JSONResponse({"default_generation_settings": {"n_ctx": 8192}})

    async def chat(self, request: Request) -> Response:
        refused = self._refused_key(request)
        if refused is not None:
            return refused
        body = await request.json()
        self.bodies.append(body)
        if self.refuse_prediction and "prediction" in body:
            return JSONResponse({"error": {"message": "Unrecognized request argument supplied: prediction",
                                           "type": "invalid_request_error", "param": "prediction"}}, 400)
        text = body["prediction"]["content"] if "prediction" in body else ANSWER
        pieces = [text[i:i + 4] for i in range(0, len(text), 4)]

        def chunk(delta: dict[str, str], finish: str | None = None) -> str:
            return "data: " + json.dumps({"object": "chat.completion.chunk", "model": "standin-coder",
                                          "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"

        async def events() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            for n, piece in enumerate(pieces):
                if n == 2 and self.mode == "error":
                    yield "data: " + json.dumps({"error": {"code": 500, "message": "the model crashed"}}) + "\n\n"
                    return
                if n == 2 and self.mode == "drop":
                    raise ConnectionResetError("the server went away")
                if n == 1 and self.mode == "stall":
                    try:
                        await asyncio.sleep(30)
                    finally:
                        self.hung_up.set()
                yield chunk({"content": piece})
            yield chunk({}, "stop")
            if "prediction" in body and body.get("stream_options", {}).get("include_usage"):
                details = {"accepted_prediction_tokens": len(pieces) - 1, "rejected_prediction_tokens": 1}
                usage = {"prompt_tokens": 40, "completion_tokens": len(pieces), "completion_tokens_details": details}
                yield "data: " + json.dumps({"choices": [], "usage": usage}) + "\n\n"
            if "cache_prompt" in body:  # llama-server's last chunk: its timings, with drafting counts
                yield "data: " + json.dumps({"choices": [], "timings": {"predicted_n": len(pieces), "draft_n": 10,
                                                                        "draft_n_accepted": 7}}) + "\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    def start(self) -> ChatStandIn:

        self.url = self._loopback.serve([Route("/v1/models", self.models), Route("/health", self.health),
                                         Route("/props", self.props),
                                         Route("/v1/chat/completions", self.chat, methods=["POST"])], "critical")
        return self

    def stop(self) -> None:
        self._loopback.stop()


@pytest.fixture
def standin(request: pytest.FixtureRequest) -> Iterator[ChatStandIn]:
    server = ChatStandIn(**getattr(request, "param", {})).start()
    yield server
    server.stop()


async def collect(server: ChatServer, prediction: str | None = DRAFT, max_tokens: int = 64,
                  cancel: threading.Event | None = None) -> str:
    parts = [text async for text in server.stream_chat(MESSAGES, prediction, cancel or threading.Event(), max_tokens)]
    assert all(parts)  # deltas, never empty
    return "".join(parts)


async def test_openai_sends_the_prediction_and_streams_the_answer(standin: ChatStandIn) -> None:
    server = ChatServer("openai", standin.url)
    await asyncio.to_thread(server.load)
    assert server.model == "standin-coder"
    assert await collect(server, max_tokens=200) == DRAFT  # the stand-in streams the prediction it got
    body = standin.bodies[-1]
    assert body["prediction"] == {"type": "content", "content": DRAFT}
    assert (body["model"], body["messages"], body["stream"]) == ("standin-coder", MESSAGES, True)
    assert body["temperature"] == 0
    assert body["stream_options"] == {"include_usage": True}
    assert "max_tokens" not in body  # OpenAI takes no completion limit beside a prediction: it is kept here
    stats = server.stats
    assert (stats.prediction_used, stats.retried, stats.finish_reason, stats.cancelled) == (True, False, "stop", False)
    assert stats.chars == len(DRAFT) == 28 and stats.events == 7 and stats.completion_tokens == 7 == stats.tokens
    assert (stats.accepted_tokens, stats.rejected_tokens) == (6, 1)
    assert stats.first_ms is not None and 0 < stats.first_ms <= stats.ms
    assert stats.to_json()["tokens"] == 7


async def test_the_token_limit_is_kept_here_when_a_prediction_is_sent(standin: ChatStandIn) -> None:
    server = ChatServer("openai", standin.url)
    await asyncio.to_thread(server.load)
    assert await collect(server, max_tokens=3) == DRAFT[:12]  # three deltas, then the client hangs up
    assert (server.stats.events, server.stats.finish_reason) == (3, "length")


async def test_openai_without_a_draft_sends_no_prediction(standin: ChatStandIn) -> None:
    server = ChatServer("openai", standin.url + "/v1")  # a base URL ending in /v1 works too
    await asyncio.to_thread(server.load)
    assert await collect(server, prediction=None, max_tokens=50) == ANSWER
    body = standin.bodies[-1]
    assert "prediction" not in body and body["max_tokens"] == 50 and not server.stats.prediction_used
    assert server.stats.accepted_tokens is None


@pytest.mark.parametrize("standin", [{"refuse_prediction": True}], indirect=True)
async def test_a_refused_prediction_is_retried_without_it_once_and_remembered(standin: ChatStandIn) -> None:
    server = ChatServer("openai", standin.url)
    await asyncio.to_thread(server.load)
    assert await collect(server) == ANSWER
    assert ["prediction" in body for body in standin.bodies] == [True, False]
    assert "stream_options" not in standin.bodies[1] and standin.bodies[1]["max_tokens"] == 64  # plain chat
    assert server.stats.retried and not server.stats.prediction_used and not server.predictions
    assert await collect(server) == ANSWER  # remembered: one request, no prediction
    assert ["prediction" in body for body in standin.bodies] == [True, False, False]
    assert not server.stats.retried


@pytest.mark.parametrize("standin", [{"key": KEY}], indirect=True)
async def test_a_refused_key_is_not_a_refused_prediction(standin: ChatStandIn,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GHOSTBOOK_API_KEY", raising=False)
    with pytest.raises(RemoteError, match=r"refused the API key \(HTTP 401\)"):
        await asyncio.to_thread(ChatServer("openai", standin.url, "wrong").load)
    server = ChatServer("openai", standin.url, KEY)
    await asyncio.to_thread(server.load)
    server.key = "wrong"
    with pytest.raises(RemoteError, match=r"refused the API key \(HTTP 401\): set GHOSTBOOK_API_KEY"):
        await collect(server)
    assert len(standin.bodies) == 0 and server.predictions  # no retry, nothing forgotten
    monkeypatch.setenv("GHOSTBOOK_API_KEY", KEY)  # the environment's key wins over the setting
    assert await collect(server) == DRAFT


async def test_llamacpp_gets_no_prediction_and_reports_its_drafting(standin: ChatStandIn) -> None:
    server = ChatServer("llamacpp", standin.url)
    await asyncio.to_thread(server.load)
    assert server.info.n_ctx == 8192 and server.model == "standin-coder"
    assert await collect(server) == ANSWER
    body = standin.bodies[-1]
    assert "prediction" not in body and "stream_options" not in body and body["max_tokens"] == 64
    assert body["cache_prompt"] is True and body["temperature"] == 0 and body["stream"] is True
    assert not [key for key in body if key.startswith("speculative")]  # the server's own draft settings
    assert (server.stats.accepted_tokens, server.stats.rejected_tokens) == (7, 3)


@pytest.mark.parametrize("standin", [{"mode": "error"}], indirect=True)
async def test_an_error_event_mid_stream_is_a_readable_remote_error(standin: ChatStandIn) -> None:
    server = ChatServer("openai", standin.url)
    await asyncio.to_thread(server.load)
    got: list[str] = []
    with pytest.raises(RemoteError, match="stopped with an error in the middle of its answer: the model crashed"):
        async for text in server.stream_chat(MESSAGES, DRAFT, threading.Event(), 64):
            got.append(text)
    assert "".join(got) == DRAFT[:8] and len(standin.bodies) == 1  # text had come: no retry


@pytest.mark.parametrize("standin", [{"mode": "drop"}], indirect=True)
async def test_a_connection_broken_mid_stream_is_a_readable_remote_error(standin: ChatStandIn) -> None:
    server = ChatServer("openai", standin.url)
    await asyncio.to_thread(server.load)
    with pytest.raises(RemoteError, match=f"{standin.url} broke off the connection"):
        await collect(server)
    assert server.stats.chars == 8


@pytest.mark.parametrize("standin", [{"mode": "stall"}], indirect=True)
async def test_cancel_hangs_up_on_a_stalled_answer(standin: ChatStandIn) -> None:
    server = ChatServer("openai", standin.url)
    await asyncio.to_thread(server.load)
    cancel = threading.Event()
    got: list[str] = []
    started = time.monotonic()
    async for text in server.stream_chat(MESSAGES, DRAFT, cancel, 64):
        got.append(text)
        asyncio.get_running_loop().call_later(0.2, cancel.set)  # Esc while the server says nothing
    assert got == [DRAFT[:4]] and server.stats.cancelled and time.monotonic() - started < 5
    assert await asyncio.to_thread(standin.hung_up.wait, 5)  # the server saw the client go


async def test_unreachable_and_wrong_servers_are_clear_errors(standin: ChatStandIn) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(RemoteError, match=f"cannot reach {closed}"):
        ChatServer("llamacpp", closed).load()
    with pytest.raises(RemoteError, match="has no /nowhere/v1/models"):
        ChatServer("openai", standin.url + "/nowhere").load()
    with pytest.raises(RemoteError, match="unknown chat server kind"):
        ChatServer("ollama", standin.url)  # type: ignore[arg-type]
    server = ChatServer("openai", standin.url)
    server.url = closed  # the server went away after loading
    with pytest.raises(RemoteError, match=f"cannot reach {closed}"):
        await collect(server)


# ---- a real server: llama-cpp-python's OpenAI-compatible chat endpoint ----------------------------


async def test_real_llama_cpp_server_streams_chat_with_a_prediction(llama_server: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GHOSTBOOK_API_KEY", raising=False)
    server = ChatServer("openai", llama_server, KEY)
    await asyncio.to_thread(server.load)
    assert server.model  # llama_cpp.server lists its model
    code = "import numpy as np\nvalues = np.arange(10)\ntotal = values.sum()\n"
    messages = [{"role": "user", "content": f"Add a print of total.\n```python\n{code}```"}]
    draft = f"```python\n{code}```"
    text = "".join([piece async for piece in server.stream_chat(messages, draft, threading.Event(), 24)])
    stats = server.stats
    assert text and stats.chars == len(text) and stats.events >= 1, stats
    assert stats.prediction_used or stats.retried  # taken as sent, or refused and asked again without it
    assert stats.finish_reason in ("stop", "length")
    again = "".join([piece async for piece in server.stream_chat(messages, None, threading.Event(), 8)])
    assert again and not server.stats.prediction_used


async def test_real_llama_cpp_server_cancel_leaves_it_usable(llama_server: str) -> None:
    server = ChatServer("openai", llama_server, KEY)
    await asyncio.to_thread(server.load)
    messages = [{"role": "user", "content": "def f(x):"}]
    cancel = threading.Event()
    async for _ in server.stream_chat(messages, None, cancel, 200):
        cancel.set()
    assert server.stats.cancelled and server.stats.events <= 2
    started = time.monotonic()
    assert await collect(server, prediction=None, max_tokens=4)
    assert time.monotonic() - started < 20

