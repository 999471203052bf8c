"""Lines the user passed over: a suggestion shown and dismissed (typed past, Esc, the cursor moved) is
not shown again in that cell by an automatic request.

Writing a cell of imports, the built-in model offered `import seaborn as sns` after a pause at each of
five new lines; the user typed something else each time. The editor reports what became of each
suggestion (`suggest_feedback`); a dismissed one's whole line (the cursor's line up to the request,
then the suggestion's first line) is remembered for that user and cell, and an automatic suggestion
that would make the same line is held back. Ctrl+Space still answers with it: the user asked.
"""

from __future__ import annotations

from collections import OrderedDict

MAX_SENT = 64  # suggestions whose fate is awaited, per service
MAX_LINES = 16  # lines remembered per user and cell


class PassedOver:
    """What was sent under which request, and the lines dismissed, per (client, cell)."""

    def __init__(self) -> None:
        self._sent: OrderedDict[str, tuple[str, str, str]] = OrderedDict()
        self._lines: OrderedDict[tuple[str, str], list[str]] = OrderedDict()

    def sent(self, ref: str, client_id: str, cell_id: str, head: str, text: str) -> None:
        """A suggestion `text` was sent for `ref` where the cursor's line was `head` so far."""
        self._sent[ref] = (client_id, cell_id, whole_line(head, text))
        while len(self._sent) > MAX_SENT:
            self._sent.popitem(last=False)

    def dismissed(self, ref: str) -> None:
        """The user passed over `ref`'s suggestion."""
        found = self._sent.pop(ref, None)
        if found is None or not found[2]:
            return
        client_id, cell_id, line = found
        lines = self._lines.setdefault((client_id, cell_id), [])
        if line not in lines:
            lines.append(line)
            del lines[:-MAX_LINES]
        self._lines.move_to_end((client_id, cell_id))
        while len(self._lines) > MAX_SENT:
            self._lines.popitem(last=False)

    def holds(self, client_id: str, cell_id: str, head: str, text: str) -> bool:
        """Whether `text` at a line begun with `head` makes a line this user passed over in this cell."""
        lines = self._lines.get((client_id, cell_id))
        return bool(lines) and whole_line(head, text) in lines  # type: ignore[operator]


def whole_line(head: str, text: str) -> str:
    """The line the suggestion would make, spaces around it ignored ("" for no suggestion)."""
    first = text.split("\n", 1)[0]
    return (head + first).strip() if first.strip() else ""
