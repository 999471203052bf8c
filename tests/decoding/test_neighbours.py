"""The lines a suggestion's first line should not repeat."""

from __future__ import annotations

from ghostbook.decoding.repetition import repeated_lines


def test_the_code_lines_just_above_and_below_the_cursor() -> None:
    prefix = "def f(x):\n    y = 1\n\n"
    suffix = "\n\n    return y\n    z = 2\n"
    assert repeated_lines(prefix, suffix) == {b"    y = 1", b"    return y"}


def test_texts_are_what_follows_the_cursor_on_its_line() -> None:
    assert repeated_lines("    y = 1\n    ret", "\n    return y\n") == {b"urn y"}
    # a neighbour that does not start like the cursor's line cannot be repeated
    assert repeated_lines("    y = 1\n    for", "\n    return y\n") == frozenset()


def test_indentation_tells_closing_brackets_apart() -> None:
    assert repeated_lines("f(\n    g(\n        1\n    )\n", "\n") == {b"    )"}
    assert b")" not in repeated_lines("f(\n    g(\n        1\n    )\n", "\n")


def test_nothing_when_the_line_goes_on_after_the_cursor() -> None:
    assert repeated_lines("    y = 1\n    x = ", " + 1\n    y = 1\n") == frozenset()
