"""The rules for a suggestion's lines after its first, re-made for each line from what is written so far.

A small FIM model trained mostly on single-line spans ends its middle after one line, so a suggestion
that needs more lines never gets them. Past its first line a suggestion is therefore decoded line by
line (`models.streaming.beam_lines`): each further line, or the end, is what a beam finds after the
lines written so far, under the same rules as the first line, applied where that line stands: not a
copy of the line above or below it, indented where Python allows, keeping the code parseable, and
ranked by the read check, where "end here" is a candidate like any line. `FurtherLines` keeps the text
around the cursor and makes those rules for the line after `written`.

Pure: no model here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ghostbook.completion.indentation import IndentRule, indent_rule
from ghostbook.completion.neighbours import repeated_lines
from ghostbook.completion.reading import ReadCheck
from ghostbook.completion.syntax_fit import SyntaxFit
from ghostbook.models.beam import LEAD

LOOP_LINES = 4  # the longest run of lines whose repeat `looping_lines` stops


def looping_lines(lines: list[str], longest: int = LOOP_LINES) -> frozenset[bytes]:
    """Next lines (without trailing spaces) that would make a small model's suggestion loop: one that
    would end a second copy of its last 2..`longest` lines, and one that opens a block with a condition
    the suggestion has already opened (`if not res:` again), at the same indentation or nested inside
    that block while it is open. Real code does neither (no canonical HumanEval solution does; a test
    checks): there a line repeats within 6 lines 13 times in 1033, always a `return`, `break` or call
    line, never a pair of lines nor an `if`/`for`/`while` line."""
    lines = [line.rstrip() for line in lines]
    n = len(lines)
    avoid = {lines[n - p] for p in range(2, longest + 1)
             if n >= 2 * p - 1 and lines[n - p + 1 :] == lines[n - 2 * p + 1 : n - p]}
    deepest = _indent(lines[-1]) + 4 if lines else 0  # the next line is indented at most this deep
    for j, line in enumerate(lines):
        if line.endswith(":") and " " in line.strip():
            avoid.add(line)
            if all(_indent(below) > _indent(line) for below in lines[j + 1 :] if below.strip()):  # still open
                avoid |= {" " * i + line.strip() for i in range(_indent(line) + 1, deepest + 1)}
    return frozenset(line.encode() for line in avoid)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@dataclass(frozen=True)
class LineRules:
    """What the beam's candidates for one further line must respect (see `models.beam.beam_line`)."""

    avoid: frozenset[bytes]
    indent: IndentRule | None
    syntax: SyntaxFit | None
    reading: ReadCheck | None


@dataclass(frozen=True)
class FurtherLines:
    """The text around the cursor: `prefix` (the notebook's text before it, without the bytes token
    healing removed: the suggestion spells them first), `suffix`, and the same cut for the cursor's
    cell (`cell_prefix`, `cell_suffix`), which the syntax and indentation rules read."""

    prefix: str
    suffix: str
    cell_prefix: str
    cell_suffix: str
    syntax: bool = True
    read_check: bool = True

    @classmethod
    def around(cls, prefix: str, suffix: str, cell_prefix: str, cell_suffix: str, healed: bytes = b"",
               syntax: bool = True, read_check: bool = True) -> FurtherLines:
        """For the cursor between `prefix` and `suffix` (and its cell's parts), with `healed` (the
        prompt's removed bytes, which end both prefixes) to be spelled by the suggestion."""
        cut = len(healed.decode("utf-8", "replace"))
        return cls(prefix[: len(prefix) - cut], suffix, cell_prefix[: len(cell_prefix) - cut], cell_suffix,
                   syntax, read_check)

    def after(self, written: bytes) -> LineRules:
        """The rules for the line after `written` (the suggestion so far, whole lines, healed bytes
        first, no trailing newline): it starts with `LEAD`."""
        text = written.decode("utf-8", "replace") + LEAD.decode()
        prefix, cell = self.prefix + text, self.cell_prefix + text
        head = self.prefix.rsplit("\n", 1)[-1]  # the cursor's line before the suggestion
        written_lines = (head + text).split("\n")[:-1]
        return LineRules(
            repeated_lines(prefix, self.suffix) | looping_lines(written_lines),
            indent_rule(cell),
            SyntaxFit(cell, self.cell_suffix) if self.syntax else None,
            ReadCheck.around(prefix, self.suffix, LEAD) if self.read_check else None,
        )
