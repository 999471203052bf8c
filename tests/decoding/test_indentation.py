"""Where a line started at the cursor may be indented (Python's rules, read with `tokenize`)."""

from __future__ import annotations

from ghostbook.decoding.indentation import IndentRule, indent_rule
from ghostbook.eval.tasks import humaneval_single_line

CODE = "def f(x):\n    if x:\n        y = 1\n"


def test_after_a_block_opener_the_line_goes_deeper() -> None:
    rule = indent_rule("def f(x):\n    if x:\n")
    assert rule == IndentRule(0, 4, frozenset())
    assert rule.allows(b"        y = 1") and rule.allows(b"      y")
    assert rule.allows(b"    y = 1") is False and rule.allows(b"y") is False
    # a comment line between the opener and the cursor does not open or close anything
    assert indent_rule("if x:\n    # why\n") == IndentRule(0, 0, frozenset())


def test_after_a_statement_the_line_stays_or_dedents_to_an_enclosing_block() -> None:
    rule = indent_rule(CODE)
    assert rule == IndentRule(0, None, frozenset({0, 4, 8}))
    assert all(rule.allows(b" " * n + b"z") for n in (0, 4, 8))
    assert not any(rule.allows(b" " * n + b"z") for n in (2, 6, 12))


def test_the_cursor_column_counts_and_spaces_alone_decide_nothing() -> None:
    rule = indent_rule("def f(x):\n    ")
    assert rule is not None and rule.column == 4
    assert rule.allows(b"return x") and rule.allows(b"    return x")
    assert rule.allows(b"") is None and rule.allows(b"   ") is None


def test_blank_lines_may_sit_anywhere_comments_where_code_may() -> None:
    rule = indent_rule(CODE)
    assert rule is not None and rule.allows(b"   \n")
    assert rule.allows(b"    # note") and rule.allows(b"  # note") is False  # #15: no stray indentation


def test_mid_line_start_rule() -> None:
    """#15: after `x = ` no space more; after `x =` one; a new line only where the line can end."""
    from ghostbook.decoding.indentation import start_rule

    spaced, bare = start_rule("x = "), start_rule("x =")
    assert spaced is not None and spaced.allows(b"np") and spaced.allows(b" np") is False
    assert bare is not None and bare.allows(b" np") and bare.allows(b"np") and bare.allows(b"  np") is False
    assert start_rule("y = x * ").allows(b"\nz") is False  # type: ignore[union-attr]
    assert start_rule("print(x)").allows(b"\nz") and start_rule("f(").allows(b"\n    a")  # type: ignore[union-attr]
    assert start_rule("def f(x):\n    ") == indent_rule("def f(x):\n    ")


def test_no_rule_past_the_indentation_or_where_the_code_above_is_open() -> None:
    assert indent_rule(CODE + "    ret") is None  # the cursor is after text on its line
    assert indent_rule("x = [\n    1,\n") is None  # open bracket: a continuation line goes anywhere
    assert indent_rule('s = """\nabc\n') is None  # inside a string
    assert indent_rule("if x:\n\ty = 1\n") is None  # tabs: not measured
    assert indent_rule("    y = 1\n  z = 2\n") is None  # an inconsistent dedent (IndentationError)


def test_every_humaneval_reference_line_is_allowed() -> None:
    """The rule never rejects the right answer (the cursor at each canonical line's start), and it
    decides on most tasks."""
    tasks = humaneval_single_line(cut="line")
    decided = 0
    for task in tasks:
        rule = indent_rule(task.prefix)
        if rule is not None:
            decided += 1
            assert rule.allows(task.middle.encode()), task.task_id
    assert decided > 0.9 * len(tasks)
