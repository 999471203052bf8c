"""Speculative greedy decoding: the same tokens as greedy, fewer model calls where the text is predictable.

A drafter proposes the next few tokens; one evaluation (`Evaluation.logits_along`) gives the model's
logits after each of them, and the longest prefix of the draft that greedy itself would have picked is
kept, plus greedy's own token where they part (or after the whole draft). The output is greedy's by
construction: every emitted token is the argmax of the logits after the tokens before it.

Drafters: prompt lookup (the last few tokens of the text so far found earlier in the prompt, i.e. the
notebook: the tokens that followed them there; copy-heavy edits repeat what is above), and a draft model
(a small model's greedy tokens from its own `Evaluation` of the prompt; transformers targets).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Protocol

import numpy as np

from ghostbook.models.backend import Drafts, Evaluation

DRAFT_TOKENS = 4  # tokens proposed at first; +2 after a draft kept whole, -1 after one cut short
DRAFT_MAX = 16
LOOKUP_MAX = 4  # the longest tail of the text looked up in the prompt
LOOKUP_MIN = 3  # the shortest (shorter tails match too often to pay for the check: bench speculative)


def lookup(context: Sequence[int], k: int, longest: int = LOOKUP_MAX, shortest: int = LOOKUP_MIN) -> list[int]:
    """Prompt lookup: the last n tokens of `context` (n from `longest` down to `shortest`) found earlier in
    it, latest occurrence first; the at most `k` tokens that followed them there, or [] where none is found."""
    seq = np.asarray(context, dtype=np.int64)
    size = len(seq)
    for n in range(min(longest, size - 1), shortest - 1, -1):
        tail = seq[size - n :]
        # candidate starts: where the tail's first token occurs, before the tail itself
        starts = np.flatnonzero(seq[: size - n] == tail[0])
        for start in starts[::-1]:
            if np.array_equal(seq[start : start + n], tail):
                follow = seq[start + n : start + n + k]
                if len(follow):
                    return [int(t) for t in follow]
    return []


class DraftModel:
    """A small model's greedy continuation, from its own `Evaluation` of the same prompt (its KV cache
    keeps what consecutive drafts share)."""

    def __init__(self, model: Evaluation) -> None:
        self.model = model

    def propose(self, done: Sequence[int], k: int) -> list[int]:
        draft: list[int] = []
        for _ in range(k):
            draft.append(int(np.argmax(self.model.logits([[*done, *draft]])[0])))
        return draft


class Run(Protocol):
    """What greedy needs of `decoding.search.Run` (the model, the end tokens, the cancel flag, emit)."""

    @property
    def model(self) -> Evaluation: ...
    @property
    def ends(self) -> Collection[int]: ...
    @property
    def cancelled(self) -> Callable[[], bool]: ...

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray: ...

    def send(self, tokens: Sequence[int]) -> None: ...


def greedy(run: Run, drafts: Drafts, max_new: int, done: Sequence[int] = ()) -> None:
    """Greedy after `done` (tokens already emitted, no healing or line-start rule left to honour), at most
    `max_new` tokens, each draft checked in one evaluation."""
    done = list(done)
    model = DraftModel(drafts.model) if drafts.model is not None else None
    prompt = list(drafts.prompt)
    left, size = max_new, DRAFT_TOKENS
    while left > 0:
        if run.cancelled():
            return
        k = min(size, left - 1)
        draft = (model.propose(done, k) if model is not None else lookup([*prompt, *done], k)) if k else []
        rows = run.model.logits_along([*done, *draft], len(draft)) if draft else run.logits([done])
        kept = 0  # draft tokens greedy picked too
        for row in rows:
            token = int(np.argmax(row))
            if token in run.ends:
                return
            run.send([token])
            done.append(token)
            left -= 1
            if left == 0 or kept == len(draft) or token != draft[kept]:
                break
            kept += 1
        if draft:  # the draft's length follows how much of it is kept (Hugging Face's assisted schedule)
            size = min(size + 2, DRAFT_MAX) if kept == len(draft) else max(size - 1, 1)
