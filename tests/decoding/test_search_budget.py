"""The beam's time budget (`DecodePlan.search_ms`, `decoding.beam.Clock`): past it the search returns the
best it has (a line still open goes on greedily), ranks nothing more, and a plan whose budget the prompt
already spent decodes exactly as greedy; a roomy budget changes nothing."""

from __future__ import annotations

import threading
import time

import numpy as np
from ghostbook.decoding import beam
from ghostbook.decoding.beam import Clock, LineSearch
from ghostbook.decoding.plan import DecodePlan
from ghostbook.decoding.tokens import TokenIndex
from ghostbook.models.backend import TokenOut
from ghostbook.models.llamacpp_backend import LlamaCppBackend

from tests.decoding.test_beam import EOT, PIECES, RUNAWAY, decode_table, humaneval_prompts, run, table_model


def test_a_clock_that_ran_out_stops_after_one_step_with_the_line_open() -> None:
    seek, calls = table_model(RUNAWAY)
    ranked: list[object] = []
    clock = Clock(time.perf_counter())  # already over
    line = beam.beam_line(lambda branches: np.stack([seek(b) for b in branches]), TokenIndex(PIECES, {EOT}), {EOT},
                          LineSearch(3, 12, clock=clock), lambda lines: ranked.append(lines) or [0.0] * len(lines))
    assert line == [1] and clock.cut  # greedy's first token, still open
    assert calls == [()] and not ranked  # one model call, nothing ranked


def test_no_clock_or_a_roomy_one_changes_nothing() -> None:
    seek, _ = table_model(RUNAWAY)
    index = TokenIndex(PIECES, {EOT})
    for clock in (Clock(), Clock.budget(60_000)):
        line = beam.beam_line(lambda branches: np.stack([seek(b) for b in branches]), index, {EOT},
                              LineSearch(3, 12, clock=clock))
        assert line == [2, 3] and not clock.cut


def test_a_spent_budget_decodes_as_greedy_and_a_roomy_one_as_the_beam() -> None:
    greedy = decode_table(RUNAWAY, DecodePlan(6))
    assert greedy[:3] == [1, 4, 4]
    spent = DecodePlan(6, beam=3, search_ms=1, made=time.perf_counter() - 1)
    assert decode_table(RUNAWAY, spent) == greedy
    assert decode_table(RUNAWAY, DecodePlan(6, beam=3, search_ms=60_000))[:2] == [2, 3]


def test_shipped_model_spent_budget_is_greedy(shipped: LlamaCppBackend) -> None:
    """Through the llama.cpp backend: with the budget gone before the search starts, beam 8 writes what
    greedy writes; the decode returns promptly and is not cancelled."""
    for prompt in humaneval_prompts(shipped, 4):
        greedy = run(shipped, prompt, DecodePlan(16))
        out: list[TokenOut] = []
        plan = DecodePlan(16, beam=8, search_ms=1, made=time.perf_counter() - 1)
        stats = shipped.generate(prompt, plan, threading.Event().is_set, out.append)
        assert [t.id for t in out] == greedy and not stats.cancelled


def test_a_keystroke_stops_the_prompt_within_a_few_tokens(shipped: LlamaCppBackend) -> None:
    """The cancel flag is read every `PROMPT_CHUNK` (16) prompt tokens (~5 ms on a small CPU), so a newer
    request waits for at most one such chunk: cancelled at the second look, at most 32 tokens were read."""
    from ghostbook.models.llamacpp_backend import PROMPT_CHUNK

    prompt = max(humaneval_prompts(shipped, 4), key=len)
    assert len(prompt) > 64
    shipped.forget()
    looks = [0]

    def cancelled() -> bool:
        looks[0] += 1
        return looks[0] > 2

    stats = shipped.generate(prompt, DecodePlan(16, beam=8), cancelled, lambda token: None)
    assert stats.cancelled and stats.generated == 0
    assert max(len(held) for held in shipped._seqs.held) <= 32 and PROMPT_CHUNK <= 16
    shipped.forget()


class StepClock(Clock):
    """A clock that runs out at the end of the search's `steps`-th step (deterministic, no timing)."""

    def __init__(self, steps: int) -> None:
        super().__init__(deadline=0.0)
        self.left = steps

    def over(self, step: float = 0.0) -> bool:
        self.left -= 1
        return self.left <= 0


