"""How long a suggestion may be: `MAX_LINES` lines, or up to `MAX_BLOCK_LINES` where it fills a block
just opened (by the cursor's line, completed by the suggestion's first line, or by the line above a
blank cursor line). Past that a small model is writing the rest of the notebook, not the user's code."""

from __future__ import annotations

from dataclasses import dataclass

MAX_LINES = 6
MAX_BLOCK_LINES = 12


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _opens(line: str) -> bool:
    return line.split("#", 1)[0].rstrip().endswith(":")


@dataclass(frozen=True)
class LineCount:
    """The suggestion cut to its allowed number of lines."""

    before: str  # the cursor's cell up to the cursor

    def limit(self, text: str) -> int:
        lines = text.split("\n")
        head = self.before.rsplit("\n", 1)[-1]
        above = [ln for ln in self.before.split("\n")[:-1] if ln.strip()]
        if _opens(head + lines[0]):  # the suggestion's first line opens the block
            opener, body = _indent(head + lines[0]), 1
        elif not head.strip() and above and _opens(above[-1]) and lines[0].strip():  # just opened above
            opener, body = _indent(above[-1]), 0
        else:
            return MAX_LINES
        inside = body
        for line in lines[body:]:
            if line.strip() and _indent(line if inside else head + line) <= opener:
                break
            inside += 1
        return max(MAX_LINES, min(MAX_BLOCK_LINES, inside))

    def cut(self, text: str) -> str:
        return "\n".join(text.split("\n")[: self.limit(text)])
