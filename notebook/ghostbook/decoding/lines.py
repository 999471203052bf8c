"""The rules a line must obey (`LineRules`, each a small object), and for a suggestion's lines after
its first, the rules re-made for each line from what is written so far (`FurtherLines`).

A small FIM model trained mostly on single-line spans ends its middle after one line, so a suggestion
that needs more lines never gets them. Past its first line a suggestion is therefore decoded line by
line (`decoding.search.beam_lines`): each further line, or the end, is what a beam finds after the
lines written so far, under the same rules as the first line, applied where that line stands: not a
copy of the line above or below it, indented where Python allows, keeping the code parseable, and
ranked by the read check, where "end here" is a candidate like any line. `FurtherLines` keeps the text
around the cursor and makes those rules for the line after `written`.

Pure: no model here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ghostbook.decoding.indentation import StartRule, indent_rule
from ghostbook.decoding.reading import ReadCheck
from ghostbook.decoding.repetition import (
    DEEPEST,
    avoid_anywhere,
    imports_above,
    looping_lines,
    nearby_lines,
    repeated_lines,
)
from ghostbook.decoding.syntax_fit import SyntaxFit

# What each line after a suggestion's first starts with, spelled by the newline token a beam picks.
LEAD = b"\n"


class LineFit(Protocol):
    """A rule a finished line should keep (`SyntaxFit`): the likeliest line that does wins."""

    def fits(self, line: bytes) -> bool: ...


class AllFit:
    """A line keeps this rule where it keeps each of `rules`."""

    def __init__(self, rules: Sequence[LineFit]) -> None:
        self.rules = tuple(rules)

    def fits(self, line: bytes) -> bool:
        return all(rule.fits(line) for rule in self.rules)


@dataclass(frozen=True)
class LineRules:
    """What a beam's candidate lines must respect (`decoding.beam.beam_line`): `avoid`, line texts
    (without trailing spaces) that may not win (`decoding.repetition`: the neighbours, a loop);
    `indent`, how the line may start: where it may be indented, and after `module.` which names (a line
    that starts elsewhere is dropped as soon as its text shows it: `decoding.indentation.StartRule`);
    `syntax`, whether a finished line fits the code around it (the likeliest that does wins);
    `reading`, the read check that ranks the best lines (with a backend that can read)."""

    avoid: frozenset[bytes] = frozenset()
    indent: StartRule | None = None
    syntax: LineFit | None = None
    reading: ReadCheck | None = None


@dataclass(frozen=True)
class FurtherLines:
    """The text around the cursor: `prefix` (the notebook's text before it, without the bytes token
    healing removed: the suggestion spells them first), `suffix`, and the same cut for the cursor's
    cell (`cell_prefix`, `cell_suffix`), which the syntax and indentation rules read; `words`, what
    each line's words must be besides (`decoding.fragments`: no lone name, no `x = x`)."""

    prefix: str
    suffix: str
    cell_prefix: str
    cell_suffix: str
    syntax: bool = True
    read_check: bool = True
    words: LineFit | None = None

    @classmethod
    def around(cls, prefix: str, suffix: str, cell_prefix: str, cell_suffix: str, healed: bytes = b"",
               syntax: bool = True, read_check: bool = True, words: LineFit | None = None) -> FurtherLines:
        """For the cursor between `prefix` and `suffix` (and its cell's parts), with `healed` (the
        prompt's removed bytes, which end both prefixes) to be spelled by the suggestion."""
        cut = len(healed.decode("utf-8", "replace"))
        return cls(prefix[: len(prefix) - cut], suffix, cell_prefix[: len(cell_prefix) - cut], cell_suffix,
                   syntax, read_check, words)

    def after(self, written: bytes) -> LineRules:
        """The rules for the line after `written` (the suggestion so far, whole lines, healed bytes
        first, no trailing newline): it starts with `LEAD`."""
        text = written.decode("utf-8", "replace") + LEAD.decode()
        prefix, cell = self.prefix + text, self.cell_prefix + text
        head = self.prefix.rsplit("\n", 1)[-1]  # the cursor's line before the suggestion
        written_lines = (head + text).split("\n")[:-1]
        near = nearby_lines(self.cell_prefix, self.cell_suffix)
        return LineRules(
            repeated_lines(prefix, self.suffix) | looping_lines(written_lines)
            | avoid_anywhere(written_lines + near + imports_above(self.prefix), DEEPEST),
            indent_rule(cell),
            both(SyntaxFit(cell, self.cell_suffix) if self.syntax else None, self.words),
            ReadCheck.around(prefix, self.suffix, LEAD) if self.read_check else None,
        )


def both(fit: LineFit | None, rule: LineFit | None) -> LineFit | None:
    """A line keeps this where it keeps `fit` and `rule` (either may be None: no rule); one `AllFit`."""
    if fit is None or rule is None:
        return rule if fit is None else fit
    return AllFit([*(fit.rules if isinstance(fit, AllFit) else (fit,)), rule])
