"""No `elif` repeats a condition its chain already tests (`decoding.conditions`), on every backend
(a rule of `SuggestionRules`, which the final filter applies)."""

from __future__ import annotations

from pathlib import Path

from ghostbook.completion import filters
from ghostbook.decoding.conditions import RepeatedCondition, chain_conditions, next_branch

from tests.completion.conftest import FakeCell
from tests.completion.test_candidates import forced_with_and_without_candidates

# the chain the browser showed while writing an unseen tutorial notebook (mGalarnyk/Python_Tutorials)
DICE = ("dice_value = 1\nif dice_value == 1:\n    print('one')\nelif dice_value == 2:\n    print('two')\n"
        "elif dice_value == 3:\n    print('three')\n")


def test_an_elif_repeating_its_chains_condition_is_dropped_and_a_new_one_stays() -> None:
    assert RepeatedCondition(DICE, "").cut("elif dice_value == 2:\n    print('two')") == ""
    assert RepeatedCondition(DICE, "").cut("elif dice_value ==  3 :") == ""  # equal up to whitespace
    assert RepeatedCondition(DICE, "").cut("elif dice_value == 4:") == "elif dice_value == 4:"
    # mid-line: the cursor's line as completed
    assert RepeatedCondition(DICE + "elif dice_value == ", "").cut("2:") == ""
    assert RepeatedCondition(DICE + "elif dice_value == ", "").cut("4:") == "4:"


def test_only_the_chain_at_the_same_indentation_counts() -> None:
    nested = "if x:\n    if y == 1:\n        a = 1\n    elif y == 2:\n        b = 2\n    elif y == "
    assert RepeatedCondition(nested, "").cut("1:") == ""
    assert RepeatedCondition("if y == 1:\n    a = 1\n    elif y == ", "").cut("1:") == "1:"  # not its chain
    # a chain ended by `else:` and a new `if`: the earlier chain's conditions are not this one's
    assert chain_conditions("if y == 1:\n    a\nelse:\n    b\nif y == 3:\n    c".split("\n"), "") == {"y==3"}
    assert RepeatedCondition("if y == 1:\n    a\nelse:\n    b\nif y == 3:\n    c\n", "").cut("elif y == 1:") \
        == "elif y == 1:"


def test_the_final_filter_drops_it() -> None:
    text, _ = filters.run("elif dice_value == 3:", filters.FilterContext(DICE, ""))
    assert text == ""


def test_the_next_branch_of_a_chain_in_steps() -> None:
    assert next_branch(DICE.rstrip("\n").split("\n"), "") == "elif dice_value == 4:"
    assert next_branch("if n == 0:\n    a = 1".split("\n"), "") == "elif n == 1:"
    assert next_branch("if n == 0:\n    a\nelif n == 5:\n    b".split("\n"), "") == "elif n == 10:"
    assert next_branch("if n == 0:\n    a\nelif n == 5:\n    b\nelif n == 7:\n    c".split("\n"), "") is None
    assert next_branch("if n > 0:\n    a".split("\n"), "") is None  # not a comparison with a number
    assert next_branch("if n == 1:\n    a\nelif m == 2:\n    b".split("\n"), "") is None  # two names
    assert next_branch("x = 1".split("\n"), "") is None  # no chain


async def test_ctrl_space_in_an_elif_goes_on_the_chain(tmp_path: Path) -> None:
    """The shipped model alone writes a value the chain tests already (`1:`, `2:`: dropped, or nothing
    shown); with the chain's next value the suggestion is `4:`."""
    cells = [FakeCell("a", "code", DICE + "elif dice_value == ")]
    with_them, without = await forced_with_and_without_candidates(tmp_path, cells, search_ms=0)
    assert with_them == "4:" and without != "4:"
    assert RepeatedCondition(DICE + "elif dice_value == ", "").cut(without) == without  # no repeat either way
