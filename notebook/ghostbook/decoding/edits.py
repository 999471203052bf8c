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


Stop = Callable[[bytes], bool]  # fed each emitted token's bytes; True: the answer ends after this token


@dataclass
class EditSearch:
    """Greedy after an edit prompt (`models.backend.Search`), at most `max_new_tokens` tokens, ending at
    the vocabulary's special tokens (end of turn, end of text), `stop_ids` and where `stop` says the
    answer is whole (the editor's: its code block closed, `editing.render.AnswerEnd`; nothing after it
    is generated). `speculative`: drafts from `draft_ids` (the answer the model would give if nothing
    changed: the original in its code fence) checked `sizes` at a time; off, plain greedy (one model
    call per token). `calls` (the target model's evaluations) and `tokens` (tokens emitted) count as
    the search runs, so they are right whenever they are read."""

    draft_ids: Sequence[int]
    max_new_tokens: int
    speculative: bool = True
    stop_ids: frozenset[int] = frozenset()
    sizes: Sizes = EDITS
    stop: Stop | None = None
    tokens: int = field(default=0, init=False)
    _counted: Counted | None = field(default=None, init=False, repr=False)

    @property
    def calls(self) -> int:
        return self._counted.calls if self._counted is not None else 0

    def run(self, model: Evaluation, vocab: Vocab, cancelled: Callable[[], bool], emit: Emit) -> None:
        counted = self._counted = Counted(model)
        self.tokens = 0
        ended = False

        def send(token: TokenOut) -> None:
            nonlocal ended
            self.tokens += 1
            emit(token)
            ended = ended or (self.stop is not None and self.stop(token.piece))

        drafter = OriginalDraft(self.draft_ids) if self.speculative else NoDraft()
        run = Run(counted, index_of(vocab), vocab.special | self.stop_ids, lambda: ended or cancelled(), send)
        speculative.greedy(run, drafter, self.max_new_tokens, sizes=self.sizes)
