"""A suggestion is not a block of comments unless the user is writing one: a small model asked where
code goes often writes lines of `#` prose instead. Two or more comment lines in a row are cut (with
all after them) unless the cursor's line or the code line above it is a comment; one comment line
before code (`# plot` then `plt.plot(x)`) stays. A docstring the suggestion opens and goes on writing
(a triple quote, then prose) is such a block too. Nor does a suggestion on a new line start with an
empty comment (`#`, then a licence's lines copied from the notebook's first cell; `# ----------------`,
a rule with no word in it, which no one types as suggested), comments or not."""

from __future__ import annotations

import re
from dataclasses import dataclass

BLOCK = 2  # comment lines in a row that make a block


QUOTES = ('"""', "'''")


# a comment with no letter or digit in it: `#`, `# ----------------`, `#####`
_EMPTY_COMMENT = re.compile(r"#[^A-Za-z0-9]*")


def empty_comment(line: str) -> bool:
    """Whether `line` is a comment that says nothing (`_EMPTY_COMMENT`), its indentation aside."""
    return _EMPTY_COMMENT.fullmatch(line.strip()) is not None


def _comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def _opens_doc(line: str) -> bool:
    """A line that opens (or closes) a triple-quoted string."""
    return any(line.count(q) % 2 == 1 for q in QUOTES)


@dataclass(frozen=True)
class CommentBlock:
    before: str  # the cursor's cell up to the cursor

    def writing_comments(self) -> bool:
        if any(self.before.count(q) % 2 == 1 for q in QUOTES):  # inside a docstring
            return True
        head = self.before.rsplit("\n", 1)[-1]
        if head.strip():
            return "#" in head  # a comment on the cursor's line (a `#` in a string counts too: rare)
        above = [ln for ln in self.before.split("\n")[:-1] if ln.strip()]
        return bool(above) and _comment(above[-1])

    def cut(self, text: str) -> str:
        head = self.before.rsplit("\n", 1)[-1]
        if not head.strip() and empty_comment(text.split("\n", 1)[0]):
            return ""  # a new line that starts with an empty comment says nothing there (`fragments`)
        if self.writing_comments():
            return text
        lines = (head + text).split("\n")
        run, start, doc = 0, 0, False
        for i, line in enumerate(lines):
            opens = _opens_doc(line)
            prose = doc or _comment(line) or (opens and line.strip().startswith(QUOTES))
            if opens:
                doc = not doc
            if prose:
                run, start = run + 1, (i if run == 0 else start)
                if run == BLOCK:
                    return "\n".join(text.split("\n")[:start])
            elif line.strip():
                run = 0
        return text
