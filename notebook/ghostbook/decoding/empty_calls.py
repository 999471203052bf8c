"""A call that notebooks rarely make with no arguments is not closed right after its bracket.

`print(` + `)` is a call that parses, so the syntax rule lets it through, and a small model writes it
often (seen in writing mode, shown automatically), where notebooks nearly always print something. The
table (`data/call_arguments.json`, `ghostbook train call-table`) holds, for each function the notebooks
call often enough, the share of its calls that pass nothing; a callee at most `MAX_EMPTY` of whose
calls are empty takes arguments. A callee the table does not know as written (`my_list.append`) is
judged by its method (`.append`); one called empty more often (`plt.show()`, `df.head()`), or not
known at all (the user's own functions), is left alone. Pure: no model here.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ghostbook.decoding.repetition import open_call

TABLE = Path(__file__).resolve().parent / "data" / "call_arguments.json"
# a callee whose calls pass nothing at most this often takes arguments
MAX_EMPTY = 0.02
# a call closed with nothing in it: a dotted callee, or a method of what a bracket closed (`.sum()`)
_EMPTY_CALL = re.compile(r"(?:(?<![\w.])([A-Za-z_][\w.]*)|(?<=[)\]])(\.[A-Za-z_]\w*))\(\s*\)")
# a string on one line (blanked before looking for calls)
_STRING = re.compile(r"""(["'])(?:\\.|(?!\1).)*\1""")


@functools.cache
def _empty_shares() -> Mapping[str, float]:
    """callee (or `.method`) -> the share of its calls in the training notebooks that pass nothing."""
    try:
        return json.loads(TABLE.read_text())
    except (OSError, ValueError):
        return {}


def takes_arguments(callee: str) -> bool:
    """Whether the notebooks nearly always pass `callee` (a dotted name) something."""
    shares = _empty_shares()
    share = shares.get(callee)
    if share is None and "." in callee:
        share = shares.get("." + callee.rsplit(".", 1)[1])
    return share is not None and share <= MAX_EMPTY


def closes_empty(head: str, line: str) -> bool:
    """Whether `line`, written after `head` (the cursor's line up to the cursor), closes with nothing
    in it a call that takes arguments (`print(` + `)`, or `print()` on a new line)."""
    full = _blank_strings(head + line)
    return any(m.end() > len(head) and takes_arguments(m.group(1) or m.group(2)) for m in _EMPTY_CALL.finditer(full))


def _blank_strings(code: str) -> str:
    """`code` with its one-line strings' insides blanked (no call is read in them)."""
    return _STRING.sub(lambda m: m.group(1) * len(m.group()), code)


@dataclass(frozen=True)
class EmptyCalls:
    """A line rule (`lines.LineFit`) for the first line the search writes: no call that takes arguments
    closed empty."""

    head: str  # the cursor's line up to the cursor

    def fits(self, line: bytes) -> bool:
        return not closes_empty(self.head, line.decode("utf-8", "replace"))


@dataclass(frozen=True)
class EmptyCall:
    """A start rule (`indentation.StartRule`) where the cursor is right inside the bracket of a call
    that takes arguments, nothing typed in it yet: the line may not begin by closing it, nor by a new
    line."""

    callee: str

    @classmethod
    def at(cls, head: str) -> EmptyCall | None:
        """The rule for the cursor's line up to the cursor (`head`), or None where it does not hold."""
        call = open_call(head)
        if call is None or call[1].strip() or not takes_arguments(call[0]):
            return None
        return cls(call[0])

    def allows(self, text: bytes) -> bool | None:
        written = text.lstrip(b" \t")
        return None if not written else not written.startswith((b")", b"\n"))


@dataclass(frozen=True)
class ClosedEmpty:
    """The final filter's side of `EmptyCalls`: a suggestion whose first line closes such a call empty
    is none."""

    before: str  # the cursor's cell up to the cursor

    def cut(self, text: str) -> str:
        return "" if closes_empty(self.before.rsplit("\n", 1)[-1], text.split("\n", 1)[0]) else text
