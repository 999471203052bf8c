"""An answer that says the same paragraph again has fallen into a loop (greedy decoding of a small model
does: SmolLM2 writes one paragraph over and over until its token limit). The answer ends before the
repeat."""

from __future__ import annotations

MIN_PARAGRAPH = 40  # characters: shorter paragraphs ("```", "Example:") may well come twice


def loop_start(answer: str) -> int | None:
    """Where the answer's last whole paragraph (one a blank line has ended) begins, when it is one the
    answer said before it (equal up to surrounding whitespace); None otherwise."""
    end = answer.rfind("\n\n")
    if end < 0:
        return None
    body = answer[:end].rstrip("\n")
    start = body.rfind("\n\n") + 2 if "\n\n" in body else 0
    last = body[start:].strip()
    if len(last) < MIN_PARAGRAPH:
        return None
    earlier = {paragraph.strip() for paragraph in body[:start].split("\n\n")}
    return start if last in earlier else None
