"""Speculative greedy decoding: the same tokens as greedy, fewer model calls where the text is predictable.

A `Drafter` proposes the next few tokens; one evaluation (`Evaluation.logits_along`) gives the model's
logits after each of them, and the longest prefix of the draft that greedy itself would have picked is
kept, plus greedy's own token where they part (or after the whole draft). The output is greedy's by
construction: every emitted token is the argmax of the logits after the tokens before it.

Drafters: prompt lookup (the last few tokens of the text so far found earlier in the prompt, i.e. the
notebook: the tokens that followed them there; copy-heavy edits repeat what is above), a draft model
(a small model's greedy tokens from its own `Evaluation` of the prompt; transformers targets), and the
original text of an edit (`OriginalDraft`: speculative edits, `decoding.edits`), re-anchored after each
place where the output leaves it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ghostbook.models.backend import Drafts, Evaluation

LOOKUP_MAX = 4  # the longest tail of the text looked up in the prompt
LOOKUP_MIN = 3  # the shortest (shorter tails match too often to pay for the check: bench speculative)
ANCHOR_MAX = 8  # the longest tail of an edit's output looked up in its original
ANCHOR_MIN = 2  # the shortest (one token is found anywhere; of several, the nearest wins)
START, RAMP, FLOOR = 16, 2, 1  # an edit's draft length (`OriginalDraft`; `ghostbook bench edits`)


@dataclass(frozen=True)
class Sizes:
    """How many tokens a draft holds: `first`, then `grow` more after a draft kept whole (at most `most`),
    `shrink` fewer after one cut short (at least 1)."""

    first: int
    most: int
    grow: int
    shrink: int

    def after(self, size: int, whole: bool) -> int:
        return min(size + self.grow, self.most) if whole else max(size - self.shrink, 1)


# completion: Hugging Face's assisted-generation schedule (a draft's length follows how much of it is kept)
COMPLETION = Sizes(first=4, most=16, grow=2, shrink=1)


class Drafter(Protocol):
    """Proposes at most `k` tokens to follow `done` (the tokens emitted so far)."""

    def propose(self, done: Sequence[int], k: int) -> list[int]: ...


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


class NoDraft:
    """Plain greedy: nothing is drafted, one model call per token."""

    def propose(self, done: Sequence[int], k: int) -> list[int]:
        return []


class PromptLookup:
    """What followed the output's last few tokens in the prompt (`lookup`)."""

    def __init__(self, prompt: Sequence[int]) -> None:
        self.prompt = list(prompt)

    def propose(self, done: Sequence[int], k: int) -> list[int]:
        return lookup([*self.prompt, *done], k)


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


class OriginalDraft:
    """An edit's original tokens as the draft. While the output follows the original, the draft is what
    comes next in it; where the output leaves it (a changed, added or removed stretch) the drafter
    re-anchors: it finds the output's last few tokens (`ANCHOR_MAX` down to `ANCHOR_MIN`, longest first)
    in the original, the occurrence nearest where the output was in the original, and drafts from just
    after it; where the tail is nowhere in the original (new text), it drafts nothing until it is.
    A draft is at most `RAMP` times as long as the stretch the output has followed the original since it
    last left it (the anchor's tail included; at the start `START`), at least `FLOOR`: a long draft is
    checked only where the output has shown it follows the original there."""

    def __init__(self, original: Sequence[int], longest: int = ANCHOR_MAX, shortest: int = ANCHOR_MIN) -> None:
        self.original = [int(t) for t in original]
        self._seq = np.asarray(self.original, dtype=np.int64)
        self.longest, self.shortest = longest, shortest
        self.at: int | None = 0  # where in the original the output stands (None: nowhere, new text)
        self.streak = START  # tokens the output has followed the original since it last left it
        self._near = 0  # where it stood last (ties among occurrences go to the nearest)
        self._seen = 0  # the output's length when `at` was last set

    def propose(self, done: Sequence[int], k: int) -> list[int]:
        if len(done) < self._seen:  # another output: start again
            self.at, self.streak, self._near, self._seen = 0, START, 0, 0
        new = done[self._seen :]
        if self.at is not None and self.original[self.at : self.at + len(new)] == list(new):
            self.at += len(new)  # still following the original
            self.streak += len(new)
        else:
            if self.at is not None:  # it left the original within `new`: about here, had it only changed
                self._near = self.at + len(new)
            self.at, self.streak = self.anchor(done, self._near)
        self._seen = len(done)
        if self.at is None:
            return []
        self._near = self.at
        return self.original[self.at : self.at + min(k, max(FLOOR, RAMP * self.streak))]

    def anchor(self, done: Sequence[int], near: int) -> tuple[int | None, int]:
        """Just after the occurrence in the original of `done`'s longest tail found there (nearest `near`
        among several; something must follow it), and the tail's length; (None, 0) where none is."""
        seq, size = self._seq, len(self._seq)
        for n in range(min(self.longest, len(done)), self.shortest - 1, -1):
            tail = np.asarray(done[len(done) - n :], dtype=np.int64)
            starts = np.flatnonzero(seq[: size - n] == tail[0])  # something follows the tail
            ends = [int(s) + n for s in starts if np.array_equal(seq[s : s + n], tail)]
            if ends:
                return min(ends, key=lambda end: (abs(end - near), -end)), n
        return None, 0


def drafter_of(drafts: Drafts) -> Drafter:
    """A backend's drafts (`Evaluation.drafts`): its draft model if it has one, else prompt lookup."""
    return DraftModel(drafts.model) if drafts.model is not None else PromptLookup(drafts.prompt)


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


def greedy(run: Run, drafter: Drafter | Drafts, max_new: int, done: Sequence[int] = (),
           sizes: Sizes = COMPLETION) -> None:
    """Greedy after `done` (tokens already emitted, no healing or line-start rule left to honour), at most
    `max_new` tokens, each of `drafter`'s drafts (a backend's `Drafts`: `drafter_of`) checked in one
    evaluation; a draft's length follows `sizes`."""
    if isinstance(drafter, Drafts):
        drafter = drafter_of(drafter)
    done = list(done)
    left, size = max_new, sizes.first
    while left > 0:
        if run.cancelled():
            return
        k = min(size, left - 1)
        draft = drafter.propose(done, k)[:k] if k else []
        rows = run.model.logits_along([*done, *draft], len(draft)) if draft else run.logits([done])
        kept = 0  # draft tokens greedy picked too
        for row in rows:
            token = int(np.argmax(row))
            if token in run.ends:
                return
            run.send([token])
            done.append(token)
            left -= 1
            if left == 0 or kept == len(draft) or token != draft[kept] or run.cancelled():
                break  # (cancelled: also an edit answer's end, `decoding.edits.EditSearch`'s `stop`)
            kept += 1
        if draft:
            size = sizes.after(size, kept == len(draft))
