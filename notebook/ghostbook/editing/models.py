"""The edit model as the engine sees it: chat messages in, the answer's text streamed out.

In process (llama.cpp, transformers): the model's own chat template (`models.chat_template`) and greedy
with speculative edits (`decoding.edits`: the draft answer, i.e. the original cell, is checked many tokens
per model call), ending at the answer's closing fence (`render.AnswerEnd`). On a server
(`models.remote_chat`): its chat completions, with the draft as its `prediction` where the server takes one.
"""

from __future__ import annotations

import codecs
import contextlib
import threading
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, Protocol

from ghostbook.decoding.edits import EditSearch
from ghostbook.editing.render import AnswerEnd
from ghostbook.models.backend import Backend
from ghostbook.models.chat_template import chat_prompt_ids, has_chat_template
from ghostbook.models.remote_chat import ChatServer

Messages = list[dict[str, str]]


NO_TEMPLATE = ("the edit model has no chat template (it is not a chat or instruct model): its rewrites are "
               "unreliable")


class EditModel(Protocol):
    name: str
    caveat: str | None  # what every proposal of this model should warn of
    context: int  # the model's context length in tokens

    def count_tokens(self, text: str) -> int: ...

    def stream(self, messages: Messages, draft: str, cancel: threading.Event,
               max_tokens: int) -> AsyncGenerator[str, None]:
        """The answer's text, piece by piece; stops soon after `cancel` is set or the iteration is closed."""

    def stats(self) -> dict[str, Any]:
        """The last answer's `calls` (model evaluations), `tokens` and whether it was `speculative`."""


async def decoded_text(backend: Backend, ids: list[int], search: EditSearch,
                       cancel: threading.Event) -> AsyncGenerator[str, None]:
    """`backend`'s tokens after `ids` under `search` as UTF-8 text, piece by piece; stops soon after
    `cancel` is set or the iteration is closed (the decoding thread is told to stop, the stream closed)."""
    stop = threading.Event()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    stream = backend.stream(ids, search, stop)
    try:
        async for token in stream:
            if cancel.is_set():
                break
            text = decoder.decode(token.piece)
            if text:
                yield text
    finally:
        stop.set()
        await stream.aclose()


class InProcessModel:
    """A loaded backend; `speculative`: the draft is checked in long runs (the same tokens as greedy)."""

    def __init__(self, backend: Backend, speculative: bool = True) -> None:
        self.backend = backend
        self.name = backend.info.name
        self.context = backend.info.n_ctx
        self.speculative = speculative
        self._search: EditSearch | None = None
        self.caveat: str | None = None if has_chat_template(backend) else NO_TEMPLATE

    def count_tokens(self, text: str) -> int:
        return len(self.backend.tokenize(text))

    async def stream(self, messages: Messages, draft: str, cancel: threading.Event,
                     max_tokens: int) -> AsyncGenerator[str, None]:
        answer = AnswerPrompt.of(self.backend, messages, draft)
        room = self.backend.info.n_ctx - len(answer.ids) - 1
        if room < 16:
            raise RuntimeError(f"the prompt ({len(answer.ids)} tokens) leaves no room in the model's context "
                               f"({self.backend.info.n_ctx} tokens)")
        search = self._search = answer.search(min(max_tokens, room), self.speculative)
        yield answer.opening
        async with contextlib.aclosing(decoded_text(self.backend, answer.ids, search, cancel)) as pieces:
            async for text in pieces:
                yield text

    def stats(self) -> dict[str, Any]:
        search = self._search
        if search is None:
            return {}
        return {"calls": search.calls, "tokens": search.tokens, "speculative": self.speculative}


@dataclass(frozen=True)
class AnswerPrompt:
    """An edit answer as an in-process model decodes it (the editor and `bench edits`): `ids`, the chat
    prompt with the answer's `opening` fence already written for the model (its answer is code from the
    start); `draft`, the draft answer's tokens after it."""

    ids: list[int]
    draft: list[int]
    opening: str

    @classmethod
    def of(cls, backend: Backend, messages: Messages, draft: str) -> AnswerPrompt:
        opening = answer_opening(draft)
        return cls(chat_prompt_ids(backend, messages) + backend.tokenize(opening),
                   backend.tokenize(draft[len(opening):]), opening)

    def search(self, max_new_tokens: int, speculative: bool = True) -> EditSearch:
        """Greedy, speculative or plain, that ends at the answer's closing fence (nothing after it)."""
        return EditSearch(self.draft, max_new_tokens, speculative, stop=AnswerEnd(self.opening))


def answer_opening(draft: str) -> str:
    """The draft answer's opening fence line (with its newline), or "" where it opens with none."""
    first, newline, _ = draft.partition("\n")
    return first + newline if newline and first.startswith("```") else ""


class ServerModel:
    """An openai: or llamacpp: server's chat completions."""

    def __init__(self, server: ChatServer) -> None:
        self.server = server
        self.name = server.info.name
        self.context = server.info.n_ctx
        self.caveat: str | None = None

    def count_tokens(self, text: str) -> int:
        return len(text) // 3 + 1  # the server's tokenizer is not at hand; code runs about 3 characters a token

    async def stream(self, messages: Messages, draft: str, cancel: threading.Event,
                     max_tokens: int) -> AsyncGenerator[str, None]:
        async with contextlib.aclosing(self.server.stream_chat(messages, draft, cancel, max_tokens)) as stream:
            async for text in stream:
                yield text

    def stats(self) -> dict[str, Any]:
        stats = self.server.stats
        return {"calls": 0, "tokens": stats.tokens, "speculative": stats.prediction_used}


def edit_model(loaded: object, speculative: bool = True) -> EditModel:
    """The engine's view of what the edit registry loaded."""
    if isinstance(loaded, ChatServer):
        return ServerModel(loaded)
    return InProcessModel(loaded, speculative)  # type: ignore[arg-type]
