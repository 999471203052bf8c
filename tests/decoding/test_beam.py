"""Beam search for a line and the decoding around it: the algorithm on a small hand-made distribution,
then through the llama.cpp and transformers backends on real models (the shipped default and the tiny
random one)."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np
import pytest
from ghostbook.decoding import beam, search
from ghostbook.decoding import plan as plan_module
from ghostbook.decoding.beam import FIT_STEPS, RANK_LINES, LineSearch, log_softmax
from ghostbook.decoding.indentation import StartRule
from ghostbook.decoding.lines import LEAD, LineRules
from ghostbook.decoding.plan import DecodePlan
from ghostbook.decoding.plan import decode as plan_decode
from ghostbook.decoding.tokens import TokenIndex
from ghostbook.eval.tasks import humaneval_single_line
from ghostbook.models.backend import Reader, TokenOut
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.transformers_backend import TransformersBackend

from tests.decoding.conftest import probe

DEFAULT_GGUF = Path(__file__).parent.parent.parent / "notebook" / "ghostbook" / "models" / "default" / \
    "ghostbook-fim-q8_0.gguf"

# vocabulary of the hand-made model: 0 end of text, then pieces
PIECES = [b"", b"a", b"b", b"\n", b"x", b" ret", b" return", b" r", b"    "]
EOT = 0


def table_model(table: dict[tuple[int, ...], dict[int, float]]):
    """`seek` for a model whose next-token probabilities are looked up by the tokens so far (the last
    entry whose key is a prefix wins; anything else gets a tiny probability)."""
    calls: list[tuple[int, ...]] = []

    def seek(tokens: Sequence[int]) -> np.ndarray:
        key = tuple(tokens)
        calls.append(key)
        probs = np.full(len(PIECES), 1e-6)
        while key not in table:
            key = key[:-1]
        for tok, p in table[key].items():
            probs[tok] = p
        return np.log(probs)

    return seek, calls


class Fits:
    """A `LineFit` rule from a function."""

    def __init__(self, fits: Callable[[bytes], bool]) -> None:
        self.fits = fits


def beam_line(seek: Callable[[Sequence[int]], np.ndarray], index: TokenIndex, ends: Collection[int],
              width: int = 3, max_new: int = 48, heal: bytes = b"", allow_empty: bool = True,
              avoid: Collection[bytes] = (), indent: StartRule | None = None,
              fits: Callable[[bytes], bool] | None = None, rank: beam.Rank | None = None, stop: bool = False,
              cancelled: Callable[[], bool] = lambda: False) -> list[int] | None:
    """`decoding.beam.beam_line` over a one-branch-at-a-time `seek`, each rule given on its own."""
    rules = LineRules(frozenset(avoid), indent, Fits(fits) if fits else None)
    return beam.beam_line(lambda branches: np.stack([seek(b) for b in branches]), index, ends,
                          LineSearch(width, max_new, heal, allow_empty, stop, rules), rank, cancelled)


class TableModel:
    """The hand-made model as an `Evaluation` (no reader)."""

    def __init__(self, seek: Callable[[Sequence[int]], np.ndarray]) -> None:
        self.seek = seek

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        return np.stack([self.seek(b) for b in branches])

    def reader(self) -> Reader | None:
        return None

    def drafts(self) -> None:  # no speculative decoding
        return None


def further_plan(prefix: str, max_new: int = 12, syntax: bool = True) -> DecodePlan:
    from ghostbook.decoding.lines import FurtherLines

    return DecodePlan(max_new, beam=2, lines=FurtherLines(prefix, "", prefix, "", syntax=syntax, read_check=False))


def decode_table(table: dict[tuple[int, ...], dict[int, float]], plan: DecodePlan) -> list[int]:
    """The tokens `decoding.search.decode` emits with the hand-made model."""
    seek, _ = table_model(table)
    out: list[TokenOut] = []
    plan_decode(search.Run(TableModel(seek), TokenIndex(PIECES, {EOT}), {EOT}, lambda: False, out.append), plan)
    return [t.id for t in out]


# greedy takes "a" (0.6), then the line runs on with "x" (0.34 each); "b\n" (0.4 * 0.9) is likelier
# than any line that starts with "a" ("a\n": 0.6 * 0.33)
RUNAWAY = {(): {1: 0.6, 2: 0.4}, (1,): {4: 0.34, 3: 0.33, 2: 0.33}, (2,): {3: 0.9, 4: 0.1}}


def test_beam_finds_the_likelier_short_line() -> None:
    seek, _ = table_model(RUNAWAY)
    index = TokenIndex(PIECES, {EOT})
    assert beam_line(seek, index, {EOT}, width=3, max_new=12) == [2, 3]


def test_greedy_path_runs_on_where_the_beam_does_not() -> None:
    seek, _ = table_model(RUNAWAY)
    tokens: list[int] = []
    for _ in range(6):  # what greedy decoding does with the same model
        tokens.append(int(np.argmax(seek(tokens))))
    assert tokens[:3] == [1, 4, 4]


def test_an_empty_line_wins_only_where_allowed() -> None:
    table = {(): {3: 0.7, 1: 0.3}, (1,): {3: 0.9}}
    seek, _ = table_model(table)
    index = TokenIndex(PIECES, {EOT})
    assert beam_line(seek, index, {EOT}, width=2, max_new=8) == [3]
    assert beam_line(seek, index, {EOT}, width=2, max_new=8, allow_empty=False) == [1, 3]


def test_end_of_text_ends_a_line_without_its_token() -> None:
    seek, _ = table_model({(): {2: 0.9}, (2,): {EOT: 0.8, 3: 0.1}})
    assert beam_line(seek, TokenIndex(PIECES, {EOT}), {EOT}, width=2, max_new=8) == [2]


def test_healing_bytes_are_spelled_first_and_not_counted_as_text() -> None:
    # " return" is required; " ret" spells part of it, " r" too; "\n" right after the healed bytes is an
    # empty line (not allowed here), so the line must go on
    table = {(): {6: 0.2, 1: 0.8}, (6,): {3: 0.9, 2: 0.1}, (6, 2): {3: 1.0}}
    seek, _ = table_model(table)
    index = TokenIndex(PIECES, {EOT})
    assert beam_line(seek, index, {EOT}, width=3, max_new=8, heal=b" return") == [6, 3]
    assert beam_line(seek, index, {EOT}, width=3, max_new=8, heal=b" return", allow_empty=False) == [6, 2, 3]


def test_the_likeliest_line_that_fits_wins_and_the_search_goes_on_for_one() -> None:
    # "b\n" (0.36) is likelier than "a" + anything; if only lines with "a" fit, the search goes on past
    # the point where "b\n" would have ended it, and the likeliest fitting line wins
    seek, _ = table_model(RUNAWAY)
    index = TokenIndex(PIECES, {EOT})
    assert beam_line(seek, index, {EOT}, width=3, max_new=12, fits=lambda line: True) == [2, 3]
    assert beam_line(seek, index, {EOT}, width=3, max_new=12, fits=lambda line: line.startswith(b"a")) == [1, 3]
    assert beam_line(seek, index, {EOT}, width=3, max_new=12, fits=lambda line: line == b"axx") == [1, 4, 4, 3]
    # where nothing fits, the likeliest line wins as without the check
    assert beam_line(seek, index, {EOT}, width=3, max_new=12, fits=lambda line: False) == [2, 3]


def test_where_nothing_fits_the_search_goes_on_only_fit_steps_more() -> None:
    # "b\n" (0.36) ends the plain search after 2 steps: "a\n" and "ax" are less likely (0.3)
    seek, calls = table_model({(): {1: 0.6, 2: 0.4}, (1,): {4: 0.5, 3: 0.5}, (2,): {3: 0.9, 4: 0.1}})
    index = TokenIndex(PIECES, {EOT})
    assert beam_line(seek, index, {EOT}, width=2, max_new=30) == [2, 3]
    plain = len(calls)
    calls.clear()
    assert beam_line(seek, index, {EOT}, width=2, max_new=30, fits=lambda line: False) == [2, 3]
    assert len(calls) == plain + 2 * FIT_STEPS  # two live lines, FIT_STEPS steps more


def test_rank_scores_are_added_to_the_likeliest_distinct_lines() -> None:
    # finished lines: "b\n" 0.36, "a\n" 0.198, "ab\n" ... ; a rank that favours lines starting with "a"
    # by more than log(0.36 / 0.198) makes "a\n" win; the lines reach `rank` healed bytes first
    seek, _ = table_model(RUNAWAY)
    index = TokenIndex(PIECES, {EOT})
    seen: list[list[bytes]] = []

    def rank(lines: Sequence[bytes]) -> list[float]:
        seen.append(list(lines))
        return [1.0 if line.startswith(b"a") else 0.0 for line in lines]

    assert beam_line(seek, index, {EOT}, width=3, max_new=12, rank=rank) == [1, 3]
    assert seen[0][:2] == [b"b", b"a"] and len(seen[0]) == len(set(seen[0])) <= RANK_LINES
    assert beam_line(seek, index, {EOT}, width=3, max_new=12, rank=lambda lines: [0.5] * len(lines)) == [2, 3]
    # only lines that fit are ranked where any does
    assert beam_line(seek, index, {EOT}, width=3, max_new=12, rank=rank, fits=lambda line: line == b"b") == [2, 3]
    table = {(): {6: 0.9, 1: 0.1}, (6,): {3: 0.9}, (1,): {3: 0.9}}
    seek, _ = table_model(table)
    seen.clear()
    beam_line(seek, index, {EOT}, width=3, max_new=8, heal=b" re", rank=rank)
    assert seen[0][0] == b" return"


def test_cancel_stops_the_search() -> None:
    seek, calls = table_model(RUNAWAY)
    assert beam_line(seek, TokenIndex(PIECES, {EOT}), {EOT}, width=3, cancelled=lambda: True) is None
    assert calls == []


def test_budget_ends_an_unfinished_line() -> None:
    seek, _ = table_model({(): {4: 0.9, 3: 0.01}})
    assert beam_line(seek, TokenIndex(PIECES, {EOT}), {EOT}, width=2, max_new=5) == [4] * 5
    # ... with a rank too: the finished lines it could rank are all less likely than the open one
    assert beam_line(seek, TokenIndex(PIECES, {EOT}), {EOT}, width=2, max_new=5,
                     rank=lambda lines: [100.0] * len(lines)) == [4] * 5


# ---- real models ---------------------------------------------------------------------------------


def line_logprob(b: LlamaCppBackend, prompt: list[int], tokens: list[int]) -> float:
    """Total log-probability of `tokens` after `prompt` (teacher-forced on the backend's model)."""
    rows = probe(b, prompt, lambda model: model.logits([tokens[:i] for i in range(len(tokens))]))
    return sum(float(log_softmax(row)[tok]) for row, tok in zip(rows, tokens, strict=True))


def run(b: LlamaCppBackend | TransformersBackend, prompt: list[int], params: DecodePlan) -> list[int]:
    out: list[TokenOut] = []
    b.generate(prompt, params, lambda: False, out.append)
    return [t.id for t in out]


def humaneval_prompts(b: LlamaCppBackend, n: int) -> list[list[int]]:
    """PSM prompts of the first `n` HumanEval lines, the cursor at each line's start."""
    ids = [b.lookup(t) for t in ("<fim_prefix>", "<fim_suffix>", "<fim_middle>")]
    prompts = []
    for task in humaneval_single_line(cut="line")[:: 7][:n]:
        pre, suf = b.tokenize(task.prefix)[-300:], b.tokenize(task.suffix)[:150]
        prompts.append([int(ids[0]), *pre, int(ids[1]), *suf, int(ids[2])])  # type: ignore[arg-type]
    return prompts


def text_of(b: LlamaCppBackend, tokens: list[int]) -> bytes:
    return b"".join(b.piece(t) for t in tokens)


def first_line(b: LlamaCppBackend, tokens: list[int]) -> list[int]:
    for i, tok in enumerate(tokens):
        if b"\n" in b.piece(tok):
            return tokens[: i + 1]
    return tokens


def test_beam_line_is_likelier_than_greedy_and_then_continues_greedily(shipped: LlamaCppBackend) -> None:
    """A beam may lose greedy's own line (it leaves the beam when other prefixes score higher), so the
    claim is on the whole: the beam's first lines are likelier in total, and on most lines."""
    better, worse, totals = 0, 0, [0.0, 0.0]
    for prompt in humaneval_prompts(shipped, 8):
        greedy = run(shipped, prompt, DecodePlan(24, blank_line=True))
        beamed = run(shipped, prompt, DecodePlan(24, beam=4, blank_line=True))
        g_line, b_line = first_line(shipped, greedy), first_line(shipped, beamed)
        if not b"".join(shipped.piece(t) for t in g_line).split(b"\n")[0].strip():
            continue  # greedy wrote an empty line, which the beam may not
        g_lp, b_lp = line_logprob(shipped, prompt, g_line), line_logprob(shipped, prompt, b_line)
        totals[0], totals[1] = totals[0] + g_lp, totals[1] + b_lp
        better += b_lp > g_lp + 1e-3
        worse += b_lp < g_lp - 1e-3
        # after the line, the KV cache stands right after it: the rest is plain greedy from there
        rest = beamed[len(b_line):]
        if rest:
            assert rest == run(shipped, [*prompt, *b_line], DecodePlan(len(rest)))
    assert better >= 1 and better > worse and totals[1] > totals[0]  # on these lines greedy ran on somewhere


def test_transformers_beam_matches_llama_cpp(tiny_gguf: Path) -> None:
    cpp = LlamaCppBackend(tiny_gguf, n_ctx=1024, threads=1)
    cpp.load()
    hf = TransformersBackend(tiny_gguf.parent / "hf", threads=1)
    hf.load()
    code = (Path(__file__).parent.parent.parent / "notebook" / "ghostbook" / "completion" / "cache.py").read_text()
    for cut in (150, 300):
        prompt = [int(cpp.lookup("<fim_prefix>") or 0), *cpp.tokenize(code[:cut]), int(cpp.lookup("<fim_middle>") or 0)]
        params = DecodePlan(10, beam=3)
        assert run(hf, prompt, params) == run(cpp, prompt, params)
    cpp.unload()
    hf.unload()


def test_stream_with_beam_reports_cancel(shipped: LlamaCppBackend) -> None:
    prompt = humaneval_prompts(shipped, 1)[0]
    out: list[TokenOut] = []
    stats = shipped.generate(prompt, DecodePlan(24, beam=4), threading.Event().is_set, out.append)
    assert stats.generated == len(out) > 0 and not stats.cancelled
    calls = [0]

    def cancel_soon() -> bool:
        calls[0] += 1
        return calls[0] > 3

    stats = shipped.generate(prompt, DecodePlan(24, beam=4), cancel_soon, out.append)
    assert stats.cancelled


def test_log_softmax_is_normalised() -> None:
    lp = log_softmax(np.array([1.0, 2.0, 3.0]))
    assert math.isclose(float(np.exp(lp).sum()), 1.0)


def test_lines_to_avoid_never_win() -> None:
    seek, _ = table_model(RUNAWAY)
    index = TokenIndex(PIECES, {EOT})
    assert beam_line(seek, index, {EOT}, width=3, max_new=12, avoid={b"b"}) == [1, 3]  # "a\n", the next best
    seek, _ = table_model({(): {2: 0.9}, (2,): {EOT: 0.8, 3: 0.1}})
    assert beam_line(seek, index, {EOT}, width=3, max_new=12, avoid={b"b"}) == []  # only "b" was possible


def test_lines_indented_where_python_rejects_them_are_dropped() -> None:
    """After a block opener the line must go deeper: the likelier unindented lines ("a", "x") are dropped
    as their first character shows, even when that empties a beam one wide (it looks further down)."""
    from ghostbook.decoding.indentation import indent_rule

    table = {(): {1: 0.5, 4: 0.3, 8: 0.2}, (1,): {3: 0.9}, (4,): {3: 0.9}, (8,): {2: 0.9}, (8, 2): {3: 0.9}}
    seek, _ = table_model(table)
    index = TokenIndex(PIECES, {EOT})
    rule = indent_rule("if c:\n")
    assert beam_line(seek, index, {EOT}, width=1, max_new=8) == [1, 3]
    assert beam_line(seek, index, {EOT}, width=1, max_new=8, indent=rule) == [8, 2, 3]
    # after a plain statement at the top level, "    b" is the one indented wrongly
    seek, _ = table_model({(): {8: 0.9, 1: 0.05}, (8,): {2: 0.9}, (8, 2): {3: 0.9}, (1,): {3: 0.9}})
    assert beam_line(seek, index, {EOT}, width=2, max_new=8, indent=indent_rule("c = 1\n")) == [1, 3]


def test_goes_on_only_where_a_line_was_cut_by_the_beam_budget_or_more_lines_are_wanted() -> None:
    from ghostbook.decoding.beam import goes_on

    assert goes_on([1] * 4, b"abcd", budget=4, max_new=10, single_line=True)  # cut open by the budget
    assert not goes_on([1] * 3, b"abc", budget=4, max_new=10, single_line=False)  # ended by end of text
    assert goes_on([1, 3], b"a\n", budget=4, max_new=10, single_line=False)  # next lines wanted
    assert not goes_on([1, 3], b"a\n", budget=4, max_new=10, single_line=True)
    assert not goes_on([1] * 10, b"a" * 10, budget=10, max_new=10, single_line=False)  # all spent
    assert not goes_on([], b"", budget=4, max_new=10, single_line=False)


def test_a_long_line_streams_on_after_the_beam_budget(tiny_gguf: Path) -> None:
    """Past LINE_BUDGET tokens without a newline the line goes on greedily (the user sees it grow). The
    tiny random model writes no newline on this prompt."""
    from ghostbook.decoding.beam import LINE_BUDGET

    b = LlamaCppBackend(tiny_gguf, n_ctx=1024, threads=1)
    b.load()
    prompt = [int(b.lookup("<fim_prefix>") or 0), *b.tokenize("x = [" + "1, " * 40), int(b.lookup("<fim_middle>") or 0)]
    out = run(b, prompt, DecodePlan(LINE_BUDGET + 16, beam=3))
    assert len(out) == LINE_BUDGET + 16 and b"\n" not in b"".join(b.piece(t) for t in out)
    assert out[LINE_BUDGET:] == run(b, [*prompt, *out[:LINE_BUDGET]], DecodePlan(16))
    b.unload()


def test_a_first_line_the_beam_budget_leaves_open_goes_on_greedily(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan_module, "LINE_BUDGET", 3)
    assert decode_table({(): {4: 0.9, 3: 0.01}}, DecodePlan(10, beam=2)) == [4] * 10
    # a finished first line with one line wanted (the model's end of text) ends it
    assert decode_table({(): {2: 0.9}, (2,): {EOT: 0.9}}, DecodePlan(10, beam=2)) == [2]


def test_healing_bytes_no_token_spells_are_dropped_like_greedy_does() -> None:
    seek, _ = table_model({(): {2: 0.9}, (2,): {3: 0.9}})
    assert beam_line(seek, TokenIndex(PIECES, {EOT}), {EOT}, width=2, max_new=8, heal=b"\xff") == [2, 3]


# further lines: the search starts after a written line and must spell its newline first ("\n" is 3)
def test_the_end_is_a_candidate_less_its_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    index = TokenIndex(PIECES, {EOT})
    sure = {(): {EOT: 0.999, 3: 0.001}, (3,): {1: 0.9}, (3, 1): {3: 0.9}}
    assert beam_line(table_model(sure)[0], index, {EOT}, 2, 8, LEAD, allow_empty=False, stop=True) == []
    # the end is likelier than the line "a" (0.9 against 0.1 * 0.95 * 0.95), but not by END_COST nats
    likely = {(): {EOT: 0.9, 3: 0.1}, (3,): {1: 0.95}, (3, 1): {3: 0.95}}
    assert beam_line(table_model(likely)[0], index, {EOT}, 2, 8, LEAD, allow_empty=False, stop=True) == [3, 1, 3]
    monkeypatch.setattr(beam, "END_COST", 0.0)
    assert beam_line(table_model(likely)[0], index, {EOT}, 2, 8, LEAD, allow_empty=False, stop=True) == []
    # without `stop` the end is no candidate: an empty line is not allowed, so the line wins
    assert beam_line(table_model(sure)[0], index, {EOT}, 2, 8, LEAD, allow_empty=False) == [3, 1, 3]


def test_an_end_that_does_not_fit_loses_and_the_end_is_read_as_nothing() -> None:
    index = TokenIndex(PIECES, {EOT})
    seek, _ = table_model({(): {EOT: 0.999, 3: 0.001}, (3,): {1: 0.6, 2: 0.4}, (3, 1): {3: 0.9}, (3, 2): {3: 0.9}})
    assert beam_line(seek, index, {EOT}, 2, 8, LEAD, allow_empty=False, fits=lambda line: line != b"",
                     stop=True) == [3, 1, 3]
    seen: list[list[bytes]] = []

    def rank(lines: Sequence[bytes]) -> list[float]:
        seen.append(list(lines))
        return [50.0 if line == b"\nb" else 0.0 for line in lines]  # the reading wants "b"

    assert beam_line(seek, index, {EOT}, 2, 8, LEAD, allow_empty=False, rank=rank, stop=True) == [3, 2, 3]
    assert sorted(seen[0]) == [b"", b"\na", b"\nb"]  # the end inserts nothing; a line brings its newline


def test_lines_are_found_one_by_one_until_the_end_wins() -> None:
    # "a" then a newline (the model would end there: 0.3 against 0.7, within END_COST), "b", then the end
    table = {(): {1: 0.9}, (1,): {3: 0.3, EOT: 0.7}, (1, 3): {2: 0.9}, (1, 3, 2): {EOT: 0.99, 3: 0.01}}
    # "a\nb": each newline token comes with the line it starts
    assert decode_table(table, further_plan("x = 0\n")) == [1, 3, 2]
    # without further lines the model's end after the first line ends the suggestion
    assert decode_table(table, DecodePlan(12, beam=2)) == [1]


def test_a_loop_is_cut_where_it_would_repeat() -> None:
    # the model loops "a", "b", "a", "b", ...: a line the suggestion already wrote is avoided
    table = {(): {1: 0.9}, (1,): {3: 0.99}, (1, 3): {2: 0.9}, (1, 3, 2): {3: 0.99}, (1, 3, 2, 3): {1: 0.9},
             (1, 3, 2, 3, 1): {3: 0.99}, (1, 3, 2, 3, 1, 3): {2: 0.6, 4: 0.3}, (1, 3, 2, 3, 1, 3, 2): {3: 0.99},
             (1, 3, 2, 3, 1, 3, 4): {EOT: 0.99}}
    tokens = decode_table(table, further_plan(""))
    lines = b"".join(PIECES[t] for t in tokens).split(b"\n")
    assert lines[:2] == [b"a", b"b"] and len(set(lines)) == len(lines)  # #15: never one of its own lines again
    tokens = decode_table(table, DecodePlan(12, beam=2))  # greedy after the first line loops
    assert b"".join(PIECES[t] for t in tokens).startswith(b"a\nb\na\nb")


def test_an_open_further_line_goes_on_greedily(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan_module, "LINE_BUDGET", 4)
    table = {(): {1: 0.9}, (1,): {3: 0.99}, (1, 3): {4: 0.99}}  # "a", then "xxxx..." past the budget
    # (a finished line that fits would win over an open one: no syntax check here); greedy takes the
    # open line on to the token limit
    assert decode_table(table, further_plan("", max_new=12, syntax=False)) == [1, 3] + [4] * 10


def test_the_first_line_is_emitted_before_the_next_is_sought() -> None:
    """README: the first line is shown the moment it is chosen, while the next are still sought."""
    table = {(): {1: 0.9}, (1,): {3: 0.99}, (1, 3): {2: 0.9}, (1, 3, 2): {EOT: 0.99}}  # "a", "b", end
    seek, _ = table_model(table)
    events: list[str] = []

    def logged(branch: Sequence[int]) -> np.ndarray:
        events.append(f"ask {len(branch)}")
        return seek(branch)

    emitted: list[int] = []

    def emit(token: TokenOut) -> None:
        emitted.append(token.id)
        events.append(f"emit {token.id}")

    plan_decode(search.Run(TableModel(logged), TokenIndex(PIECES, {EOT}), {EOT}, lambda: False, emit), further_plan(""))
    assert emitted[:1] == [1] and events.index("emit 1") < events.index("ask 3")  # "a" out before "b" is sought


def test_after_an_open_argument_list_the_suggestion_is_an_argument_not_nothing(shipped: LlamaCppBackend) -> None:
    """After `, ` the user asks for the next argument. The shipped model's likeliest first line there is
    often empty (it ends the line and writes new ones, which the filters then drop): an empty first line
    may not win where the cursor's line ends with `(`, `[`, `,`, `=` or `.` (`DecodePlan.asks`)."""
    from ghostbook.completion.context import Context
    from ghostbook.completion.prompt import make_prompt

    above = "import seaborn as sns\nimport matplotlib.pyplot as plt\n\nflights = sns.load_dataset('flights')\n\n"

    def first_line(ids: list[int], plan: DecodePlan) -> bytes:
        out: list[bytes] = []
        shipped.generate(ids, plan, lambda: False, lambda token: out.append(token.piece))
        return b"".join(out)[len(plan.heal):].split(b"\n")[0]

    for cell in ('sns.heatmap(flights, annot=True, fmt="d", linewidths=.5, ',
                 "nx.draw(graph, positions, ax=ax, node_size=5, "):
        prompt = make_prompt(shipped, Context(above + cell, "\n", cell, "\n", above, ""), 32, beam=8,
                             read_check=False, copies=False)
        assert prompt.plan.asks
        assert first_line(prompt.ids, prompt.plan).strip()  # the plan of 2026-12-01 wrote b"" for both


def test_where_the_line_asks_for_more_greedy_may_not_end_before_writing() -> None:
    """Out of time, greedy writes the line the beam left open; after `, ` it may not end the middle (or
    start a new line) before writing anything, as the beam may not (`DecodePlan.asks`)."""
    from ghostbook.decoding.indentation import start_rule

    plan = DecodePlan.around(plan_module.Around("f(a, ", "", "f(a, ", ""), b"", 16, frozenset({EOT}),
                             plan_module.Choices(beam=8))
    assert plan.asks and plan.rules.indent is not None
    index = TokenIndex(PIECES, {EOT})
    rule = start_rule("f(a, ")
    assert rule is not None and search._starts(rule, b"", EOT, {EOT}, index, b"")  # Python allows it
    assert not search._starts(plan.rules.indent, b"", EOT, {EOT}, index, b"")
