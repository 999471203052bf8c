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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ghostbook.decoding.repetition import open_call

TABLE = Path(__file__).resolve().parent / "data" / "call_arguments.json"
# a callee whose calls pass nothing at most this often takes arguments
MAX_EMPTY = 0.02


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


@dataclass(frozen=True)
class EmptyCall:
    """A start rule (`indentation.StartRule`) where the cursor is right inside the bracket of a call
    that takes arguments, nothing typed in it yet: the line may not begin by closing it."""

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
        return None if not written else not written.startswith(b")")


@dataclass(frozen=True)
class ClosedEmpty:
    """The final filter's side of `EmptyCall`: a suggestion that closes such a call at once is none."""

    before: str  # the cursor's cell up to the cursor

    def cut(self, text: str) -> str:
        rule = EmptyCall.at(self.before.rsplit("\n", 1)[-1])
        return "" if rule is not None and rule.allows(text.encode()) is False else text
