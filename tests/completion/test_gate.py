from __future__ import annotations

import pytest
from ghostbook.completion.gate import skip_reason


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
