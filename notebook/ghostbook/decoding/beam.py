"""Beam search for the first line of a completion.

Greedy decoding of a small model often takes a likely first token and then runs on into a long,
repetitive line; the whole line it writes is then much less likely than a short, plain one. A narrow
beam over the first line (scored by its total log-probability, ended by a newline or end-of-text)
finds the likelier line at a few times greedy's cost, which a line of ~10 tokens can afford.

The search is backend-neutral: each step asks the model (`models.backend.Evaluation.logits`) for the
next-token logits of every live hypothesis at once (the KV cache keeps what they share). What a line
must respect comes as one object (`LineSearch`, with its `LineRules`), not a parameter per rule.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from ghostbook.decoding.lines import LineRules
from ghostbook.decoding.tokens import TokenIndex

# The beam searches at most this many tokens for a line (a Python line is ~5-20 tokens here); a line
# still open then goes on greedily, streamed, instead of keeping the user waiting for a whole budget.
LINE_BUDGET = 32
# Each hypothesis looks this many times `width + 1` tokens deep for ones the rules (healing aside) let
# through, so that lines the rules drop do not empty the beam.
RANKED = 8
# Where a line must fit the code around it and the likeliest does not, the search goes on at most this
# many steps for one that does (a cell with a syntax error elsewhere fits nothing: that is its cost).
FIT_STEPS = 8
# With a `rank`, this many of the likeliest distinct finished lines are ranked once more (at beam 8, 4
# lines: 13.2% line-start exact match, 8 lines: 14.1%, for ~12% more time).
RANK_LINES = 8
# Where the end competes with a further line (`beam_line`'s `stop`), this many nats are taken off its
# log-probability: trained mostly on one-line spans, the model ends a middle after one line far more
# often than code does. HumanEval multi-line, the reference's first k lines written, every 2nd task:
# the next step right (the reference's next line, or the end after its last) 147 of 379 at 0, 155 at
# 2-6, 146 at 8; on three disjoint thirds 4 is never worse than 0 (50/51/54 against 48/52/47).
END_COST = 4.0


def goes_on(line: Sequence[int], text: bytes, budget: int, max_new: int, single_line: bool) -> bool:
    """After a beam found `line` (`text`: its bytes after the healed ones) within `budget` tokens,
    whether generation goes on greedily: the beam's budget cut the line open, or it ended and more
    lines are wanted; not when the middle ended (end of text) or `max_new` is spent."""
    if not line or len(line) >= max_new:
        return False
    if b"\n" in text:
        return not single_line
    return len(line) >= budget


@dataclass
class Clock:
    """A search's time budget: `deadline` (`time.perf_counter()` seconds; None: no limit). A search that
    runs out stops and returns the best it has; `cut` says it returned a line still open (the caller
    goes on greedily from it)."""

    deadline: float | None = None
    cut: bool = False

    @classmethod
    def budget(cls, ms: float) -> Clock:
        """A clock that runs out `ms` from now (0 or less: never)."""
        return cls(time.perf_counter() + ms / 1000 if ms > 0 else None)

    def over(self, step: float = 0.0) -> bool:
        """Whether the deadline has passed, or would before another `step` (seconds) ends."""
        return self.deadline is not None and time.perf_counter() + step >= self.deadline


Logits = Callable[[Sequence[Sequence[int]]], np.ndarray]  # branches -> one row of next-token logits each
Rank = Callable[[Sequence[bytes]], Sequence[float]]


@dataclass(frozen=True)
class LineSearch:
    """One beam search for a line: `width` hypotheses, at most `max_new` tokens. `heal`: bytes the output
    must start with (token healing), not counted as the line's text. `allow_empty`: whether a line with
    nothing but whitespace may win (not where the cursor's line is still blank: an empty answer there
    says nothing). `stop`: ending before the line (an end token first, whatever `heal` asks, its
    log-probability less `END_COST`) is a candidate too, checked and ranked as an empty insertion; it
    wins as `[]` (a suggestion's further lines, whose `heal` is the newline that starts them).
    `rules`: what the line must respect (`decoding.lines.LineRules`). `clock`: the time the search may
    take (it stops after the step that runs past it, and ranks nothing then)."""

    width: int = 3
    max_new: int = 48
    heal: bytes = b""
    allow_empty: bool = True
    stop: bool = False
    rules: LineRules = field(default_factory=LineRules)
    clock: Clock = field(default_factory=Clock)


@dataclass(frozen=True)
class Hypothesis:
    tokens: tuple[int, ...]
    score: float  # total log-probability
    required: bytes  # healing bytes still to spell
    text: bytes  # generated bytes after the healed ones


def log_softmax(logits: np.ndarray) -> np.ndarray:
    x = np.asarray(logits, dtype=np.float64)
    m = float(x.max())
    return x - m - float(np.log(np.exp(x - m).sum()))


def _ranked(scores: np.ndarray, ids: Sequence[int] | None, k: int) -> list[int]:
    """The `k` best-scoring token ids (among `ids` if given), best first."""
    cand = np.arange(len(scores)) if ids is None else np.asarray(ids)
    if len(cand) > k:
        cand = cand[np.argpartition(-scores[cand], k - 1)[:k]]
    return [int(i) for i in cand[np.argsort(-scores[cand], kind="stable")]]


def beam_line(logits: Logits, index: TokenIndex, ends: Collection[int], search: LineSearch,
              rank: Rank | None = None, cancelled: Callable[[], bool] = lambda: False) -> list[int] | None:
    """The likeliest line's tokens (its last token holds the newline; an end token, one of `ends`, is not
    included), among those a beam of `search.width` finds; None once `cancelled`. `logits(branches)`:
    the next-token logits after the prompt and each branch.

    A line `search.rules.avoid`s may not win; one indented where `rules.indent` rejects it is dropped as
    it forms; of finished lines the likeliest that `rules.syntax` fits wins (the search goes on up to
    `FIT_STEPS` steps to find one), else the likeliest. `rank`: extra scores for candidate lines (each as
    the editor would insert it: healed bytes first, no newline; `decoding.reading`); the `RANK_LINES`
    likeliest distinct finished lines (those that fit, if any does) are ranked by their score plus
    `rank`'s, and the best wins (unless none fits and the budget cut a line likelier than all of them:
    that line goes on, as without `rank`). Once `search.clock` runs out, the best so far wins the same
    way, unranked, except that a line still open and likelier than every finished one wins wherever the
    cell can still fit what it has written (`clock.cut`: greedy writes the rest)."""
    width, heal, allow_empty, stop = search.width, search.heal, search.allow_empty, search.stop
    avoid, indent = search.rules.avoid, search.rules.indent
    fits = search.rules.syntax.fits if search.rules.syntax is not None else None
    live = [Hypothesis((), 0.0, heal, b"")]
    best: Hypothesis | None = None
    best_fit: Hypothesis | None = None
    finished: list[Hypothesis] = []  # lines finished in this step, for `fits`
    every: list[Hypothesis] = []  # all finished lines, for `rank`
    extra = 0  # steps searched for a line that fits after the likeliest line was found
    stopped: Hypothesis | None = None  # with `stop`: the end, before any line
    clock, late = search.clock, False
    clock.cut = False
    began = time.perf_counter()
    for _ in range(search.max_new):
        grown: list[Hypothesis] = []
        if cancelled():
            return None
        rows = logits([hyp.tokens for hyp in live])  # one model call for the whole beam
        for hyp, row in zip(live, rows, strict=True):
            scores = log_softmax(row)
            if stop and not hyp.tokens:  # the end competes once the lines are found, not while they are sought
                known = [t for t in ends if t < len(scores)]
                stopped = Hypothesis((), max(float(scores[t]) for t in known) - END_COST, b"", b"") if known else None
            allowed = index.allowed(hyp.required) if hyp.required else None
            if allowed is not None and not allowed:  # no token spells it: drop the constraint, as greedy does
                hyp, allowed = Hypothesis(hyp.tokens, hyp.score, b"", hyp.text), None
            kept = 0  # each hypothesis offers its width + 1 best tokens that the rules let through
            for tok in _ranked(scores, allowed, RANKED * (width + 1)):
                if kept > width:
                    break
                score = hyp.score + float(scores[tok])
                if tok in ends:  # the line ends here, where its start may end (`plt.pl` may not)
                    ends_well = indent is None or not hyp.text.strip() or indent.allows(hyp.text + b"\n") is not False
                    if allowed is None and (allow_empty or hyp.text.strip()) and hyp.text.rstrip() not in avoid \
                            and ends_well:
                        done = Hypothesis(hyp.tokens, score, b"", hyp.text)
                        best = _better(best, done)
                        finished.append(done)
                        kept += 1
                    continue
                piece = index.pieces[tok]
                required = index.advance(hyp.required, piece) if hyp.required else b""
                spelled = len(hyp.required) - len(required) if hyp.required else 0
                text = hyp.text + piece[spelled:]
                if indent is not None and indent.allows(text) is False:
                    continue
                new = Hypothesis((*hyp.tokens, tok), score, required, text)
                if b"\n" in text:
                    line = text.split(b"\n", 1)[0]
                    if (allow_empty or line.strip()) and line.rstrip() not in avoid:
                        best = _better(best, new)
                        finished.append(new)
                        kept += 1
                    continue
                grown.append(new)
                kept += 1
        live = sorted(grown, key=lambda h: -h.score)[:width]
        every += finished
        if fits is not None:
            for hyp in finished:  # only a line likelier than the best fitting one needs parsing
                if (best_fit is None or hyp.score > best_fit.score) and fits(hyp.text.split(b"\n", 1)[0]):
                    best_fit = hyp
        finished.clear()
        # scores only fall as a line grows: once the best finished line beats every live one, stop; where
        # lines must fit, search on for one that does, but only FIT_STEPS steps more
        if not live or (best_fit is not None and best_fit.score >= live[0].score):
            break
        if best is not None and best.score >= live[0].score:
            if fits is None or extra == FIT_STEPS:
                break
            extra += 1
        now = time.perf_counter()
        if clock.over(now - began):  # no time for another step like this one
            late = True
            break
        began = now
    if stopped is not None:
        every.append(stopped)
        best = _better(best, stopped)
        if fits is not None and (best_fit is None or stopped.score > best_fit.score) and fits(b""):
            best_fit = stopped
    cut_open = bool(live) and (best is None or live[0].score > best.score)  # the budget cut a likelier line
    if rank is not None and every and (best_fit is not None or not cut_open) and not late:
        ranked = _rank(every, heal, fits, rank, cancelled, stop)
        return None if ranked is None else list(ranked.tokens)
    # out of time with a likelier line still open: it goes on (greedy writes the rest) if the cell can
    # still fit it and it is not on its way to a line to avoid (greedy would finish that line), rather
    # than a finished line that is only short (`s`, `i`, `print(`)
    if late and avoid and live and _toward(live[0].text.split(b"\n", 1)[0], avoid):
        # the likeliest open line is on its way to a line to avoid: the likeliest that is not goes on, where
        # it is nearly as likely (`TOWARD_MARGIN`) and likelier than every finished line
        floor = max(live[0].score - TOWARD_MARGIN, best.score if best is not None else -math.inf)
        other = next((h for h in live if h.score > floor and not _toward(h.text.split(b"\n", 1)[0], avoid)), None)
        if other is not None:
            live.remove(other)
            live.insert(0, other)
    opened = live[0].text.split(b"\n", 1)[0] if live else b""
    avoided = late and best is not None and _toward(opened, avoid)
    open_wins = late and cut_open and (fits is None or fits(opened)) and not avoided
    if best_fit is not None and not open_wins:
        return list(best_fit.tokens)
    if cut_open and not avoided:
        clock.cut = late
        return list(live[0].tokens)  # the budget cut a line likelier than any finished one
    return list(best.tokens) if best is not None else []


# how much less likely (natural log) an open line may be than the likeliest, on its way to a line to avoid,
# to go on in its place (`beam_line`, out of time)
TOWARD_MARGIN = math.log(10)


def _toward(opened: bytes, avoid: Collection[bytes]) -> bool:
    """Whether the open line `opened` is on its way to a line to avoid (greedy, finishing it, would
    likely write that line: at a cold start the budget cuts the beam after its first step, and the
    likeliest first token is often the start of the line below, copied)."""
    return any(line.startswith(opened) for line in avoid)


def _rank(lines: list[Hypothesis], heal: bytes, fits: Callable[[bytes], bool] | None, rank: Rank,
          cancelled: Callable[[], bool],
          stop: bool = False) -> Hypothesis | None:
    """The best of the `RANK_LINES` likeliest distinct `lines` (those that fit, if any does) by score plus
    `rank`'s score; None once `cancelled`. With `stop`, a line of no tokens is the end: it inserts nothing."""
    distinct: dict[bytes | None, Hypothesis] = {}
    for hyp in sorted(lines, key=lambda h: -h.score):
        key = None if stop and not hyp.tokens else hyp.text.split(b"\n", 1)[0].rstrip()
        if key not in distinct:
            distinct[key] = hyp
            if len(distinct) == RANK_LINES:
                break
    pool = list(distinct.values())
    if fits is not None:
        pool = [h for h in pool if fits(h.text.split(b"\n", 1)[0])] or pool
    if cancelled():
        return None
    extra = rank([b"" if stop and not h.tokens else heal + h.text.split(b"\n", 1)[0] for h in pool])
    return max(zip(pool, extra, strict=True), key=lambda pair: pair[0].score + pair[1])[0]


def _better(a: Hypothesis | None, b: Hypothesis) -> Hypothesis:
    return b if a is None or b.score > a.score else a
