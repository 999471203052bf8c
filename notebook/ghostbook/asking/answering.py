"""One answer, as the Ask panel writes it: the prompt within the model's budget, the model's stream with the
notebook's code cells as the draft, and its end where the model starts to repeat itself. The service streams
it to the tabs; `eval.notebook_ai` measures it."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncGenerator, Sequence

from ghostbook.asking import prompt
from ghostbook.asking.models import AskModel
from ghostbook.asking.repeats import loop_start

ANSWER_TOKENS = 1024  # the longest answer, in tokens
CONTEXT_TOKENS = 3072  # the prompt's budget, at most (less where the model's context is smaller)


def prompt_budget(model: AskModel) -> int:
    """The prompt's token budget: what the model's context leaves beside the longest answer."""
    return max(256, min(CONTEXT_TOKENS, model.context - ANSWER_TOKENS - 64))


async def answer_texts(model: AskModel, ctx: prompt.AskContext, code_cells: Sequence[tuple[str, str]],
                       cancel: threading.Event) -> AsyncGenerator[str, None]:
    """The answer so far, after each piece the model streams (`code_cells`: (id, source); the model drafts
    from them and the asked ones, `AskModel.draft`). It ends where the model says a paragraph again, cut
    before the repeat."""
    messages = prompt.build_messages(ctx, model.count_tokens, prompt_budget(model))
    asked = {ctx.ids[index] for index in ctx.selected}
    draft = model.draft(code_cells, [cell for cell in code_cells if cell[0] in asked], ANSWER_TOKENS)
    answer = ""
    async with contextlib.aclosing(model.stream(messages, draft, cancel, ANSWER_TOKENS)) as stream:
        async for delta in stream:
            answer += delta
            cut = loop_start(answer) if "\n" in delta else None
            if cut is not None:  # the model repeats itself: the answer is over
                yield answer[:cut].rstrip() + "\n"
                return
            yield answer
