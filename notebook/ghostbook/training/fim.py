"""Fill-in-the-middle spans (Bavarian et al. 2022) shaped like an editor's cursor cuts, and PSM/SPM layout."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

# the special tokens and the PSM/SPM layouts live with the editor's templates (one place for all three)
from ghostbook.models.templates import (  # noqa: F401 - re-exported for training
    EOT,
    FIM_MIDDLE,
    FIM_PAD,
    FIM_PREFIX,
    FIM_SUFFIX,
    SPECIAL_TOKENS,
    fit,
    psm,
    spm,
)

# Relative weights of the span kinds.
SPAN_WEIGHTS = {"line": 0.35, "rest_of_line": 0.15, "block": 0.2, "char": 0.3}


@dataclass(frozen=True)
class Split:
    """A document cut into prefix, middle and suffix (prefix + middle + suffix == document, or its start
    for a `writing` span, whose document ends where the writer is)."""

    prefix: str
    middle: str
    suffix: str
    kind: str


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, c in enumerate(text):
        if c == "\n" and i + 1 < len(text):
            starts.append(i + 1)
    return starts


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _nonblank_lines(text: str, starts: list[int]) -> list[int]:
    return [i for i, s in enumerate(starts) if text[s : _line_end(text, s)].strip()]


_TRIPLE = re.compile(r'"""|\'\'\'')


def code_lines(text: str, starts: list[int]) -> list[int]:
    """Indices of the non-blank lines that are code: not comments, not inside or opening a
    triple-quoted string (docstrings), by a quote-parity scan (cheap, right for ordinary code)."""
    out: list[int] = []
    open_quote: str | None = None
    for i, s in enumerate(starts):
        line = text[s : _line_end(text, s)]
        stripped = line.strip()
        was_open = open_quote is not None
        for m in _TRIPLE.finditer(line):
            q = m.group()
            if open_quote is None:
                open_quote = q
            elif open_quote == q:
                open_quote = None
        if stripped and not was_open and not stripped.startswith(("#", '"""', "'''", 'r"""', "r'''")):
            out.append(i)
    return out


def _random_line(text: str, rng: random.Random, code_only: bool = False) -> tuple[int, int] | None:
    """Start and end (without the newline) of a random non-blank line (a code line if `code_only`
    and the text has one), or None if there is none."""
    starts = _line_starts(text)
    lines = (code_lines(text, starts) if code_only else []) or _nonblank_lines(text, starts)
    if not lines:
        return None
    s = starts[rng.choice(lines)]
    return s, _line_end(text, s)


def char_span(text: str, rng: random.Random) -> Split:
    """Two uniformly random cut points (the original FIM recipe)."""
    a, b = sorted(rng.randint(0, len(text)) for _ in range(2))
    return Split(text[:a], text[a:b], text[b:], "char")


def line_span(text: str, rng: random.Random, code_only: bool = False) -> Split | None:
    """One whole non-blank line (with its indentation, without its newline): HumanEval single-line."""
    picked = _random_line(text, rng, code_only)
    if picked is None:
        return None
    s, e = picked
    return Split(text[:s], text[s:e], text[e:], "line")


def rest_of_line_span(text: str, rng: random.Random, code_only: bool = False) -> Split | None:
    """Cursor inside a line (after the indent, after a space, or mid-word); the middle ends the line."""
    picked = _random_line(text, rng, code_only)
    if picked is None:
        return None
    s, e = picked
    line = text[s:e]
    indent = len(line) - len(line.lstrip())
    r = rng.random()
    if r < 0.3:
        cut = s + indent
    elif r < 0.65:
        spaces = [s + i + 1 for i, c in enumerate(line) if c == " " and i >= indent]
        cut = rng.choice(spaces) if spaces else s + indent
    else:
        cut = rng.randint(s + indent, e)
    return Split(text[:cut], text[cut:e], text[e:], "rest_of_line")


def writing_span(text: str, rng: random.Random, code_only: bool = False) -> Split | None:
    """The cursor of someone writing: nothing after it yet (the editor's prompt while a notebook is
    written holds only the cells above). Cut as `rest_of_line_span`; the middle runs to the line's end
    (a third of the time over up to three more lines) and the rest of the document is dropped."""
    split = rest_of_line_span(text, rng, code_only)
    if split is None:
        return None
    end = len(split.prefix) + len(split.middle)
    if rng.random() < 1 / 3:
        for _ in range(rng.randint(1, 3)):
            if end >= len(text) - 1:
                break
            end = _line_end(text, end + 1)
    return Split(split.prefix, text[len(split.prefix) : end], "", "writing")


def with_writing(weights: dict[str, float], share: float) -> dict[str, float]:
    """`weights` scaled to `1 - share`, plus writing spans at `share`."""
    if share <= 0:
        return dict(weights)
    total = sum(weights.values())
    return {**{kind: weight * (1 - share) / total for kind, weight in weights.items()}, "writing": share}


def block_span(text: str, rng: random.Random, code_only: bool = False, max_lines: int = 12) -> Split | None:
    """Two or more consecutive whole lines (starting at a code line if `code_only`): HumanEval multi-line."""
    starts = _line_starts(text)
    lines = _nonblank_lines(text, starts)
    if len(lines) < 2:
        return None
    firsts = [i for i in code_lines(text, starts) if i < lines[-1]] if code_only else []
    first = rng.choice(firsts or lines[:-1])
    last = min(len(starts) - 1, first + rng.randint(1, max_lines - 1))
    s = starts[first]
    e = _line_end(text, starts[last])
    return Split(text[:s], text[s:e], text[e:], "block")


def random_split(text: str, rng: random.Random, weights: dict[str, float] | None = None,
                 code_only: bool = False) -> Split:
    """Pick a span kind by weight and cut `text` (line-shaped spans at code lines if `code_only`, as
    an editor's completions are asked for; docstring and comment lines are otherwise the commonest
    lines and the model learns to answer a lone docstring quote); falls back to a char span."""
    weights = weights or SPAN_WEIGHTS
    kind = rng.choices(list(weights), weights=list(weights.values()))[0]
    spans = {"line": line_span, "rest_of_line": rest_of_line_span, "block": block_span, "writing": writing_span}
    split = spans[kind](text, rng, code_only) if kind in spans else None
    return split or char_span(text, rng)
