"""What a streaming suggestion shows (`completion.stable.StableText`): a line once it is whole and the
final rules pass it, and an end as soon as no text that follows could make the suggestion stand."""

from __future__ import annotations

from ghostbook.completion import filters
from ghostbook.completion.stable import StableText


def feed(stable: StableText, text: str) -> list[str]:
    """Every text `stable` shows while `text` streams, one character at a time, until it ends."""
    shown = []
    for end in range(1, len(text) + 1):
        got = stable.update(text[:end])
        if got is not None:
            shown.append(got)
        if stable.final is not None:
            break
    return shown


def test_lines_show_whole_and_only_grow() -> None:
    stable = StableText("import numpy as np\n", "")
    assert feed(stable, "x = np.zeros(3)\ny = x + 1\nz") == ["x = np.zeros(3)", "x = np.zeros(3)\ny = x + 1"]
    assert stable.final is None and stable.finish("x = np.zeros(3)\ny = x + 1\nz", False).startswith(stable.shown)


def test_a_whole_first_statement_the_rules_drop_ends_the_suggestion_at_its_line() -> None:
    stable = StableText("", "")  # an empty cell: `)` closes nothing
    assert feed(stable, ")\nplt.show()\n") == [] and stable.final == ""
    assert stable._lines == 1  # at the first line's end, not after the lines that follow


def test_a_first_line_that_later_lines_may_complete_does_not_end_it() -> None:
    for prefix, text in (("", "for x in range(3):\n    print(x)\n"), ("", "f(\n    1,\n)\n")):
        stable = StableText(prefix, "")
        feed(stable, text)
        assert stable.final is None, text


def test_a_loop_stops_the_model_in_the_middle_of_a_line() -> None:
    stable = StableText("def negbinom(u, ", "")
    loop = "q, " * 20
    feed(stable, loop)
    assert stable.final == "" and len(stable.shown) == 0


def test_statement_ends() -> None:
    inside = filters.FilterContext("x = foo(", "")
    assert filters.ends_statement("1)", inside) and filters.ends_statement("1)  # one", inside)
    assert not filters.ends_statement("1,", inside)
    top = filters.FilterContext("", "")
    assert filters.ends_statement(")", top) and filters.ends_statement("x = 1", top)
    assert not filters.ends_statement("for x in y:", top) and not filters.ends_statement('s = """doc', top)
    assert not filters.ends_statement("a = b + \\", top)
