"""No garbage: the rules a whole suggestion obeys, each a small object with `cut(text) -> text` (the
suggestion as the rule lets it stand: fewer lines, less leading space, or "" for none). The final
filter (`completion.filters.drop_garbage`) applies them until none cuts; the notebook benchmark
(`completion.garbage`) counts a suggestion as garbage when one would cut it. The search keeps the
same rules as it goes (`decoding.lines`: lines to avoid, where a line may start).

- `OwnLines`: never repeats one of its own lines; `NearbyCopies`: never copies a line within 3 lines
  of the cursor; `LineBefore`: no line it leaves repeats the line right before it (the rest of the
  cursor's line counted); `EchoedCall`: never starts by writing again the call the cursor is inside
  (`decoding.repetition`);
- `LineCount`: at most 6 lines, or 12 where it fills a block just opened (`decoding.length`);
- `LeadingSpace`: never starts with whitespace beyond the right indentation (`decoding.indentation`);
- `NewStatement`: made mid-line, never starts a new statement there, nor a keyword after `X.`
  (`decoding.statements`: a server's text has no search that keeps to names after the dot);
- `SyntaxPrefix`: never breaks the cell's syntax where a shorter prefix would not (`decoding.syntax_fit`);
- `CommentBlock`: no block of comments unless the user is writing one (`decoding.comments`);
- `RepeatedCondition`: no `elif` tests a condition its chain already tests (`decoding.conditions`);
- `ClosedEmpty`: no call the notebooks nearly always pass something closed empty (`decoding.empty_calls`);
- `ValueOfAnotherName`: no top-level `name = value` whose whole value the notebook above assigns only to
  other names (`decoding.repetition`);
- `SelfAssignment`: no line that assigns a name to itself (`y = y`; `decoding.repetition`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ghostbook.decoding.comments import CommentBlock
from ghostbook.decoding.conditions import RepeatedCondition
from ghostbook.decoding.empty_calls import ClosedEmpty
from ghostbook.decoding.indentation import LeadingSpace
from ghostbook.decoding.length import LineCount
from ghostbook.decoding.repetition import (
    EchoedCall,
    LineBefore,
    NearbyCopies,
    OwnLines,
    SelfAssignment,
    ValueOfAnotherName,
)
from ghostbook.decoding.statements import NewStatement
from ghostbook.decoding.syntax_fit import SyntaxPrefix

# Rules that judge a suggestion line by line from its first, cutting before the first line they drop:
# once that is the first, no text that follows can save it (streaming may stop there).
SETTLED = frozenset({"copies a nearby line", "echoes the call it is in"})


class Rule(Protocol):
    def cut(self, text: str) -> str: ...


@dataclass(frozen=True)
class SuggestionRules:
    """The rules for a suggestion at the cursor in a cell (`before` and `after` it)."""

    rules: tuple[tuple[str, Rule], ...]

    @classmethod
    def around(cls, before: str, after: str, above: str = "") -> SuggestionRules:
        """The rules around the cursor: `before` and `after` it in its cell; `above`, the notebook's text
        above the cursor's line, for the rules that read the cells above (none where it is "")."""
        return cls((
            ("starts with extra whitespace", LeadingSpace(before)),
            ("starts a new statement", NewStatement(before)),
            ("repeated line", OwnLines(before)),
            ("copies a nearby line", NearbyCopies(before, after)),
            ("repeats the line before", LineBefore(before, after)),
            ("echoes the call it is in", EchoedCall(before)),
            ("closes a call that takes arguments", ClosedEmpty(before)),
            ("another name's value", ValueOfAnotherName(before, above)),
            ("assigns a name to itself", SelfAssignment(before)),
            ("too many lines", LineCount(before)),
            ("block of comments", CommentBlock(before)),
            ("breaks the syntax", SyntaxPrefix(before, after)),
            ("repeats a condition of its chain", RepeatedCondition(before, after)),
        ))

    def enforce(self, text: str) -> str:
        """`text` cut by every rule until none cuts more (each cut only shortens it)."""
        while True:
            start = text
            for _, rule in self.rules:
                cut = rule.cut(text)
                text = text if cut == text else cut.rstrip()
            if text == start:
                return text

    def enforce_streaming(self, text: str) -> str:
        """While the suggestion streams: the rules on its complete lines (all but the syntax rule, which
        waits for the end: a line being written rarely parses), the leading-space rule on the whole;
        the line being written stays unless an earlier line was cut."""
        done, sep, open_line = text.rpartition("\n")
        if not sep:
            return self.rules[0][1].cut(text)
        kept = SuggestionRules(tuple((n, r) for n, r in self.rules if n != "breaks the syntax")).enforce(done)
        return kept + sep + open_line if kept == done else kept

    def spoiled(self, text: str) -> bool:
        """Whether `text`'s complete lines leave nothing whatever follows them: a rule that cuts before
        the first line it drops (`SETTLED`) drops the first (a copy of a nearby line, the call echoed)."""
        return bool(text.strip()) and any(name in SETTLED and not rule.cut(text).strip() for name, rule in self.rules)

    def violation(self, text: str) -> str | None:
        """The first rule `text` breaks (its name), or None."""
        text = text.rstrip()
        return next((name for name, rule in self.rules if rule.cut(text).rstrip() != text), None)
