"""Skip rules for automatic requests: places where unrequested ghost text annoys (DESIGN §3).

A forced request (Ctrl+Space) passes every rule. Whether text is selected is the client's to check.
"""

from __future__ import annotations

from typing import Literal

CLOSERS = frozenset(")]}\"'` \t")
MAX_RIGHT_CHARS = 3  # "a few" characters right of the cursor that are not closing brackets or quotes


def rest_of_line(source: str, cursor: int) -> str:
    end = source.find("\n", cursor)
    return source[cursor:] if end < 0 else source[cursor:end]


def line_before(source: str, cursor: int) -> str:
    return source[source.rfind("\n", 0, cursor) + 1 : cursor]


def position_kind(code: str) -> Literal["code", "string", "comment"]:
    """Whether the end of `code` is inside a string literal, a comment, or code (a light scanner)."""
    quote = ""
    i = 0
    while i < len(code):
        c = code[i]
        if quote:
            if c == "\\":
                i += 1
            elif code.startswith(quote, i):
                i += len(quote) - 1
                quote = ""
            elif c == "\n" and len(quote) == 1:
                quote = ""  # an unterminated one-line string ends with its line
        elif c == "#":
            nl = code.find("\n", i)
            if nl < 0:
                return "comment"
            i = nl
        elif c in "\"'":
            quote = c * 3 if code.startswith(c * 3, i) else c
            i += len(quote) - 1
        i += 1
    return "string" if quote else "code"


def skip_reason(source: str, cursor: int, trigger: Literal["auto", "forced"],
                code_only: bool = False) -> str | None:
    """Why an automatic request at `cursor` should get no suggestion, or None to go ahead.
    `code_only`: also skip inside strings and comments (for a weak model, whose prose is noise)."""
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
        return f"inside a {kind}"
    return None
