"""Speculative edits: a rewrite of a cell decoded greedily with the original text as the draft.

An edit model answers with the whole new cell, and most of it is the original, unchanged. `EditSearch`
drafts the original's tokens (`speculative.OriginalDraft`, re-anchored after each changed stretch) and
checks each draft in one model evaluation, so an unchanged stretch costs one call instead of one per
token; the tokens are plain greedy's (`speculative.greedy`). It is the `models.backend.Search` a backend
runs after the chat prompt (`models.chat_template`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ghostbook.decoding import speculative
from ghostbook.decoding.search import Run
from ghostbook.decoding.speculative import NoDraft, OriginalDraft, Sizes
from ghostbook.decoding.tokens import index_of
from ghostbook.models.backend import Drafts, Emit, Evaluation, Reader, TokenOut, Vocab

# Edits draft long, up to this many tokens; `speculative.OriginalDraft` sets each draft's length from how
# long the output has followed the original (`ghostbook bench edits`).
EDITS = Sizes(first=64, most=64, grow=0, shrink=0)


class Counted:
    """An `Evaluation` that counts the model evaluations made through it (`calls`)."""

    def __init__(self, model: Evaluation) -> None:
        self.model, self.calls = model, 0

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        self.calls += 1
        return self.model.logits(branches)

    def logits_along(self, branch: Sequence[int], n: int) -> np.ndarray:
        self.calls += 1
        return self.model.logits_along(branch, n)

    def reader(self) -> Reader | None:
        return self.model.reader()

    def drafts(self) -> Drafts | None:
        return self.model.drafts()


@dataclass
class EditSearch:
    """Greedy after an edit prompt (`models.backend.Search`), at most `max_new_tokens` tokens, ending at
    the vocabulary's special tokens (end of turn, end of text) and `stop_ids`. `speculative`: drafts
    from `draft_ids` (the answer the model would give if nothing changed: the original in its code
    fence) checked `sizes` at a time; off, plain greedy (one model call per token). After `run`: `calls`
    (the target model's evaluations) and `tokens` (tokens emitted)."""

    draft_ids: Sequence[int]
    max_new_tokens: int
    speculative: bool = True
    stop_ids: frozenset[int] = frozenset()
    sizes: Sizes = EDITS
    calls: int = field(default=0, init=False)
    tokens: int = field(default=0, init=False)

    def run(self, model: Evaluation, vocab: Vocab, cancelled: Callable[[], bool], emit: Emit) -> None:
        counted = Counted(model)
        self.calls = self.tokens = 0

        def send(token: TokenOut) -> None:
            self.tokens += 1
            emit(token)

        drafter = OriginalDraft(self.draft_ids) if self.speculative else NoDraft()
        run = Run(counted, index_of(vocab), vocab.special | self.stop_ids, cancelled, send)
        try:
            speculative.greedy(run, drafter, self.max_new_tokens, sizes=self.sizes)
        finally:
            self.calls = counted.calls
