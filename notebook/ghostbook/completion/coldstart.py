"""A cold start: when the KV cache holds little of a request's prompt, read a shorter one first.

Reading a prompt is most of a cold request's time (~0.1-0.3 ms a token on one core of a small CPU
for the shipped model), so a prompt the cache does not hold is read within `BUDGET` tokens (the cells
above the cursor's cell still fill what that cell leaves), and the whole one is read after the
suggestion is sent, while the user reads it or types on (any request stops that). The next request
then finds the whole prompt in the cache. The shorter context has its own sticky cells above
(`ContextBuilder`'s key), so consecutive cold starts in a cell share their prompts too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ghostbook.completion.context import Context
from ghostbook.completion.prompt import make_prompt
from ghostbook.models.backend import Backend

# tokens of context in a cold start's prompt: chosen by `bench completion --cold` against 256, 192, 128
# and the cursor's cell alone (docs/benchmarks.md, "Cold first text")
BUDGET = 96
READ = 96  # a prompt with at most this many tokens the cache lacks is read whole at once


@dataclass(frozen=True)
class ColdStart:
    """What a cold request reads first: `budget` tokens of context, of the cursor's cell alone with
    `cell_only` (no cells above or below). `bench completion --cold` compares them."""

    budget: int = BUDGET
    cell_only: bool = False


def choose(backend: Backend, whole: Context, short: Callable[[], Context],
           max_new: int, read: int = READ) -> tuple[Context, Context | None]:
    """The context to answer from and the one to read afterwards (None: nothing more to read):
    `whole` where the cache lacks at most `read` of its prompt's tokens, else `short()` (within a
    cold start's budget) where that leaves less to read."""
    todo = _todo(backend, whole, max_new)
    if todo <= read:
        return whole, None
    cold = short()
    if cold == whole or _todo(backend, cold, max_new) >= todo:
        return whole, None
    return cold, whole


def _todo(backend: Backend, ctx: Context, max_new: int) -> int:
    """Tokens of `ctx`'s prompt the KV cache lacks."""
    ids = make_prompt(backend, ctx, max_new).ids
    return len(ids) - backend.cached(ids)


def edit_end(before: str, after: str) -> int:
    """Where the cursor likely is after `before` became `after` (an editor that does not say): the end
    of the text that changed, as far right as it can be ("=" typed after "=" makes "==")."""
    start, n = 0, min(len(before), len(after))
    while start < n and before[start] == after[start]:
        start += 1
    end_before, end_after = len(before), len(after)
    while end_before > start and end_after > start and before[end_before - 1] == after[end_after - 1]:
        end_before, end_after = end_before - 1, end_after - 1
    return end_after
