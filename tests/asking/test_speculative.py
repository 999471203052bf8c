"""Ask's answers decoded in process with the notebook's cells as the draft (`plan.unchanged_answer`): a cell
the answer rewrites is checked many tokens per model call, as Edit with AI's cell is, and the text is plain
greedy's. The real chat model (SmolLM2, its GGUF chat template)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from ghostbook.asking.models import InProcessAsk
from ghostbook.asking.plan import parse_plan, unchanged_answer
from ghostbook.asking.prompt import AskContext, build_messages
from ghostbook.completion.context import CellText
from ghostbook.models.backend import Backend
from ghostbook.models.loader import open_edit_backend

pytestmark = pytest.mark.timeout(300)

CELLS = [("load1", "numbers = [4, 8, 15, 16, 23, 42]"),
         ("sum1", "total = 0\nfor n in numbers:\n    total += n\nprint('the total is', total)")]


@pytest.fixture(scope="module")
def chat_backend(smollm2: Path) -> Iterator[Backend]:
    backend = open_edit_backend(smollm2, threads=2)
    yield backend
    backend.unload()


def _answer(model: InProcessAsk) -> str:
    ctx = AskContext([CellText("code", source) for _, source in CELLS], "Rewrite cell sum1 to print the mean "
                     "too. Answer with `Cell sum1:` and the whole cell.", ids=[cell_id for cell_id, _ in CELLS])
    messages = build_messages(ctx, model.count_tokens, 1024)

    async def collect() -> str:
        stream = model.stream(messages, unchanged_answer(CELLS), threading.Event(), 90)
        return "".join([piece async for piece in stream])

    return asyncio.run(collect())


def test_a_rewritten_cell_is_drafted_from_its_original_and_the_text_is_greedys(chat_backend: Backend) -> None:
    plain, fast = InProcessAsk(chat_backend, speculative=False), InProcessAsk(chat_backend)
    texts = {model: _answer(model) for model in (plain, fast)}
    print(f"\nSmolLM2 answered:\n{texts[fast]}")
    assert texts[fast] == texts[plain]  # greedy's own tokens
    assert plain.search is not None and fast.search is not None
    assert plain.search.calls == plain.search.tokens == fast.search.tokens > 0
    assert fast.search.calls < plain.search.calls  # what it copied of the cells came in long runs
    assert "total += n" in texts[fast]  # it rewrote the cell (what it drafted)


def test_the_draft_names_each_code_cell_as_the_answer_would() -> None:
    draft = unchanged_answer(CELLS)
    assert draft.startswith("Cell load1:\n```python\n# cell load1\nnumbers = [4")
    assert [c.cell_id for c in parse_plan(draft, ["load1", "sum1"]).changes] == ["load1", "sum1"]
