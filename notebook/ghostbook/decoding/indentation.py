"""Where a line started at the cursor may be indented, by Python's own rules.

With the cursor in a line's indentation (a blank line, or only spaces before it), the suggestion's
first line must sit where Python accepts it: deeper than the line above when that line opens a block
(ends with `:`), else at the indentation of the enclosing blocks (the line above's, or a dedent to an
outer one). A small FIM model gets this wrong often: on HumanEval's single-line tasks (cursor at the
line's start) the shipped model's beam answer was indented where Python raises an IndentationError in
94 of 1033 tasks, the right answer never is. The beam search (`decoding.beam`) drops such lines as they
form: none left, pass@1 8.4% -> 9.7% (exact match, which ignores indentation, 8.4% -> 8.5%).
`tokenize` reads the code above; where it cannot (an open bracket or string, tabs) there is no rule.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ghostbook.decoding.syntax_fit import parses, without_magics


class StartRule(Protocol):
    """How a line may start (`IndentRule`, `decoding.attributes.Attributes`): a line whose text after
    the cursor starts with `text` is dropped as it forms where `allows` says False (None: not decided yet)."""

    def allows(self, text: bytes) -> bool | None: ...


class AllStarts:
    """A start each of `rules` allows: False where one says False, else None where one is undecided."""

    def __init__(self, rules: Sequence[StartRule]) -> None:
        self.rules = tuple(rules)

    def allows(self, text: bytes) -> bool | None:
        said = [rule.allows(text) for rule in self.rules]
        return False if False in said else None if None in said else True


@dataclass(frozen=True)
class IndentRule:
    """Indentations (in columns) the cursor's line may take. `column`: where the cursor is (only
    spaces before it); `deeper_than`: the line above opens a block, so more than this; else one of
    `levels` (the enclosing blocks' indentations)."""

    column: int
    deeper_than: int | None
    levels: frozenset[int]
    newline: bool = True  # whether the text may start with a newline (an empty first line)
    mid_line: bool = False  # the cursor is after code on its line

    def allows(self, text: bytes) -> bool | None:
        """Whether a line whose text after the cursor starts with `text` is indented where Python
        accepts it; None while `text` is only spaces not yet past every allowed level (not decided yet).
        Comments too sit where code may."""
        body = text.lstrip(b" ")
        if not body:  # undecided, unless already deeper than any level allowed
            past = self.deeper_than is None and self.levels and self.column + len(text) > max(self.levels)
            return False if past else None
        if body[:1] in (b"\n", b"\r"):
            return self.newline
        if body[:1] == b"\t":
            return True
        indent = self.column + len(text) - len(body)
        if self.deeper_than is not None:
            return indent > self.deeper_than
        return indent in self.levels


def indent_rule(prefix: str) -> IndentRule | None:
    """The rule for a line started at the end of `prefix`, or None: the cursor is past the line's
    indentation, or the code above is not complete statements (open bracket, string, tabs)."""
    head = prefix.rsplit("\n", 1)[-1]
    if head.strip(" ") or "\t" in prefix:
        return None
    above = prefix[: len(prefix) - len(head)]
    stack, levels, opens = [0], [0], False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(above).readline):
            if tok.type == tokenize.INDENT:
                stack.append(len(tok.string))
            elif tok.type == tokenize.DEDENT:
                stack.pop()
            elif tok.type == tokenize.NEWLINE:  # a statement ended: the blocks around it are known
                levels = list(stack)
            elif tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
                opens = tok.type == tokenize.OP and tok.string == ":"
    except (tokenize.TokenError, SyntaxError):  # an open bracket or string (IndentationError included)
        return None
    if opens:
        return IndentRule(len(head), levels[-1], frozenset())
    return IndentRule(len(head), None, frozenset(levels))


# After these a line may go on below (an open bracket, a block, a continued argument list).
GOES_ON = ("(", "[", "{", ",", ":", "\\")


def start_rule(prefix: str) -> IndentRule | None:
    """Where a suggestion may start at the end of `prefix` (the cursor's cell before the cursor): in a
    line's indentation, `indent_rule`; after code on the line, right at the cursor, or one space further
    where the code does not end in a space (`x =` + ` 1`, never `x = ` + ` 1`), and on a new line only
    where the line can end there (`print(x)`, `f(`, `if x:`; not `y = x * `)."""
    head = prefix.rsplit("\n", 1)[-1]
    if not head.strip() or "\t" in head:
        return indent_rule(prefix)
    column = len(head)
    levels = {column} if head[-1].isspace() else {column, column + 1}
    code = head.rstrip()
    newline = code.endswith(GOES_ON) or _complete(prefix)
    return IndentRule(column, None, frozenset(levels), newline, mid_line=True)


def _complete(prefix: str) -> bool:
    return parses(without_magics(prefix))


@dataclass(frozen=True)
class LeadingSpace:
    """A suggestion never starts with whitespace beyond the right indentation (`start_rule`): mid-line,
    extra spaces are taken off (a first line of nothing but spaces then a newline, where a line may
    not end at the cursor, drops the suggestion); in a line's indentation a first line indented where
    Python rejects it drops the suggestion."""

    before: str  # the cursor's cell up to the cursor

    def cut(self, text: str) -> str:
        rule = start_rule(self.before)
        if rule is None or not text:
            return text
        if not self.before.rsplit("\n", 1)[-1].strip():  # in the indentation
            return "" if rule.allows(text.encode()) is False else text
        first, sep, rest = text.partition("\n")
        if not first.strip():  # mid-line, nothing but spaces before a newline (or the end)
            return sep + rest if sep and rule.newline else ""
        extra = len(first) - len(first.lstrip(" \t")) - (max(rule.levels) - rule.column)
        return text[extra:] if extra > 0 else text
