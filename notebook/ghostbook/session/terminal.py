"""Stream text as a terminal shows it, as Jupyter does: progress bars (tqdm) redraw one line in place.

`\\r` returns to the start of the line, `\\b` steps back one column, and the next characters overwrite
what is there; `ESC[K` (0, 1, 2) erases part or all of the line, `ESC[nG`/`nC`/`nD` move along it.
Colour (SGR) sequences pass through and take no column; other cursor movements (up, down, screen
erase) are dropped, since a notebook output is not a screen.
"""

from __future__ import annotations

import re

# Everything that edits the line rather than appends to it.
_EDITS = re.compile(r"[\r\b]|\x1b\[[0-9;?]*[A-HJKSTfhlsu]")
_TOKEN = re.compile(r"(\r\n|[\r\n\b]|\x1b\[[0-9;?]*[A-Za-z])")
_ESCAPE = re.compile(r"(\x1b\[[0-9;?]*[A-Za-z])")
MAX_LINE = 10_000  # an unfinished line longer than this is let go of (no more redrawing of it)


class TerminalLine:
    """The last, unfinished line of a stream. `write` returns the text of the lines it finished."""

    def __init__(self) -> None:
        self.cells: list[str] = []  # one visible character each, after the escape codes written before it
        self.col = 0
        self.pending = ""  # escape codes written at the cursor, not yet followed by a character

    def text(self) -> str:
        return "".join(self.cells) + self.pending

    def write(self, text: str) -> str:
        if self.col == len(self.cells) and not _EDITS.search(text):
            return self._append_plain(text)  # the common case, at C speed
        done: list[str] = []
        for token in _TOKEN.split(text):
            if not token:
                continue
            if token in ("\n", "\r\n"):
                done.append(self.text() + "\n")
                self.cells, self.col, self.pending = [], 0, ""
            elif token == "\r":
                self.col = 0
            elif token == "\b":
                self.col = max(0, self.col - 1)
            elif token.startswith("\x1b["):
                self._escape(token)
            else:
                self._put(token)
        if len(self.cells) > MAX_LINE and self.col == len(self.cells):
            done.append(self.text())
            self.cells, self.col, self.pending = [], 0, ""
        return "".join(done)

    def _append_plain(self, text: str) -> str:
        cut = text.rfind("\n") + 1
        if cut:
            done = self.text() + text[:cut]
            self.cells, self.col, self.pending = [], 0, ""
            text = text[cut:]
        else:
            done = ""
        for piece in _ESCAPE.split(text):
            if piece.startswith("\x1b["):
                self.pending += piece
            elif piece:
                self._put(piece)
        if len(self.cells) > MAX_LINE:
            done += self.text()
            self.cells, self.col, self.pending = [], 0, ""
        return done

    def _put(self, run: str) -> None:
        start = self.col
        if start > len(self.cells):
            self.cells.extend(" " * (start - len(self.cells)))
        new = list(run)
        if self.pending:
            new[0] = self.pending + new[0]
            self.pending = ""
        end = start + len(new)
        for i, old in enumerate(self.cells[start:end]):
            if len(old) > 1:  # keep the colour changes of what is overwritten, in order
                new[i] = old[:-1] + new[i]
        self.cells[start:end] = new
        self.col = end

    def _escape(self, code: str) -> None:
        final, args = code[-1], code[2:-1]
        n = int(args) if args.isdigit() else 0
        if final == "m":
            self.pending += code
        elif final == "K":
            if n == 1:  # erase from the line start to the cursor
                self.cells[: self.col] = [cell[:-1] + " " for cell in self.cells[: self.col]]
            else:  # 0: erase to the line end; 2: the whole line (the cursor stays where it is)
                cut = 0 if n == 2 else self.col
                self.pending += "".join(cell[:-1] for cell in self.cells[cut:])
                del self.cells[cut:]
        elif final == "G":
            self.col = max(n, 1) - 1
        elif final == "C":
            self.col += max(n, 1)
        elif final == "D":
            self.col = max(0, self.col - max(n, 1))
        # Other codes (cursor up/down, screen erase, modes) have no meaning in an output: dropped.


def terminal_text(text: str) -> str:
    """`text` as a terminal would show it (one pass over a whole stream text)."""
    if not _EDITS.search(text):
        return text
    line = TerminalLine()
    return line.write(text) + line.text()