# "b\n" (0.36) finishes at step 2 while "ax" (0.54) is still open and likelier; "ax\n" (0.49) wins in time
SHORT_OR_OPEN = {(): {1: 0.6, 2: 0.4}, (1,): {4: 0.9, 3: 0.05}, (1, 4): {3: 0.9}, (2,): {3: 0.9}}


def test_out_of_time_a_likelier_open_line_beats_a_short_finished_one_if_it_can_still_fit() -> None:
    """Out of time, the likeliest line so far goes on (greedy writes the rest) rather than a line that won
    only by being short (`x = np.` -> `i`, `print(` -> `s`), unless the cell cannot fit what it has written."""
    seek, _ = table_model(SHORT_OR_OPEN)
    index = TokenIndex(PIECES, {EOT})

    def line(fits: object) -> tuple[list[int] | None, bool]:
        from tests.decoding.test_beam import Fits

        clock = StepClock(2)
        rules = beam.LineRules(frozenset(), None, Fits(fits))  # type: ignore[arg-type]
        got = beam.beam_line(lambda branches: np.stack([seek(b) for b in branches]), index, {EOT},
                             LineSearch(3, 12, rules=rules, clock=clock))
        return got, clock.cut

    assert line(lambda text: True) == ([1, 4], True)  # "ax" goes on
    assert line(lambda text: not text.startswith(b"a")) == ([2, 3], False)  # "a..." cannot fit: "b" wins
    no_clock = beam.beam_line(lambda branches: np.stack([seek(b) for b in branches]), index, {EOT},
                              LineSearch(3, 12))
    assert no_clock == [1, 4, 3]  # with time the open line finishes and wins


def test_out_of_time_an_open_line_on_its_way_to_a_line_to_avoid_does_not_go_on() -> None:
    """Greedy would finish an open line into the line the rules avoid (the line below, copied), which the
    filters then drop whole: the finished line wins instead."""
    seek, _ = table_model(SHORT_OR_OPEN)
    index = TokenIndex(PIECES, {EOT})

    def line(avoid: frozenset[bytes]) -> tuple[list[int] | None, bool]:
        clock = StepClock(2)
        got = beam.beam_line(lambda branches: np.stack([seek(b) for b in branches]), index, {EOT},
                             LineSearch(3, 12, rules=beam.LineRules(avoid), clock=clock))
        return got, clock.cut

    assert line(frozenset({b"other"})) == ([1, 4], True)  # "ax" goes on
    assert line(frozenset({b"axe"})) == ([2, 3], False)  # "ax..." may become "axe": "b" wins


def test_cut_after_its_first_step_the_beam_goes_on_with_an_open_line_not_on_its_way_to_one_to_avoid() -> None:
    """At a cold start the prompt's reading spends the budget, so the beam is cut after one step and greedy
    finishes its likeliest open line. Where that line starts the line below (copied whole, then dropped by
    the final filters), a nearly as likely open line goes on instead: "b", not "a" on its way to "ax"."""
    index = TokenIndex(PIECES, {EOT})

    def line(table: dict[tuple[int, ...], dict[int, float]], avoid: frozenset[bytes]) -> tuple[list[int] | None, bool]:
        seek, _ = table_model(table)
        clock = StepClock(1)
        got = beam.beam_line(lambda branches: np.stack([seek(b) for b in branches]), index, {EOT},
                             LineSearch(3, 12, rules=beam.LineRules(avoid), clock=clock))
        return got, clock.cut

    assert line(SHORT_OR_OPEN, frozenset({b"other"})) == ([1], True)  # "a" goes on, the likeliest
    assert line(SHORT_OR_OPEN, frozenset({b"ax"})) == ([2], True)  # "a" is on its way to "ax": "b" goes on
    # both are on their way to a line to avoid, or the other is far less likely: as before, the finished
    # line (here the empty one) wins over an open line on its way to one to avoid
    assert line(SHORT_OR_OPEN, frozenset({b"ax", b"b"})) == ([], False)
    assert line({(): {1: 0.97, 2: 0.03}, (1,): {4: 0.9}, (2,): {3: 0.9}}, frozenset({b"ax"})) == ([], False)
