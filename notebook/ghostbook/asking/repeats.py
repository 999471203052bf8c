"""An answer that says the same thing again has fallen into a loop (greedy decoding of a small model does:
SmolLM2 writes one paragraph over and over until its token limit, or one line, such as a cell's
`# cell <id>` marker, on every line). The answer ends before the repeat."""

from __future__ import annotations

MIN_PARAGRAPH = 40  # characters: shorter paragraphs ("```", "Example:") may well come twice
SAME_LINES = 6  # a line said this many times in a row (no code repeats a line so) is a loop


def loop_start(answer: str) -> int | None:
    """Where the repeat that ends the answer begins: its last whole paragraph (one a blank line has ended)
    when the answer said it before (equal up to surrounding whitespace), or the second time of a non-blank
    line said `SAME_LINES` times or more in a row; None otherwise."""
    return _repeated_paragraph(answer) if "\n\n" in answer else _repeated_line(answer)


def _repeated_paragraph(answer: str) -> int | None:
    end = answer.rfind("\n\n")
    body = answer[:end].rstrip("\n")
    start = body.rfind("\n\n") + 2 if "\n\n" in body else 0
    last = body[start:].strip()
    if len(last) >= MIN_PARAGRAPH and last in {paragraph.strip() for paragraph in body[:start].split("\n\n")}:
        return start
    return _repeated_line(answer)


def _repeated_line(answer: str) -> int | None:
    whole = answer[: answer.rfind("\n") + 1]
    lines = whole.split("\n")[:-1]
    last = lines[-1] if lines else ""
    run = next((n for n, line in enumerate(reversed(lines)) if line != last), len(lines))
    if run < SAME_LINES or not last.strip():
        return None
    return len(whole) - (run - 1) * (len(last) + 1)  # after the run's first line
