"""A cold start: when the KV cache holds little of a request's prompt, read a shorter one first.

Reading a prompt is most of a cold request's time (~0.1-0.3 ms a token on one core of a small CPU
for the shipped model), so a prompt the cache does not hold is read within `BUDGET` tokens, and the
whole one is read after the suggestion is sent, while the user reads it or types on (any request
stops that). The next request then finds the whole prompt in the cache. The shorter context has its
own sticky cells above (`ContextBuilder`'s key), so consecutive cold starts in a cell share their
prompts too.
"""

from __future__ import annotations

from collections.abc import Callable

from ghostbook.completion.context import Context
from ghostbook.completion.prompt import make_prompt
from ghostbook.models.backend import Backend

BUDGET = 256  # tokens of context in a cold start's prompt
READ = 96  # a prompt with at most this many tokens the cache lacks is read whole at once


def choose(backend: Backend, whole: Context, short: Callable[[], Context],
           max_new: int) -> tuple[Context, Context | None]:
    """The context to answer from and the one to read afterwards (None: nothing more to read):
    `whole` where the cache lacks at most `READ` of its prompt's tokens, else `short()` (within
    `BUDGET`) where that leaves less to read."""
    todo = _todo(backend, whole, max_new)
    if todo <= READ:
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
