"""A light scanner of Python source: which characters are code, and whether the end of the text is
inside a string, a comment or code. Shared by the gate and the bracket filter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

Position = Literal["code", "string", "comment"]


class PythonScan:
    """Iterate over the code characters of `code` (strings and comments skipped); after iterating,
    `end` tells where the text ends. An unterminated one-line string ends with its line."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.end: Position = "code"

    def __iter__(self) -> Iterator[str]:
        code, quote, i = self.code, "", 0
        while i < len(code):
            c = code[i]
            if quote:
                if c == "\\":
                    i += 1
                elif code.startswith(quote, i):
                    i += len(quote) - 1
                    quote = ""
                elif c == "\n" and len(quote) == 1:
                    quote = ""
            elif c == "#":
                nl = code.find("\n", i)
                if nl < 0:
                    self.end = "comment"
                    return
                i = nl
            elif c in "\"'":
                quote = c * 3 if code.startswith(c * 3, i) else c
                i += len(quote) - 1
            else:
                yield c
            i += 1
        self.end = "string" if quote else "code"


def position_kind(code: str) -> Position:
    """Whether the end of `code` is inside a string literal, a comment, or code."""
    scan = PythonScan(code)
    for _ in scan:
        pass
    return scan.end
