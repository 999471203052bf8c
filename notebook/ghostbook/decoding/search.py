"""The parts of the decoding after the prompt (`plan.decode` puts them together): greedy with the
healing constraint, and the lines after a beam's first one by one (each a beam under the rules made
where it stands).

Everything here reaches the model through `models.backend.Evaluation` (logits for several branches at
once); the backend runs it in its worker thread and streams what `emit` gets.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from ghostbook.decoding.beam import LINE_BUDGET, LineSearch, Logits, Rank, beam_line
from ghostbook.decoding.lines import LEAD, FurtherLines
from ghostbook.decoding.reading import ReadCheck
from ghostbook.decoding.tokens import TokenIndex
from ghostbook.models.backend import Emit, Evaluation, TokenOut


@dataclass(frozen=True)
class Run:
    """One decoding's fixed parts: the model, the vocabulary's index, the end tokens, the cancel flag and
    where tokens go."""

    model: Evaluation
    index: TokenIndex
    ends: Collection[int]
    cancelled: Callable[[], bool]
    emit: Emit

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        return self.model.logits(branches)

    def after(self, done: Sequence[int]) -> Logits:
        """`logits` for branches that follow `done`."""
        return lambda branches: self.model.logits([[*done, *b] for b in branches])

    def ranker(self, reading: ReadCheck | None) -> Rank | None:
        if reading is None:
            return None
        reader = self.model.reader()
        if reader is None:
            return None
        return lambda lines: reading.scores(reader, lines)

    def send(self, tokens: Sequence[int]) -> None:
        for token in tokens:
            self.emit(TokenOut(token, self.index.pieces[token]))


def greedy(run: Run, max_new: int, heal: bytes = b"", done: Sequence[int] = ()) -> None:
    """After `done` (tokens already emitted), pick the best token (among those spelling `heal` while it
    lasts), emit, feed it back; at most `max_new` tokens."""
    required, done, index = heal, list(done), run.index
    for _ in range(max_new):
        if run.cancelled():
            return
        scores = run.logits([done])[0]
        allowed = index.allowed(required) if required else []
        if allowed:
            token = allowed[int(np.argmax(scores[allowed]))]
            required = index.advance(required, index.pieces[token])
        else:
            required = b""
            token = int(np.argmax(scores))
        if token in run.ends:
            return
        run.send([token])
        done.append(token)


def beam_lines(run: Run, width: int, max_new: int, lines: FurtherLines, line: list[int],
               budget: int) -> list[int] | None:
    """Line-by-line decoding after the beam's first `line` (found within `budget` tokens): emit a whole
    line without its newline token, then let a beam of `width` find what follows it under `lines`' rules made
    there: the end (`LineSearch.stop`) or a line that starts with a newline, ranked alike; repeat. A line
    the model ended (end of text) goes on the same way: whether more follows is the next search's to
    decide, with the end's cost (`decoding.beam.END_COST`). Returns the tokens emitted where the beam's
    budget left a line open (greedy goes on after them), else None; at most `max_new` tokens."""
    done: list[int] = []  # tokens emitted
    while (head := whole_line(line, run.index, budget)) is not None:
        run.send(line[:head])
        done += line[:head]
        left = max_new - len(done)
        if left <= 1 or run.cancelled():
            return None
        rules = lines.after(b"".join(run.index.pieces[t] for t in done))
        budget = min(left, LINE_BUDGET)
        search = LineSearch(width, budget, LEAD, allow_empty=False, stop=True, rules=rules)
        found = beam_line(run.after(tuple(done)), run.index, run.ends, search, run.ranker(rules.reading),
                          run.cancelled)
        if not found:  # cancelled, or the end won
            return None
        line = found
    # the budget cut the line open (greedy goes on), or its tokenizer glues text to the newline
    run.send(line)
    return [*done, *line]


def whole_line(line: Sequence[int], index: TokenIndex, budget: int) -> int | None:
    """Where a beam's `line` (found within `budget` tokens) ends as a whole line: before its last token
    if that is only a newline and spaces, at its end if the model ended it (no newline, within the
    budget); None if the budget cut it open or its last token glues text to a newline."""
    if not line:
        return None
    piece = index.pieces[line[-1]]
    if b"\n" in piece:
        return len(line) - 1 if not piece.strip() else None
    return len(line) if len(line) < budget else None

