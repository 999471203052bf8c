"""What other notebooks write: the lines of the training corpus's notebooks, for the lines the cursor's
notebook does not hold (#16.4).

A 3.4M-parameter model knows little of the idioms a data-science notebook repeats: `penguins = sns.`
-> `load_dataset("penguins")`, `from sklearn.` -> `model_selection import train_test_split`, after
`import seaborn as sns` the line `sns.set_theme()`. The table (`data/notebook_lines.json.gz`, built by
`ghostbook train line-table` from the notebooks the model trains on, decontaminated as the corpus is)
holds each code line (stripped; no comments, magics or long data lines) with the number of notebooks
that have it, and each pair of consecutive code lines likewise; a comment counts only as the line
above the code line right below it. The candidates
(`completion.candidates`) offer its lines after the notebook's own; the decoding's model ranks them
all (`decoding.copies`). Pure text, no model.
"""

from __future__ import annotations

import bisect
import functools
import gzip
import heapq
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

# at most this many of the table's lines are offered at one cursor (validation split, the table of
# 2026-12-02: 1 / 2 / 3 lines, 22.2% / 22.2% / 22.0% exact)
OFFERED = 2
# the typed text of a line must be this long before the table completes it (`df` says too little)
MIN_HEAD = 3
# lines longer than this are data or prose, not idioms (the builder drops them)
MAX_LINE = 200
TABLE = "notebook_lines.json.gz"
# a line is offered after another where at least this share of the notebooks with the other go on
# with it (validation split: 0 / 0.25 / 0.5 / 0.8: 21.7% / 22.5% / 22.7% / 22.2% exact): after
# `df.head()` (in many notebooks) no one line is the idiom; after a rare line its one follower is
FOLLOWING_SHARE = 0.5
_IMPORT_AS = re.compile(r"import ([A-Za-z_][\w.]*) as ([A-Za-z_]\w*)")


def is_code_line(line: str) -> bool:
    """Whether a stripped line is one the table keeps: code, not a comment, magic or shell line, not
    longer than `MAX_LINE`."""
    return bool(line) and not line.startswith(("#", "%", "!")) and len(line) <= MAX_LINE


def code_lines(text: str) -> list[str]:
    """The lines of `text` the table keeps, stripped, in order."""
    return [s for line in text.split("\n") if is_code_line(s := line.strip())]


def is_comment(line: str) -> bool:
    """Whether a stripped line is a comment that says something (`# Load the data`, not `#`)."""
    return line.startswith("#") and len(line) > 2 and len(line) <= MAX_LINE


def commented_lines(text: str) -> list[tuple[str, str]]:
    """The code lines of `text` that come right below a comment, each with that comment (stripped)."""
    lines = [s for line in text.split("\n") if (s := line.strip())]
    return [(above, line) for above, line in zip(lines, lines[1:], strict=False)
            if is_comment(above) and is_code_line(line)]


