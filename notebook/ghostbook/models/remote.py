"""Remote completion servers (DESIGN §3): they take whole prompts, so a request's decode plan degrades
to what they offer (greedy, their own stop rules); each is a streaming-text source, and the completion
pipeline's filters still apply to what it streams.

- `OpenAIBackend` — an OpenAI-compatible `/v1/completions` (vLLM, llama-cpp-python's server, TGI,
  Ollama...): FIM through the family's template as prompt text, or the API's `suffix` field.
- `LlamaServerBackend` — a llama.cpp server's `/infill`: the cursor's cell as prefix/suffix, the other
  cells as `input_extra` chunks (as llama.vim sends them), the server applies the model's FIM template.

The API key comes from GHOSTBOOK_API_KEY or the settings (the user's settings file, never a notebook).
The request helpers (`post_events`, `sse_events`, `explain`, `auth_headers`, the probes) also serve the
edit models' chat client, `models.remote_chat`.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import httpx

from ghostbook.models.backend import BackendInfo, Emit, GenStats, ModelLoadError, Search, TokenOut, Vocab
from ghostbook.models.templates import PREFIX, SUFFIX, TemplateError, get_template

REMOTE_CTX = 4096  # the context assumed when a server does not say
CONNECT_S, READ_S = 5.0, 60.0
CHARS_PER_TOKEN = 3.5  # the context budget's estimate: the server tokenizes, not us


@dataclass(frozen=True)
class TextRequest:
    """What a remote server gets: the whole prompt's text, the cursor's cell, and a token limit."""

    prefix: str  # cells above + the cell up to the cursor
    suffix: str  # the cell after the cursor + cells below
    cell_prefix: str
    cell_suffix: str
    max_new: int


class RemoteError(ModelLoadError):
    """A remote server failed; the message is meant for the user."""


def api_key(setting: str = "") -> str:
    return os.environ.get("GHOSTBOOK_API_KEY") or setting


def auth_headers(key: str = "") -> dict[str, str]:
    """The Authorization header for the API key (GHOSTBOOK_API_KEY, else `key`); none without a key."""
    found = api_key(key)
    return {"Authorization": f"Bearer {found}"} if found else {}


class StreamError(httpx.HTTPError):
    """The server sent an error event in the middle of a streamed answer."""


def explain(url: str, exc: Exception) -> str:
    """A sentence for the user about a failed request to the server at `url`."""
    if isinstance(exc, httpx.HTTPStatusError):
        code = exc.response.status_code
        if code in (401, 403):
            return (f"{url} refused the API key (HTTP {code}): set GHOSTBOOK_API_KEY, or the API key in the "
                    "settings")
        if code == 404:
            return f"{url} has no {exc.request.url.path} (HTTP 404): is it the right kind of server?"
        return f"{url} answered HTTP {code}: {exc.response.text[:200]}"
    if isinstance(exc, StreamError):
        return f"{url} stopped with an error in the middle of its answer: {exc}"
    if isinstance(exc, httpx.TimeoutException):
        return f"{url} did not answer in time: is the server busy or the URL right?"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
        return f"{url} broke off the connection ({exc or type(exc).__name__}): is the server still running?"
    return f"cannot reach {url}: {exc or type(exc).__name__}; check that the server runs and the URL"


class RemoteBackend:
    """What both servers share: a `Backend` whose generation is a text stream (`stream_text`)."""

    kind = "remote"

    def __init__(self, url: str, name: str, key: str = "", family: str = "") -> None:
        self.url = url.rstrip("/")
        self.key = key
        self.info = BackendInfo(name, self.url, family, REMOTE_CTX, 0, {"remote": self.kind})
        self.last_stats = GenStats()
        self.vocab = Vocab([], frozenset())

    def headers(self) -> dict[str, str]:
        return auth_headers(self.key)

    # ---- the Backend interface: a remote model has no token ids here ---------------------------

    def load(self) -> None:
        try:
            with httpx.Client(timeout=httpx.Timeout(READ_S, connect=CONNECT_S), headers=self.headers()) as http:
                self.probe(http)
        except httpx.HTTPError as exc:
            raise RemoteError(explain(self.url, exc)) from None

    def probe(self, http: httpx.Client) -> None:
        raise NotImplementedError

    def unload(self) -> None:
        pass

    def forget(self) -> None:
        pass

    def cached(self, prompt_ids: Sequence[int]) -> int:
        return 0  # the server keeps its own cache

    def tokenize(self, text: str) -> list[int]:
        """An estimate for the context budget (one id per ~3.5 characters)."""
        return [0] * round(len(text) / CHARS_PER_TOKEN)

    def lookup(self, token_text: str) -> int | None:
        return None

    def piece(self, token: int) -> bytes:
        return b""

    def generate(self, prompt_ids: Sequence[int], search: Search, cancelled: Callable[[], bool],
                 emit: Emit) -> GenStats:
        raise NotImplementedError("a remote server takes text: use stream_text")

    def stream(self, prompt_ids: Sequence[int], search: Search,
               cancel: threading.Event) -> AsyncGenerator[TokenOut, None]:
        raise NotImplementedError("a remote server takes text: use stream_text")

    # ---- text -----------------------------------------------------------------------------------

    def payload(self, request: TextRequest) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def chunk_text(self, data: dict[str, Any]) -> tuple[str, bool]:
        """The text of one streamed event and whether the server stopped on the token limit."""
        raise NotImplementedError

    async def stream_text(self, request: TextRequest, cancel: threading.Event) -> AsyncGenerator[TokenOut, None]:
        """The server's continuation as it streams (pieces as UTF-8 bytes), until done or `cancel`."""
        path, body = self.payload(request)
        stats = GenStats()
        start = time.perf_counter()
        try:
            async with aclosing(post_events(self.url + path, body, self.headers(), cancel)) as events:
                async for item in events:
                    text, length = self.chunk_text(item)
                    if text:
                        stats.generated += 1  # a streamed event: about a token
                        if stats.prompt_ms == 0.0:
                            stats.prompt_ms = (time.perf_counter() - start) * 1000
                        yield TokenOut(-1, text.encode("utf-8"))
                    if length:  # stopped on the token limit: the pipeline treats the text as truncated
                        stats.generated = max(stats.generated, request.max_new)
        except httpx.HTTPError as exc:
            raise RemoteError(explain(self.url, exc)) from None
        finally:
            stats.cancelled = cancel.is_set()
            stats.total_ms = (time.perf_counter() - start) * 1000
            self.last_stats = stats


