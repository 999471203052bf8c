"""Lines copied from the notebook (`completion.candidates`), ranked with the beam's line by the
model's own log-probability (#16.4).

Each candidate is the rest of the cursor's line as token ids (the healed bytes first). Its score is
what the beam's lines are scored by: the summed log-probability of its tokens after the prompt, plus
that of the line ending there (a token that starts with a newline, or the end of the middle), read in
one evaluation per candidate (`Evaluation.logits_along`). A candidate must keep the line rules the
beam keeps (not a line to avoid, indented where a line may start, fitting the cell's syntax) and wins
where its score plus `COPY_BONUS` (less `RANK_COST` per place down the candidates' order) beats the
beam's line, scored the same way (a line the budget cut open as far as it goes: an upper bound of
any line it becomes), and says more than it. A copy that wins is the whole suggestion: lines after
it, which the model was not writing, would be its guesswork; so is a beam's line that is a copy's.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from ghostbook.decoding.beam import log_softmax
from ghostbook.decoding.lines import LineRules
from ghostbook.decoding.tokens import TokenIndex
from ghostbook.models.backend import Evaluation

# Nats added to a copied line's log-probability: the notebook's own text is evidence the 3.4M model
# weighs far too little. `RANK_COST`: nats taken off per place down the candidates' order (the order
# `completion.candidates` found them in: nearest, best-founded first). Tuned on the notebook
# benchmark's validation split (docs/benchmarks.md, "Tuned constants" and "How the rules add up"); a
# bounded bonus keeps the model a veto over a copy it finds absurd.
COPY_BONUS = 32.0
RANK_COST = 8.0


def line_score(model: Evaluation, index: TokenIndex, ends: Collection[int], tokens: Sequence[int],
               closed: bool = True) -> float:
    """The log-probability of `tokens` after the prompt and, if `closed`, of the line ending after them
    (the likeliest token that starts a new line, or the end of the middle)."""
    if not tokens:
        return -np.inf
    rows = model.logits_along(tokens, len(tokens))
    total = sum(float(log_softmax(rows[i])[token]) for i, token in enumerate(tokens))
    if not closed:
        return total
    last = log_softmax(rows[len(tokens)])
    enders = [*index.newlines, *(t for t in ends if t < len(last))]
    return total + (float(last[enders].max()) if enders else 0.0)


def keeps_rules(text: bytes, rules: LineRules) -> bool:
    """Whether a candidate line (bytes after the healed ones) keeps the beam's line rules."""
    if text.rstrip() in rules.avoid:
        return False
    if rules.indent is not None and rules.indent.allows(text) is False:
        return False
    return rules.syntax is None or rules.syntax.fits(text)


@dataclass(frozen=True)
class Choice:
    """A copied line that won: its `tokens`, whether the beam wrote that line itself (`agreed`), by how
    many nats its score (bonus and rank cost included) beat the beam's line (`margin`; inf where the
    beam had nothing to say), and how many candidates kept the rules (`offered`)."""

    tokens: list[int]
    agreed: bool
    margin: float
    offered: int
    per_token: float = 0.0  # the copy's log-probability per token (its line end included)
    runner_up: float = np.inf  # nats its score (rank cost included) beat the next candidate's by


def choose(model: Evaluation, index: TokenIndex, ends: Collection[int], line: list[int],
           copies: Sequence[Sequence[int]], heal: bytes, rules: LineRules, open_line: bool,
           cancelled: Callable[[], bool] = lambda: False) -> list[int] | None:
    """The best copied line's tokens if it scores higher than the beam's `line` (`COPY_BONUS` to the
    copies), else None. `open_line`: the beam's budget cut its line open (scored as far as it goes;
    then a longer copy is scored on as many tokens)."""
    chosen = choice(model, index, ends, line, copies, heal, rules, open_line, cancelled)
    return None if chosen is None else chosen.tokens


def choice(model: Evaluation, index: TokenIndex, ends: Collection[int], line: list[int],
           copies: Sequence[Sequence[int]], heal: bytes, rules: LineRules, open_line: bool,
           cancelled: Callable[[], bool] = lambda: False) -> Choice | None:
    """`choose`, with what the choice was made on."""
    pieces = index.pieces
    kept = [list(c) for c in copies if c and _text(pieces, c).startswith(heal)
            and keeps_rules(_text(pieces, c)[len(heal):], rules)]
    if not kept:
        return None
    text = b"".join(pieces[t] for t in line)
    said = text.split(b"\n", 1)[0][len(heal):].rstrip()
    if said and (same := next((c for c in kept if _text(pieces, c)[len(heal):].rstrip() == said), None)):
        # the beam wrote the notebook's line itself: it is the whole suggestion all the same
        return Choice(same, True, np.inf, len(kept))
    kept = [c for c in kept if not said.startswith(_text(pieces, c)[len(heal):].rstrip()) or not said]
    if not kept:  # the beam's line already says what each copy says, and more
        return None
    own = list(line)
    if not open_line and own and b"\n" in pieces[own[-1]] and not pieces[own[-1]].strip():
        own = own[:-1]  # scored as a line with its end, like the copies
    if not said.strip() or not own or (not open_line and not keeps_rules(said, rules)):
        beam_score = -np.inf  # the beam has nothing to say here, or only a line it keeps for want of one
    else:
        beam_score = line_score(model, index, ends, own, closed=not open_line)
    scored: list[tuple[float, int, list[int]]] = []  # (score less rank cost, tokens scored, copy)
    for rank, copy in enumerate(kept):
        if cancelled():
            return None
        # a line cut open is scored as far as it goes, and so is a longer copy (as many tokens): else
        # a short open line (`displot(`) beat every whole line the notebook had (`load_dataset("diamonds")`)
        cut = bool(open_line and own) and len(copy) > len(own)
        part = copy[: len(own)] if cut else copy
        scored.append((line_score(model, index, ends, part, closed=not cut) - RANK_COST * rank, len(part), copy))
    ranked = sorted(scored, key=lambda item: -item[0])
    if not ranked or ranked[0][0] + COPY_BONUS <= beam_score:
        return None
    best, n_read, winner = ranked[0]
    runner_up = best - ranked[1][0] if len(ranked) > 1 else np.inf
    per_token = (best + RANK_COST * kept.index(winner)) / (n_read + 1)
    return Choice(winner, False, best + COPY_BONUS - beam_score, len(kept), per_token, runner_up)


def _text(pieces: Sequence[bytes], tokens: Sequence[int]) -> bytes:
    return b"".join(pieces[t] for t in tokens)
