"""A real chat model through the editor's own path (SmolLM2-135M-Instruct, `tests.chat_model`): its answer
ends at the closing fence, where SmolLM2 would go on with prose ("This is the same as the original code,
…"); speculative edits give plain greedy's tokens; the proposal counts its model calls."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from ghostbook.completion.context import CellText
from ghostbook.decoding.edits import EditSearch
from ghostbook.editing import prompt
from ghostbook.editing.engine import EditEngine, EditRequest, Proposal
from ghostbook.editing.models import InProcessModel, answer_opening
from ghostbook.models.backend import Backend
from ghostbook.models.chat_template import chat_prompt_ids
from ghostbook.models.loader import open_edit_backend

pytestmark = pytest.mark.timeout(300)

# SmolLM2 rewrites the loop's list as a range, closes the block and explains itself after it
CELL = "total = 0\nfor n in [1, 2, 3]:\n    total += n\nprint(total)"
INSTRUCTION = "use sum"


@pytest.fixture(scope="module")
def chat_backend(smollm2: Path) -> Iterator[Backend]:
    backend = open_edit_backend(smollm2, threads=2)
    yield backend
    backend.unload()


def _messages(model: InProcessModel) -> list[dict[str, str]]:
    context = prompt.EditContext(cells=[CellText("code", CELL)], index=0, selection=None, instruction=INSTRUCTION,
                                 namespace_lines=[], error=None, previous=None)
    return prompt.build_messages(context, model.count_tokens, 1024)


def _answer(model: InProcessModel) -> str:
    async def collect() -> str:
        stream = model.stream(_messages(model), prompt.draft_answer(CELL), threading.Event(), 200)
        return "".join([piece async for piece in stream])

    return asyncio.run(collect())


def test_the_model_would_go_on_past_the_fence(chat_backend: Backend) -> None:
    """The same prompt decoded without the stop rule: SmolLM2 writes prose after its code block (what the
    rule spares the user from waiting for)."""
    model = InProcessModel(chat_backend)
    draft = prompt.draft_answer(CELL)
    opening = answer_opening(draft)
    ids = chat_prompt_ids(chat_backend, _messages(model)) + chat_backend.tokenize(opening)
    search = EditSearch(chat_backend.tokenize(draft[len(opening):]), 120)
    pieces: list[bytes] = []
    chat_backend.generate(ids, search, lambda: False, lambda token: pieces.append(token.piece))
    text = b"".join(pieces).decode()
    assert "```" in text and text.split("```", 1)[1].strip(), text  # words after the closing fence


def test_decoding_ends_at_the_closing_fence(chat_backend: Backend) -> None:
    texts, stats = {}, {}
    for speculative in (False, True):
        model = InProcessModel(chat_backend, speculative)
        texts[speculative] = _answer(model)
        stats[speculative] = model.stats()
    answer = texts[True]
    code, fence, after = answer.partition("\n```")
    assert code.startswith("```python\n") and fence and not after.strip(), answer  # nothing after the fence line
    assert texts[False] == answer  # greedy's own text
    generated = answer[len("```python\n"):]
    plain, fast = stats[False], stats[True]
    assert plain["tokens"] == fast["tokens"] == len(chat_backend.tokenize(generated))  # no token past the fence
    assert plain["calls"] == plain["tokens"] and fast["calls"] < plain["calls"]


def _propose(model: InProcessModel) -> Proposal:
    request = EditRequest([CellText("code", CELL)], 0, INSTRUCTION)

    async def collect() -> list[Proposal]:
        return [p async for p in EditEngine(model).propose(request, threading.Event())]

    return asyncio.run(collect())[-1]


def test_the_proposal_counts_the_model_calls(chat_backend: Backend) -> None:
    """The stats are read the moment the engine sees the fence: the calls are counted as they are made."""
    finals = {speculative: _propose(InProcessModel(chat_backend, speculative)) for speculative in (False, True)}
    plain, fast = finals[False].stats, finals[True].stats
    assert plain is not None and fast is not None
    assert finals[True].text == finals[False].text and finals[True].warning is None  # a real chat template
    assert plain.calls == plain.tokens > 0 and fast.tokens == plain.tokens and 0 < fast.calls < plain.calls
    assert finals[True].answer.rstrip("\n").endswith("\n```") and "range" in finals[True].text
