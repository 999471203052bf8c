"""Edit models on servers (DESIGN §3b): a chat client for `/v1/chat/completions`, streamed as text.

What Ghostbook sends each server (always `messages`, `stream: true`, `temperature: 0`, and `model`
where the server names one):

- `openai:URL` (OpenAI, vLLM, llama-cpp-python's server, ...): `stream_options: {include_usage: true}`
  (for the token counts) and, with a draft answer, `prediction: {type: "content", content: <draft>}`:
  OpenAI's Predicted Outputs, the server's own speculative edit (OpenAI; vLLM where its speculative
  config takes predictions). With a prediction there is no `max_tokens` (OpenAI refuses a completion
  limit beside a prediction): the limit is kept here, by hanging up once about that many tokens have
  streamed. Servers that ignore unknown fields take the request as plain chat. A server that refuses
  these extras (an HTTP 4xx other than 401/403/404/408/429 to a request carrying them) is asked once
  more with a plain request (`max_tokens`, no prediction, no stream options) and is not sent them
  again by this client.
- `llamacpp:URL` (llama.cpp's llama-server, same endpoint): `max_tokens`, `cache_prompt: true` (a
  follow-up reuses the prompt's KV cache) and no prediction: llama-server has no Predicted Outputs. It
  speculates with the draft settings it was started with (`--model-draft FILE`, a small model of the
  same family; `--draft-max N`, `--draft-min N`), which are left to whoever runs it: no per-request
  `speculative.n_max` / `speculative.n_min`. Where it reports drafting in `timings`, the stats say how
  many draft tokens it kept.

The API key (GHOSTBOOK_API_KEY, else the settings) travels as a bearer token, as for completion servers.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import asdict, dataclass
from typing import Any, Literal

import httpx

from ghostbook.models.backend import BackendInfo
from ghostbook.models.remote import (
    CHARS_PER_TOKEN,
    CONNECT_S,
    READ_S,
    REMOTE_CTX,
    RemoteError,
    auth_headers,
    explain,
    openai_path,
    post_events,
    probe_llama_server,
    probe_openai,
)

log = logging.getLogger(__name__)

ChatKind = Literal["openai", "llamacpp"]
KINDS: tuple[ChatKind, ...] = ("openai", "llamacpp")
NOT_A_REFUSAL = frozenset({401, 403, 404, 408, 429})  # key, path, timeout, rate limit: the extras are not at fault


@dataclass
class ChatStats:
    """One `stream_chat` call: what streamed, how long it took, and what the server said of its drafts."""

    chars: int = 0
    events: int = 0  # streamed text events (about one token each)
    ms: float = 0.0
    first_ms: float | None = None  # until the first text
    prediction_used: bool = False  # the request that answered carried a prediction
    retried: bool = False  # the server refused the prediction (or stream options): asked again without
    completion_tokens: int | None = None  # the server's usage count
    accepted_tokens: int | None = None  # draft tokens the server kept (OpenAI: accepted_prediction_tokens;
    rejected_tokens: int | None = None  # llama-server: draft_n_accepted) and threw away
    finish_reason: str | None = None  # "stop", "length", ...
    cancelled: bool = False

    @property
    def tokens(self) -> int:
        return self.completion_tokens if self.completion_tokens is not None else self.events

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "tokens": self.tokens}


class ChatServer:
    """An edit model on an `openai:` or `llamacpp:` server; `load()` checks it answers (blocking)."""

    def __init__(self, kind: ChatKind, url: str, key: str = "") -> None:
        if kind not in KINDS:
            raise RemoteError(f"unknown chat server kind {kind!r}: use openai:URL or llamacpp:URL")
        self.kind: ChatKind = kind
        self.url = url.rstrip("/")
        self.key = key
        self.model = ""  # the server's model id, sent as `model` where known
        self.predictions = kind == "openai"  # send `prediction` (and stream options); off once refused
        self.info = BackendInfo(f"{kind}:{self.url}", self.url, "", REMOTE_CTX, 0, {"remote": kind, "role": "chat"})
        self.stats = ChatStats()

    @property
    def chat_url(self) -> str:
        return openai_path(self.url, "/chat/completions")

    def load(self) -> None:
        """Probe the server: `/v1/models` (openai), `/health` and `/props` (llamacpp); RemoteError with a
        sentence for the user when it does not answer as it should."""
        try:
            with httpx.Client(timeout=httpx.Timeout(READ_S, connect=CONNECT_S), headers=auth_headers(self.key)) as http:
                if self.kind == "openai":
                    self.model, n_ctx = probe_openai(http, self.url)
                else:
                    n_ctx = probe_llama_server(http, self.url)
                    try:  # the model's name, for a server that serves several
                        self.model = probe_openai(http, self.url)[0]
                    except (httpx.HTTPError, RemoteError):
                        self.model = ""
        except httpx.HTTPError as exc:
            raise RemoteError(explain(self.url, exc)) from None
        if n_ctx:
            self.info = BackendInfo(self.info.name, self.url, "", n_ctx, 0, self.info.extra)

    def unload(self) -> None:
        pass  # nothing held here: the server keeps its model

    def request_body(self, messages: list[dict[str, str]], prediction: str | None, max_tokens: int) -> dict[str, Any]:
        """The JSON of a streamed chat request (module docstring: what each server gets)."""
        body: dict[str, Any] = {"messages": messages, "stream": True, "temperature": 0}
        if self.model:
            body["model"] = self.model
        if self.kind == "llamacpp":
            body["cache_prompt"] = True
        elif self.predictions:
            body["stream_options"] = {"include_usage": True}
            if prediction is not None:
                body["prediction"] = {"type": "content", "content": prediction}
        if "prediction" not in body:
            body["max_tokens"] = max_tokens
        return body

    async def stream_chat(self, messages: list[dict[str, str]], prediction: str | None, cancel: threading.Event,
                          max_tokens: int) -> AsyncGenerator[str, None]:
        """The answer's text as it streams (deltas), until done, `cancel`, or about `max_tokens` tokens (the
        server is hung up on; close the generator, `contextlib.aclosing`, to hang up when leaving it
        early); `prediction` is the expected answer (the draft). Failures raise RemoteError with a
        readable message, also in the middle of the answer; `self.stats` describes the call."""
        stats = self.stats = ChatStats()
        start = time.perf_counter()
        try:
            while True:
                body = self.request_body(messages, prediction, max_tokens)
                extras = "stream_options" in body or "prediction" in body
                stats.prediction_used = "prediction" in body
                limit_here = "max_tokens" not in body
                try:
                    async with aclosing(post_events(self.chat_url, body, auth_headers(self.key), cancel)) as events:
                        async for event in events:
                            text = _read(event, stats)
                            if text:
                                if stats.first_ms is None:
                                    stats.first_ms = (time.perf_counter() - start) * 1000
                                stats.chars += len(text)
                                stats.events += 1
                                yield text
                                if limit_here and max(stats.events, stats.chars / CHARS_PER_TOKEN) >= max_tokens:
                                    stats.finish_reason = "length"
                                    return
                    return
                except httpx.HTTPStatusError as exc:
                    code = exc.response.status_code
                    if extras and stats.chars == 0 and 400 <= code < 500 and code not in NOT_A_REFUSAL:
                        log.info("%s refused the prediction / stream options (HTTP %d: %s): asking without them",
                                 self.url, code, exc.response.text[:200])
                        self.predictions = False  # remembered: not sent to this server again
                        stats.retried = True
                        continue
                    raise RemoteError(explain(self.url, exc)) from None
                except httpx.HTTPError as exc:
                    raise RemoteError(explain(self.url, exc)) from None
        finally:
            stats.cancelled = cancel.is_set()
            stats.ms = (time.perf_counter() - start) * 1000


def _read(event: dict[str, Any], stats: ChatStats) -> str:
    """The answer text of one streamed chunk; usage, finish reason and draft counts go into `stats`."""
    choices = event.get("choices") or []
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    if choice.get("finish_reason"):
        stats.finish_reason = str(choice["finish_reason"])
    usage = event.get("usage")
    if isinstance(usage, dict):
        if isinstance(usage.get("completion_tokens"), int):
            stats.completion_tokens = usage["completion_tokens"]
        details = usage.get("completion_tokens_details")
        if isinstance(details, dict):
            for field, name in (("accepted_tokens", "accepted_prediction_tokens"),
                                ("rejected_tokens", "rejected_prediction_tokens")):
                if isinstance(details.get(name), int):
                    setattr(stats, field, details[name])
    timings = event.get("timings")  # llama-server, when it drafts
    if isinstance(timings, dict) and isinstance(timings.get("draft_n"), int):
        accepted = timings.get("draft_n_accepted")
        if isinstance(accepted, int):
            stats.accepted_tokens, stats.rejected_tokens = accepted, timings["draft_n"] - accepted
    delta = choice.get("delta")
    text = delta.get("content") if isinstance(delta, dict) else None
    return text if isinstance(text, str) else ""