CANCEL_POLL_S = 0.05  # how often a stream waiting for the server looks at its cancel flag

_PUMPS: set[asyncio.Task[None]] = set()  # responses being read (a task must be referenced while it runs)


async def post_events(url: str, body: dict[str, Any], headers: dict[str, str],
                      cancel: threading.Event | None = None) -> AsyncGenerator[dict[str, Any], None]:
    """POST `body` and yield the JSON events the server streams back, until it is done or `cancel` is set.

    The HTTP response is read by a task of its own into a queue; when the stream is closed, cancelled,
    or `cancel` is set, that task hangs up and the server stops generating. Failures are raised as
    `httpx.HTTPError`: an error status with its body read (`HTTPStatusError`), an error event in the
    stream (`StreamError`), a connection that fails or breaks off. Close it (`contextlib.aclosing`) to
    hang up at once when leaving early."""
    queue: asyncio.Queue[dict[str, Any] | BaseException | None] = asyncio.Queue()
    leave = asyncio.Event()  # the consumer is gone: stop passing events on
    pump = asyncio.get_running_loop().create_task(_pump(url, body, headers, queue, leave))
    _PUMPS.add(pump)
    pump.add_done_callback(_PUMPS.discard)
    try:
        while cancel is None or not cancel.is_set():
            if cancel is None:
                item = await queue.get()
            else:
                try:
                    item = await asyncio.wait_for(queue.get(), CANCEL_POLL_S)
                except TimeoutError:
                    continue
                if cancel.is_set():
                    return
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        leave.set()
        pump.cancel()  # hang up (a finished response: nothing left to do)


async def _pump(url: str, body: dict[str, Any], headers: dict[str, str],
                queue: asyncio.Queue[dict[str, Any] | BaseException | None], leave: asyncio.Event) -> None:
    try:
        async with (httpx.AsyncClient(timeout=httpx.Timeout(READ_S, connect=CONNECT_S), headers=headers) as http,
                    http.stream("POST", url, json=body) as response):
            if response.is_error:
                await response.aread()
                response.raise_for_status()
            async for data in sse_events(response.aiter_lines()):
                if not leave.is_set():
                    queue.put_nowait(data)
        queue.put_nowait(None)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:  # noqa: BLE001 - handed to the consumer
        queue.put_nowait(exc)


async def sse_events(lines: AsyncIterator[str]) -> AsyncGenerator[dict[str, Any], None]:
    """The JSON objects of a server-sent-event stream (`data: {...}` lines, up to `data: [DONE]`); an
    error event raises `StreamError` with the server's message."""
    async for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            item = json.loads(data)
        except ValueError:
            continue
        if isinstance(item, dict):
            if "error" in item:
                error = item["error"]
                message = error.get("message") if isinstance(error, dict) else None
                raise StreamError(str(message or error))
            yield item


