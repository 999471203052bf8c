"""What counts as a garbage suggestion, shared by the completion filters and the notebook benchmark.

Garbage is text no user wants to see: a line repeated three or more times, more than `MAX_LINES`
lines, or a first line that repeats the line above the cursor.
"""

from __future__ import annotations

from collections import Counter

MAX_LINES = 8


def garbage_reason(text: str, line_before: str = "", line_above: str = "") -> str | None:
    """Why `text` (inserted after `line_before`, the cursor's line up to the cursor) is garbage, or
    None. `line_above` is the line above the cursor's line."""
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return None
    if len(text.strip("\n").split("\n")) > MAX_LINES:
        return "too many lines"
    if max(Counter(line.strip() for line in lines).values()) >= 3:
        return "repeated line"
    first = (line_before + text.split("\n", 1)[0]).strip()
    if first and first == line_above.strip():
        return "repeats the line above"
    return None
