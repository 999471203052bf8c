"""A forced request's search again (`DecodePlan.first_not`): greedy starts with none of the tokens the
searches that found nothing started with, and otherwise decodes as greedy does."""

from __future__ import annotations

from ghostbook.decoding.plan import Around, Choices, DecodePlan
from ghostbook.models.llamacpp_backend import LlamaCppBackend

from tests.decoding.test_beam import EOT, RUNAWAY, decode_table, humaneval_prompts, run


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
