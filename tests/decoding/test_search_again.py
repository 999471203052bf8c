"""What makes a forced request's search again quick: greedy starts with none of the tokens the searches
that found nothing started with (`DecodePlan.first_not`) and otherwise decodes as greedy does, never
with an empty line where the cursor's line is blank; and a first search whose whole first line breaks
the cell ends there (`DecodePlan.cell`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from ghostbook.decoding.lines import FurtherLines
from ghostbook.decoding.plan import Around, Choices, DecodePlan
from ghostbook.decoding.plan import decode as plan_decode
from ghostbook.decoding.search import Run
from ghostbook.decoding.syntax_fit import SyntaxFit
from ghostbook.decoding.tokens import TokenIndex
from ghostbook.models.backend import TokenOut
from ghostbook.models.llamacpp_backend import LlamaCppBackend

from tests.decoding.test_beam import EOT, RUNAWAY, TableModel, decode_table, humaneval_prompts, run


def test_greedy_starts_with_the_next_likeliest_token_and_goes_on_as_greedy() -> None:
    assert decode_table(RUNAWAY, DecodePlan(6))[:2] == [1, 4]  # "a", then the line runs on
    assert decode_table(RUNAWAY, DecodePlan(6, first_not=frozenset({1})))[:2] == [2, 3]  # "b\n"
    assert not {1, 2} & set(decode_table(RUNAWAY, DecodePlan(6, first_not=frozenset({1, 2})))[:1])


def test_shipped_model_never_starts_where_a_search_found_nothing(shipped: LlamaCppBackend) -> None:
    """Through the llama.cpp backend (whose greedy otherwise takes the speculative path): each banned
    first token is skipped, the next likeliest taken, and the same plan decodes the same tokens."""
    for prompt in humaneval_prompts(shipped, 3):
        greedy = run(shipped, prompt, DecodePlan(12))
        banned = frozenset({greedy[0]})
        again = run(shipped, prompt, DecodePlan(12, first_not=banned))
        assert again and again[0] != greedy[0]
        twice = run(shipped, prompt, DecodePlan(12, first_not=banned | {again[0]}))
        assert twice and twice[0] not in banned | {again[0]}
        assert run(shipped, prompt, DecodePlan(12, first_not=banned)) == again


def test_greedy_on_a_blank_line_does_not_start_with_an_empty_line() -> None:
    """As the beam (`allow_empty`): an empty first line says nothing where the cursor's line is blank
    (a new cell's `\\n#` was greedy's answer)."""
    table = {(): {3: 0.7, 4: 0.3}, (4,): {3: 0.9}}  # "\n" likeliest first, then "x\n"
    blank = DecodePlan.around(Around("a = 1\n", "", "a = 1\n", ""), b"", 6, frozenset({EOT}), Choices(beam=1))
    assert decode_table(table, blank)[:2] == [4, 3]
    assert decode_table(table, DecodePlan(6))[0] == 3  # greedy without the rule


def test_the_beams_whole_line_that_breaks_the_cell_is_sent_alone() -> None:
    """No further lines after a first line that no line can mend (a new cell's `)`, which the final
    filters drop): the stream ends there, and the second search starts at once."""
    pieces = [b"", b")", b"\n", b"x"]
    table = {(): {1: 0.9, 3: 0.1}, (1,): {2: 0.95}, (1, 2): {3: 0.9}, (1, 2, 3): {2: 0.9}}

    def seek(tokens: Sequence[int]) -> np.ndarray:
        key = tuple(tokens)
        while key not in table:
            key = key[:-1]
        probs = np.full(len(pieces), 1e-6)
        for tok, p in table[key].items():
            probs[tok] = p
        return np.log(probs)

    def decode(plan: DecodePlan) -> list[int]:
        out: list[TokenOut] = []
        plan_decode(Run(TableModel(seek), TokenIndex(pieces, {0}), {0}, lambda: False, out.append), plan)
        return [t.id for t in out]

    lines = FurtherLines("", "", "", "", syntax=False, read_check=False)
    assert decode(DecodePlan(8, beam=2, lines=lines, cell=SyntaxFit("", ""))) == [1]
    assert decode(DecodePlan(8, beam=2, lines=lines))[:3] == [1, 2, 3]  # without the cell: the lines go on
    assert decode(DecodePlan(8, beam=2, lines=lines, cell=SyntaxFit("f(\n", "")))[:3] == [1, 2, 3]  # `)` fits
