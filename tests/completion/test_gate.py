from __future__ import annotations

import pytest
from ghostbook.completion.gate import position_kind, skip_reason


@pytest.mark.parametrize(("source", "cursor", "reason"), [
    ("", 0, "empty cell"),
    ("   \n  ", 2, "empty cell"),
    ("x = 1", 0, "cursor at the start of a non-empty line"),
    ("x = 1\ny = 2", 6, "cursor at the start of a non-empty line"),
    ("print(x, y, zeta)", 6, "text right of the cursor"),
    ("x = 1\n", 6, None),          # a fresh empty line after code
    ("print(", 6, None),
    ("print()", 6, None),          # only a closing bracket right of the cursor
    ("f(\"\")", 3, None),          # auto-closed quote and bracket
    ("foo(a, b)", 7, None),        # "b)" : one letter is "a few"
    ("    ", 4, "empty cell"),
    ("def f():\n    ", 13, None),  # after the indent of a new line
])
def test_auto_rules(source: str, cursor: int, reason: str | None) -> None:
    assert skip_reason(source, cursor, "auto") == reason


@pytest.mark.parametrize(("source", "cursor"), [("", 0), ("x = 1", 0), ("print(x, y, zeta)", 6)])
def test_forced_passes_every_rule(source: str, cursor: int) -> None:
    assert skip_reason(source, cursor, "forced") is None


@pytest.mark.parametrize(("code", "kind"), [
    ("x = 1  # a comm", "comment"),
    ("s = 'abc", "string"),
    ('s = """doc\nmore', "string"),
    ('s = "a#b"; t = ', "code"),
    ("s = 'it\\'s", "string"),
    ("s = 'open\nx = ", "code"),  # an unterminated one-line string ends with its line
    ('d = """x"""\ny = ', "code"),
    ("# note\nz = ", "code"),
])
def test_position_kind(code: str, kind: str) -> None:
    assert position_kind(code) == kind


def test_code_only_skips_strings_and_comments_unless_forced() -> None:
    source = "x = 1  # explain"
    assert skip_reason(source, len(source), "auto") is None
    assert skip_reason(source, len(source), "auto", code_only=True) == "inside a comment"
    assert skip_reason(source, len(source), "forced", code_only=True) is None
