"""What counts as a garbage suggestion, shared by the completion filters and the notebook benchmark:
one that a rule of `decoding.suggestion.SuggestionRules` would cut (the same rule objects the final
filter applies and the search keeps): it repeats one of its own lines, copies a line within 3 lines of
the cursor, leaves a line that repeats the one before it, runs past 6 lines (12 filling a block just
opened), starts with whitespace beyond the right indentation, breaks the cell's syntax where a shorter
prefix would not, or is a block of comments the user is not writing.
"""

from __future__ import annotations

from ghostbook.decoding.length import MAX_BLOCK_LINES
from ghostbook.decoding.suggestion import SuggestionRules

MAX_LINES = MAX_BLOCK_LINES  # never more lines than this


def garbage_reason(text: str, line_before: str = "", line_above: str = "", *, cell_before: str | None = None,
                   cell_after: str = "") -> str | None:
    """Why `text` (inserted after `line_before`, the cursor's line up to the cursor) is garbage, or
    None. `cell_before`/`cell_after`: the cursor's cell around the cursor; without them the cell is
    taken as `line_above` then `line_before`."""
    if not text.strip():
        return None
    if cell_before is None:
        cell_before = f"{line_above}\n{line_before}" if line_above else line_before
    return SuggestionRules.around(cell_before, cell_after).violation(text)
