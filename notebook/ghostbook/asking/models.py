"""The edit model as Ask sees it: chat messages in, a free answer (Markdown) streamed out.

The same models as Edit with AI (the `edit_model` setting, the edit registry), asked differently: no stop at
a code block's end. Each model says what its answer is drafted against (`draft`: the cells as unchanged
changes, `plan.unchanged_answer`). In process (llama.cpp, transformers): the model's own chat template
(`models.chat_template`) and greedy until the end of its turn, with speculative edits
(`decoding.edits.EditSearch`) drafting every code cell of the notebook (free where unused): a cell the answer
rewrites is decoded with its original as the draft, as Edit with AI's cell is; the tokens are greedy's. On a
server (`models.remote_chat`): its streamed chat completions, with the cells the question is about (the
selected ones; none selected: the notebook's) as the prediction, Ctrl+K's own path (`ChatServer`: openai:
sends it as `prediction` where the server takes it, llamacpp: speculates with its own draft model). A
prediction is paid for where unused, so none goes out that is longer than the answer may be.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncGenerator, Sequence
from typing import Protocol

from ghostbook.asking.plan import unchanged_answer
from ghostbook.decoding.edits import EditSearch
from ghostbook.editing.models import decoded_text
from ghostbook.models.backend import Backend
from ghostbook.models.chat_template import chat_prompt_ids
from ghostbook.models.remote_chat import ChatServer

Messages = list[dict[str, str]]
Cells = Sequence[tuple[str, str]]  # (id, source) of code cells


class AskModel(Protocol):
    name: str
    context: int  # the model's context length in tokens

    def count_tokens(self, text: str) -> int: ...

    def draft(self, notebook: Cells, asked: Cells, max_tokens: int) -> str:
        """What the answer may copy, for speculative decoding ("": nothing): from the notebook's code cells
        or those the question is about (`asked`, empty when it names none), for an answer of at most
        `max_tokens`."""

    def stream(self, messages: Messages, draft: str, cancel: threading.Event,
               max_tokens: int) -> AsyncGenerator[str, None]:
        """The answer's text, piece by piece; stops soon after `cancel` is set or the iteration is closed.
        `draft`: what the answer may copy (the cells as unchanged changes), for speculative decoding."""

    def stats(self) -> dict[str, int]:
        """The last answer's cost: `calls` (model evaluations; 0 on a server), `tokens` (the answer's) and
        `prompt_tokens`."""


class InProcessAsk:
    """A loaded backend (llama.cpp, transformers), greedy after its chat template; `speculative`: the draft is
    checked many tokens per model call (the same tokens as greedy). `search`: the last answer's (its calls)."""

    def __init__(self, backend: Backend, speculative: bool = True) -> None:
        self.backend = backend
        self.name = backend.info.name
        self.context = backend.info.n_ctx
        self.speculative = speculative
        self.search: EditSearch | None = None
        self.prompt_tokens = 0

    def count_tokens(self, text: str) -> int:
        return len(self.backend.tokenize(text))

    def draft(self, notebook: Cells, asked: Cells, max_tokens: int) -> str:
        return unchanged_answer(notebook)

    async def stream(self, messages: Messages, draft: str, cancel: threading.Event,
                     max_tokens: int) -> AsyncGenerator[str, None]:
        ids = chat_prompt_ids(self.backend, messages)
        self.prompt_tokens = len(ids)
        room = self.context - len(ids) - 1
        if room < 16:
            raise RuntimeError(f"the prompt ({len(ids)} tokens) leaves no room in the model's context "
                               f"({self.context} tokens)")
        draft_ids = self.backend.tokenize(draft) if self.speculative and draft else []
        search = self.search = EditSearch(draft_ids, min(max_tokens, room), speculative=bool(draft_ids))
        async with contextlib.aclosing(decoded_text(self.backend, ids, search, cancel)) as pieces:
            async for text in pieces:
                yield text

    def stats(self) -> dict[str, int]:
        search = self.search
        return {"calls": search.calls if search else 0, "tokens": search.tokens if search else 0,
                "prompt_tokens": self.prompt_tokens}


class ServerAsk:
    """An openai: or llamacpp: server's chat completions."""

    def __init__(self, server: ChatServer) -> None:
        self.server = server
        self.name = server.info.name
        self.context = server.info.n_ctx
        self.prompt_tokens = 0  # estimated, as `count_tokens`

    def count_tokens(self, text: str) -> int:
        return len(text) // 3 + 1  # the server's tokenizer is not at hand (as editing.models.ServerModel)

    def draft(self, notebook: Cells, asked: Cells, max_tokens: int) -> str:
        draft = unchanged_answer(asked or notebook)
        return draft if self.count_tokens(draft) <= max_tokens else ""

    async def stream(self, messages: Messages, draft: str, cancel: threading.Event,
                     max_tokens: int) -> AsyncGenerator[str, None]:
        self.prompt_tokens = sum(self.count_tokens(message["content"]) for message in messages)
        async with contextlib.aclosing(self.server.stream_chat(messages, draft or None, cancel, max_tokens)) as stream:
            async for text in stream:
                yield text

    def stats(self) -> dict[str, int]:
        return {"calls": 0, "tokens": self.server.stats.tokens, "prompt_tokens": self.prompt_tokens}


def ask_model(loaded: object, speculative: bool = True) -> AskModel:
    """Ask's view of what the edit registry loaded."""
    if isinstance(loaded, ChatServer):
        return ServerAsk(loaded)
    return InProcessAsk(loaded, speculative)  # type: ignore[arg-type]