def template_prompt(family: str, prefix: str, suffix: str) -> tuple[str, list[str]]:
    """The family's FIM prompt as text (special tokens written out, for a server that parses them) and
    its stop strings."""
    template = get_template(family)
    parts = [template.bos] if template.bos else []
    for part in template.layout():
        parts.append(prefix if part == PREFIX else suffix if part == SUFFIX else part)
    return "".join(parts), list(template.stop)


def openai_path(url: str, path: str) -> str:
    """`path` under the server's `/v1` (the URL may end in /v1 or not)."""
    return url + path if url.endswith("/v1") else url + "/v1" + path


def probe_openai(http: httpx.Client, url: str) -> tuple[str, int | None]:
    """The first model's id from `/v1/models` ("" where the list is empty) and its context length where
    the server says (vLLM does); RemoteError when the answer is not an OpenAI model list."""
    response = http.get(openai_path(url, "/models"))
    response.raise_for_status()
    try:
        models = response.json().get("data") or []
        model = str(models[0]["id"]) if models else ""
        n_ctx = models[0].get("max_model_len") if models else None
    except (ValueError, KeyError, IndexError, AttributeError, TypeError):
        raise RemoteError(f"{url}/v1/models did not answer an OpenAI model list") from None
    return model, n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None


def probe_llama_server(http: httpx.Client, url: str) -> int | None:
    """Whether a llama.cpp server is up (`/health`, raising for an error status) and its context length
    from `/props` (None from an older server)."""
    http.get(url + "/health").raise_for_status()
    try:
        return int(http.get(url + "/props").json()["default_generation_settings"]["n_ctx"])
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


class OpenAIBackend(RemoteBackend):
    """`/v1/completions`, streamed. `family` "suffix" (or empty): the prefix as prompt and the API's
    `suffix` field; a family name: the family's FIM template as the prompt's text."""

    kind = "openai"

    def __init__(self, url: str, name: str, key: str = "", family: str = "") -> None:
        super().__init__(url, name, key, "" if family in ("", "suffix") else family)
        if self.info.family:
            get_template(self.info.family)  # TemplateError now, not at the first request
        self.model = ""

    def probe(self, http: httpx.Client) -> None:
        self.model, n_ctx = probe_openai(http, self.url)
        if n_ctx:
            self.info = BackendInfo(self.info.name, self.url, self.info.family, n_ctx, 0, self.info.extra)

    def payload(self, request: TextRequest) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": request.max_new, "temperature": 0,
                                "stream": True}
        if self.info.family:
            body["prompt"], stops = template_prompt(self.info.family, request.prefix, request.suffix)
            body["stop"] = stops[:4]  # the API takes at most four
        else:
            body["prompt"], body["suffix"] = request.prefix, request.suffix
        return ("/completions" if self.url.endswith("/v1") else "/v1/completions"), body

    def chunk_text(self, data: dict[str, Any]) -> tuple[str, bool]:
        choices = data.get("choices") or [{}]
        choice = choices[0] if isinstance(choices[0], dict) else {}
        return str(choice.get("text") or ""), choice.get("finish_reason") == "length"


class LlamaServerBackend(RemoteBackend):
    """llama.cpp server's `/infill` (llama-server), streamed; other cells travel as `input_extra`."""

    kind = "llamacpp"

    def probe(self, http: httpx.Client) -> None:
        n_ctx = probe_llama_server(http, self.url)
        if n_ctx:
            self.info = BackendInfo(self.info.name, self.url, "", n_ctx, 0, self.info.extra)

    def payload(self, request: TextRequest) -> tuple[str, dict[str, Any]]:
        above = request.prefix[: len(request.prefix) - len(request.cell_prefix)]
        below = request.suffix[len(request.cell_suffix):]
        extra = [{"filename": name, "text": text} for name, text in (("cells above", above), ("cells below", below))
                 if text.strip()]
        return "/infill", {"input_prefix": request.cell_prefix, "input_suffix": request.cell_suffix, "prompt": "",
                           "input_extra": extra, "n_predict": request.max_new, "stream": True, "cache_prompt": True,
                           "samplers": ["top_k"], "top_k": 1, "temperature": 0}

    def chunk_text(self, data: dict[str, Any]) -> tuple[str, bool]:
        return str(data.get("content") or ""), bool(data.get("stop") and data.get("stopped_limit"))


def remote_backend(kind: str, url: str, key: str = "", family: str = "") -> RemoteBackend:
    """The backend of an `openai:` or `llamacpp:` spec (TemplateError for an unknown family)."""
    name = f"{kind}:{url}"
    if kind == "openai":
        return OpenAIBackend(url, name, key, family)
    if kind == "llamacpp":
        return LlamaServerBackend(url, name, key)
    raise TemplateError(f"unknown remote kind {kind!r}")
