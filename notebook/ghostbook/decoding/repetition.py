"""Lines a suggestion's first line should not repeat: the code lines right before and right after it.

A small FIM model often "completes" a line by writing the line that comes next (it is in the suffix)
or the one just above it: on HumanEval's single-line tasks (cursor at the line's start, every 3rd) the
shipped model's beam answer was one of those two in 31 of 345 tasks, while the right answer is one of
them in 2 of all 1033. The beam search (`models.beam`) skips such lines and takes the next likeliest
instead: 0 repeats, exact match 5.5% -> 6.1% there; in the editor a repeat of the next line would only
be cut by the suffix-overlap filter, leaving nothing to show.
"""

from __future__ import annotations


def repeated_lines(prefix: str, suffix: str) -> frozenset[bytes]:
    """First-line texts to avoid: those that would make the cursor's line equal (up to trailing spaces)
    to the nearest non-blank line above it or below it. Texts are what follows the cursor. None when
    the cursor's line goes on after the cursor (the suggestion is then an insertion, not a line)."""
    rest, _, below = suffix.partition("\n")
    if rest.strip():
        return frozenset()
    head = prefix.rsplit("\n", 1)[-1]
    above = prefix[: len(prefix) - len(head)].rstrip("\n")
    avoid: set[bytes] = set()
    for line in (_last_code_line(above), _first_code_line(below)):
        if line is not None and line.startswith(head) and line[len(head):].strip():
            avoid.add(line[len(head):].rstrip().encode())
    return frozenset(avoid)


def _last_code_line(text: str) -> str | None:
    return next((ln for ln in reversed(text.split("\n")) if ln.strip()), None)


def _first_code_line(text: str) -> str | None:
    return next((ln for ln in text.split("\n") if ln.strip()), None)
