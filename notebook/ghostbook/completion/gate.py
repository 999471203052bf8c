"""Skip rules for automatic requests: places where unrequested ghost text annoys (DESIGN §3).

A forced request (Ctrl+Space) passes every rule. Whether text is selected is the client's to check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ghostbook.completion.scan import position_kind

CLOSERS = frozenset(")]}\"'` \t")
MAX_RIGHT_CHARS = 3  # "a few" characters right of the cursor that are not closing brackets or quotes


def rest_of_line(source: str, cursor: int) -> str:
    end = source.find("\n", cursor)
    return source[cursor:] if end < 0 else source[cursor:end]


def line_before(source: str, cursor: int) -> str:
    return source[source.rfind("\n", 0, cursor) + 1 : cursor]


def skip_reason(source: str, cursor: int, trigger: Literal["auto", "forced"],
                code_only: bool = False, known_key: Callable[[], bool] | None = None) -> str | None:
    """Why an automatic request at `cursor` should get no suggestion, or None to go ahead.
    `code_only`: also skip inside strings and comments (for a weak model, whose prose is noise), but
    not in a string that `known_key()` says the notebook's keys complete (`candidates.completes_key`)."""
    if trigger == "forced":
        return None
    if not source.strip():
        return "empty cell"
    before, after = line_before(source, cursor), rest_of_line(source, cursor)
    if not before and after.strip():
        return "cursor at the start of a non-empty line"
    if sum(1 for c in after if c not in CLOSERS) > MAX_RIGHT_CHARS:
        return "text right of the cursor"
    if code_only and (kind := position_kind(source[:cursor])) != "code":
        if kind == "string" and known_key is not None and known_key():
            return None
        return f"inside a {kind}"
    return None
