"""The notebook's own tokens as a second model, mixed into the network's next-token distribution.

A 3.4M-parameter model rarely writes again what the notebook wrote a few cells up (`G,` then `pos,`,
`ax2 = fig.add_subplot(` then `212)`), but notebooks repeat themselves. The copy model (a cache
language model over the prompt's tokens) looks for the longest run of tokens ending the text so far
(the prefix, then the branch being decoded) that the notebook also holds, at least `SHORTEST` long,
and predicts the tokens that followed that run there. Its distribution is mixed into the network's,
`weight(length)` of it, the longer the run the more: p = (1 - w) p_net + w p_copy.

`Mixed` wraps a backend's `Evaluation`, so every search of the first line (beam, greedy, speculative,
the copied lines' scores) reads the one mixed distribution. Pure numpy over the prompt's ids, no model
here.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

import numpy as np

from ghostbook.models.backend import Drafts, Evaluation, Reader

# runs shorter than this many tokens say nothing (one token is any name's next use)
SHORTEST = 2
# the copy model's share of the next token's distribution after a run `SHORTEST` long, more by `STEP`
# for each token longer, at most `TOP`. Notebook benchmark, validation split (414 tasks, default plan):
# exact 12.1% without, 12.6% at 0.1 / 0.05 / 0.5, 12.3% at 0.2 / 0.1 / 0.8 and 0.3 / 0.15 / 0.99,
# 12.1% at 0.5 / 0.1 / 0.95; empty 7.0% -> 5.6%, character similarity 0.317 -> 0.333.
BASE, STEP, TOP = 0.1, 0.05, 0.5


def weight(length: int) -> float:
    """How much of the next token's distribution the copy model gets after a run `length` tokens long."""
    return 0.0 if length < SHORTEST else min(TOP, BASE + STEP * (length - SHORTEST))


class CopyModel:
    """Next-token predictions from the notebook's tokens: `context` is the prefix (ending at the
    cursor, as the prompt has it), `suffix` the text after it; a run is matched anywhere in either
    (not across the cursor). A branch's run is found from its parent's (a beam grows each branch by
    one token), so most predictions cost a comparison over the few places the run was found."""

    def __init__(self, context: Sequence[int], suffix: Sequence[int]) -> None:
        self.context = list(context)
        self.tokens = np.asarray([*context, -1, *suffix, -1], dtype=np.int64)
        # where a run may end: a token followed by another (not the cursor, not the end)
        self._ends = np.flatnonzero(self.tokens[1:] >= 0)
        self._runs: dict[tuple[int, ...], tuple[np.ndarray, int]] = {}

    def predict(self, branch: Sequence[int]) -> tuple[float, np.ndarray, np.ndarray] | None:
        """The copy model after the context and `branch`: (mixture weight, token ids, their
        probabilities), or None where no run `SHORTEST` long matches."""
        at, length = self._run(tuple(branch))
        w = weight(length)
        if w <= 0:
            return None
        ids, counts = np.unique(self.tokens[at + 1], return_counts=True)
        return w, ids, counts / counts.sum()

    def _run(self, branch: tuple[int, ...]) -> tuple[np.ndarray, int]:
        """Where the longest run ending the context and `branch` ends in the notebook, and its length."""
        found = self._runs.get(branch)
        if found is not None:
            return found
        parent = self._runs.get(branch[:-1]) if branch else None
        if parent is not None and parent[1] > 0:  # the parent's run, one token longer, where it goes on so
            at = parent[0]
            at = at[self.tokens[at + 1] == branch[-1]] + 1
            at = at[self.tokens[at + 1] >= 0]
            if len(at):
                found = (at, parent[1] + 1)
        if found is None:
            found = self._search([*self.context, *branch])
        self._runs[branch] = found
        return found

    def _search(self, text: list[int]) -> tuple[np.ndarray, int]:
        arr = self.tokens
        at = self._ends[arr[self._ends] == text[-1]] if text else self._ends[:0]
        if not len(at):
            return at, 0
        length = 1
        for k in range(2, len(text) + 1):
            starts = at - (k - 1)
            ok = starts >= 0
            ok[ok] = arr[starts[ok]] == text[-k]
            if not ok.any():
                break
            at, length = at[ok], k
        return at, length


def mix(row: np.ndarray, predicted: tuple[float, np.ndarray, np.ndarray] | None) -> np.ndarray:
    """`row` (logits) with `predicted` mixed in: log-probabilities, or `row` itself where there is nothing
    to mix."""
    if predicted is None:
        return row
    x = np.asarray(row, dtype=np.float64)
    m = float(x.max())
    lp = x - m - math.log(float(np.exp(x - m).sum()))
    w, ids, probs = predicted
    ids_ok = ids < len(lp)
    ids, probs = ids[ids_ok], probs[ids_ok]
    out = lp + math.log1p(-w)
    out[ids] = np.logaddexp(out[ids], math.log(w) + np.log(probs))
    return out


class Mixed:
    """An `Evaluation` whose logits are the network's mixed with a `CopyModel`'s predictions on the
    suggestion's first line; after a token in `breaks` (one that holds a newline) the network's alone: a
    copy model goes on copying the notebook's lines, line after line."""

    def __init__(self, model: Evaluation, copies: CopyModel, breaks: Collection[int]) -> None:
        self.inner = model
        self.copies = copies
        self.breaks = breaks

    def _predict(self, branch: Sequence[int]) -> tuple[float, np.ndarray, np.ndarray] | None:
        """The copy model's tokens that go on the line (where the line ends, and whether the
        suggestion ends there, is the network's call: the notebook always went on)."""
        if any(t in self.breaks for t in branch):
            return None
        predicted = self.copies.predict(branch)
        if predicted is None:
            return None
        w, ids, probs = predicted
        keep = np.array([t not in self.breaks for t in ids.tolist()])
        return (w, ids[keep], probs[keep] / probs[keep].sum()) if keep.any() else None

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        rows = self.inner.logits(branches)
        return np.stack([mix(row, self._predict(b)) for row, b in zip(rows, branches, strict=True)])

    def logits_along(self, branch: Sequence[int], n: int) -> np.ndarray:
        rows = self.inner.logits_along(branch, n)
        start = len(branch) - n
        return np.stack([mix(row, self._predict(branch[: start + i])) for i, row in enumerate(rows)])

    def reader(self) -> Reader | None:
        return self.inner.reader()

    def drafts(self) -> Drafts | None:
        return self.inner.drafts()
