"""A call the notebooks rarely make empty is not closed right after its bracket (`decoding.empty_calls`):
the start rule of the search and the final filter's rule (`SuggestionRules`)."""

from __future__ import annotations

from pathlib import Path

from ghostbook.decoding.empty_calls import EmptyCall, EmptyCalls, closes_empty, takes_arguments
from ghostbook.decoding.plan import Around, Choices, DecodePlan
from ghostbook.decoding.suggestion import SuggestionRules

from tests.completion.conftest import FakeCell
from tests.completion.test_candidates import forced_with_and_without_candidates

# google/eng-edu's pandas_dataframe_ultraquick_tutorial.ipynb (unseen-test), as written in the browser:
# after `print(` the shipped model closed the call at once (`print()`), automatically too
FRAME = ("import numpy as np\nimport pandas as pd\nmy_data = np.array([[0, 3], [10, 7], [20, 9], [30, 14], [40, 15]])\n"
         "my_column_names = ['temperature', 'activity']\n"
         "my_dataframe = pd.DataFrame(data=my_data, columns=my_column_names)\nprint(my_dataframe)")
ROWS = ('print("Rows #0, #1, and #2:")\nprint(my_dataframe.head(3), \'\\n\')\n\nprint("Row #2:")\n'
        "print(my_dataframe.iloc[[2]], '\\n')\n\nprint(")


def test_the_table_says_which_calls_take_arguments() -> None:
    assert takes_arguments("print") and takes_arguments("np.array") and takes_arguments("pd.read_csv")
    assert takes_arguments("my_list.append")  # by its method, for any receiver
    assert not takes_arguments("plt.show") and not takes_arguments("df.head") and not takes_arguments("plt.figure")
    assert not takes_arguments("my_own_function")  # unknown: left alone


def test_the_rule_holds_right_inside_the_bracket_only() -> None:
    rule = EmptyCall.at("x = 1\nprint(")
    assert rule is not None
    assert rule.allows(b")") is False and rule.allows(b" )") is False
    assert rule.allows(b"\n    my_dataframe)") is False  # nor the arguments on the next line (the model's next try)
    assert rule.allows(b"x)") is True and rule.allows(b'"Row #2:")') is True and rule.allows(b"") is None
    assert EmptyCall.at("print(x, ") is None and EmptyCall.at("print(x") is None  # arguments typed
    assert EmptyCall.at("plt.show(") is None and EmptyCall.at("fig = plt.figure(") is None
    assert EmptyCall.at("print") is None and EmptyCall.at("x = [") is None  # no open call


def test_a_line_that_closes_such_a_call_empty() -> None:
    assert closes_empty("print(", ")") and closes_empty("", "print()") and closes_empty("x = ", "np.array( )")
    assert closes_empty("", "items.append()") and closes_empty("", "print(len())")
    assert not closes_empty("", "plt.show()") and not closes_empty("", "x = df.groupby('a').sum()")
    assert not closes_empty("print()", "") and not closes_empty("print(", "x)")  # typed, or passed something
    assert not closes_empty("", 'print("call print() first")')  # in a string
    assert not EmptyCalls("").fits(b"print()") and EmptyCalls("").fits(b"print(df)")


def test_the_final_filter_and_the_search_drop_it() -> None:
    rules = SuggestionRules.around("print(", "")
    assert rules.enforce(")") == "" and rules.violation(")") == "closes a call that takes arguments"
    assert rules.enforce("my_dataframe)") == "my_dataframe)"
    assert SuggestionRules.around("plt.show(", "").enforce(")") == ")"
    assert SuggestionRules.around("x = 1\n", "").enforce("print()") == ""  # on a new line too
    plan = DecodePlan.around(Around("print(", "", "print(", ""), b"", 16, frozenset(), Choices(beam=8))
    assert plan.rules.indent is not None and plan.rules.indent.allows(b")") is False
    assert plan.rules.syntax is not None and not plan.rules.syntax.fits(b")")
    new_line = DecodePlan.around(Around("x = 1\n", "", "x = 1\n", ""), b"", 16, frozenset(), Choices(beam=8))
    assert new_line.rules.syntax is not None and not new_line.rules.syntax.fits(b"print()")


async def test_ctrl_space_after_print_passes_something(tmp_path: Path) -> None:
    cells = [FakeCell("a", "code", FRAME), FakeCell("b", "code", ROWS)]
    with_them, without = await forced_with_and_without_candidates(tmp_path, cells, search_ms=0)
    assert with_them.strip() and without.strip()
    assert not with_them.lstrip().startswith(")") and not without.lstrip().startswith(")")


async def test_ctrl_space_on_a_new_line_writes_no_empty_print(tmp_path: Path) -> None:
    """Below the prints, the shipped model's likeliest line was `print()` (the walk showed it)."""
    cells = [FakeCell("a", "code", FRAME), FakeCell("b", "code", ROWS.removesuffix("print("))]
    with_them, without = await forced_with_and_without_candidates(tmp_path, cells)
    for text in (with_them, without):
        assert not closes_empty("", text.split("\n", 1)[0]), text