@dataclass(frozen=True)
class LineMemory:
    """`lines` (sorted) with the number of notebooks holding each (`notebooks`), and for a line the lines
    that follow it, commonest first (`following`)."""

    lines: Sequence[str] = ()
    notebooks: Sequence[int] = ()
    following: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: object) -> LineMemory:
        """The table as `ghostbook train line-table` writes it: `{"lines": [[line, notebooks], ...]
        (sorted), "next": [[index, index, notebooks], ...]}`; an empty memory for any other shape."""
        if not isinstance(data, dict):
            return cls()
        try:
            rows = [(str(line), int(n)) for line, n in data.get("lines", [])]
            lines = [line for line, _ in rows]
            pairs = sorted((-int(n), len(lines[int(b)]), int(a), int(b)) for a, b, n in data.get("next", []))
            counts = [n for _, n in rows]
            following: dict[str, list[str]] = {}
            for n, _, a, b in pairs:  # the commonest first, the shorter of those first
                if -n >= FOLLOWING_SHARE * counts[a]:
                    following.setdefault(lines[a], []).append(lines[b])
        except (TypeError, ValueError, IndexError):
            return cls()
        if lines != sorted(lines):
            return cls()
        return cls(lines, [n for _, n in rows], {k: tuple(v) for k, v in following.items()})

    @classmethod
    def load(cls, path: Path) -> LineMemory:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return cls.from_json(json.load(f))

    def rests(self, head: str, limit: int = OFFERED) -> list[str]:
        """The rests of the lines that begin as the cursor's line `head` (its text before the cursor,
        indentation aside, at least `MIN_HEAD` characters), in most notebooks first, the shorter first
        among as many."""
        typed = head.lstrip()
        if len(typed) < MIN_HEAD or typed.startswith("#"):  # the table's comments are keys, not lines to offer
            return []
        start = bisect.bisect_left(self.lines, typed)
        end = bisect.bisect_left(self.lines, typed + "\U0010ffff", start)
        best = heapq.nsmallest(limit, (i for i in range(start, end) if len(self.lines[i]) > len(typed)),
                               key=lambda i: (-self.notebooks[i], len(self.lines[i])))
        return [self.lines[i][len(typed):] for i in best]

    def count(self, line: str) -> int:
        """In how many notebooks the (stripped) `line` is written; 0 if the table lacks it."""
        i = bisect.bisect_left(self.lines, line)
        return self.notebooks[i] if i < len(self.lines) and self.lines[i] == line else 0

    def import_as(self, alias: str) -> str | None:
        """How other notebooks import the module they call `alias` (`pdr` -> `pandas_datareader as
        pdr`), the spelling in the most notebooks; None if none does, or only by its own last name
        (`import scipy.stats as stats`: `from scipy import stats` is the idiom)."""
        return self._aliases.get(alias)

    def imports(self, module: str) -> bool:
        """Whether other notebooks import `module` by that name (`import skore`, `import skore as sk`,
        `from skore.api import Project`): a module, where a name only used (`tfp.`) may be an alias."""
        for head in (f"import {module}", f"from {module}"):
            start = bisect.bisect_left(self.lines, head)
            end = bisect.bisect_left(self.lines, head + "\U0010ffff", start)
            if any(self.lines[i][len(head):][:1] in ("", " ", ".", ",") for i in range(start, end)):
                return True
        return False

    @functools.cached_property
    def _aliases(self) -> dict[str, str]:
        best: dict[str, tuple[int, str]] = {}
        start = bisect.bisect_left(self.lines, "import ")
        end = bisect.bisect_left(self.lines, "import \U0010ffff", start)
        for i in range(start, end):
            m = _IMPORT_AS.fullmatch(self.lines[i])
            if m is None or m.group(1).rsplit(".", 1)[-1] == m.group(2):
                continue  # `import scipy.stats as stats`, `import time as time`: a from-import says it
            if self.notebooks[i] > best.get(m.group(2), (0, ""))[0]:
                best[m.group(2)] = (self.notebooks[i], f"{m.group(1)} as {m.group(2)}")
        return {alias: spelled for alias, (_, spelled) in best.items()}

    def after(self, above: str, limit: int = OFFERED) -> list[str]:
        """The lines that follow the line `above` (stripped) in the most notebooks, the shorter first
        among as many."""
        return list(self.following.get(above.strip(), ())[:limit])


@functools.cache
def line_memory() -> LineMemory:
    """The table shipped in the package; empty if it is missing or unreadable."""
    try:
        with resources.as_file(resources.files("ghostbook.completion") / "data" / TABLE) as path:
            return LineMemory.load(path)
    except (OSError, ValueError, EOFError):
        return LineMemory()


def table_json(texts: Iterable[tuple[str, str]], min_notebooks: int = 1) -> dict[str, list[list[str | int]]]:
    """The table of `texts` (pairs of a notebook's name and its text) in the form `LineMemory.from_json`
    reads: each code line and each pair of consecutive code lines with the number of notebooks that
    hold it, those in at least `min_notebooks`; and each comment right above a code line, with that
    pair (`# License: MIT` -> `print(__doc__)`: a key, never a line to offer)."""
    seen: dict[str, set[str]] = {}
    pairs: dict[tuple[str, str], set[str]] = {}
    for name, text in texts:
        lines = code_lines(text)
        commented = commented_lines(text)
        for line in [*lines, *(comment for comment, _ in commented)]:
            seen.setdefault(line, set()).add(name)
        for pair in [*zip(lines, lines[1:], strict=False), *commented]:
            pairs.setdefault(pair, set()).add(name)
    kept = sorted(line for line, names in seen.items() if len(names) >= min_notebooks)
    at = {line: i for i, line in enumerate(kept)}
    return {"lines": [[line, len(seen[line])] for line in kept],
            "next": [[at[a], at[b], len(names)] for (a, b), names in sorted(pairs.items())
                     if len(names) >= min_notebooks and a in at and b in at]}
