"""A new line that says nothing is no line to offer: a lone name the notebook never mentions, or an
empty comment.

At a new line's start the small model's likeliest line is often a fragment: `s`, `p`, `se`, `#` (on
the notebook benchmark's test split a lone `s` was the suggestion for 47 of 254 new-line and new-cell
tasks). A bare name is a statement only to show a variable's value, which a notebook does with a name
it has. `Fragments` is a line rule (`lines.LineFit`) that such lines do not keep, combined with the
syntax rule by `AllFit`: the likeliest line that keeps both wins.

Pure: no model here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ghostbook.decoding.lines import LineFit

_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+\(?([\w. \t,]+)", re.M)


class Fragments:
    """Lines (bytes, as the beam writes them) keep the rule unless they are one name that `text` (the
    notebook around the cursor) does not have as a word, binds by an import or writes only before a
    dot (`sns`, `nx`: a module shown says nothing), or a `#` with nothing after it."""

    def __init__(self, text: str) -> None:
        self.text = text

    @functools.cached_property
    def _words(self) -> frozenset[bytes]:
        return frozenset(_NAME.findall(self.text.encode("utf-8", "replace")))

    @functools.cached_property
    def _imported(self) -> frozenset[bytes]:
        names: set[str] = set()
        for m in _IMPORT.finditer(self.text):
            for part in m.group(1).split(","):
                words = part.split()
                name = (words[-1] if len(words) == 3 and words[1] == "as" else words[0].split(".")[0]) if words else ""
                if _NAME.fullmatch(name.encode()):
                    names.add(name)
        return frozenset(name.encode() for name in names)

    def fits(self, line: bytes) -> bool:
        code = line.strip()
        if code == b"#":
            return False
        return _NAME.fullmatch(code) is None or (code in self._words and code not in self._imported
                                                 and code not in self._owners)

    @functools.cached_property
    def _owners(self) -> frozenset[bytes]:
        """Names the text writes only before a dot (`nx.draw(...)`, `plt.show()`): modules, mostly,
        whose import may be out of the text's reach."""
        before_dot: set[bytes] = set()
        elsewhere: set[bytes] = set()
        text = self.text.encode("utf-8", "replace")
        for m in _NAME.finditer(text):
            if m.start() and text[m.start() - 1 : m.start()] == b".":
                continue
            (before_dot if text[m.end() : m.end() + 1] == b"." else elsewhere).add(m.group())
        return frozenset(before_dot - elsewhere)


class AllFit:
    """A line keeps this rule where it keeps each of `rules`."""

    def __init__(self, rules: Sequence[LineFit]) -> None:
        self.rules = tuple(rules)

    def fits(self, line: bytes) -> bool:
        return all(rule.fits(line) for rule in self.rules)
