"""A new line that says nothing is no line to offer: a lone name the notebook never mentions (or any
lone name where it would do nothing: above more code of its cell, or inside a block), a name assigned
to itself (`data = data`), an empty comment, or an import of nothing new (`import s`, `import sns`,
`import numpy` below `import numpy as np`); right below a line of code that imports nothing, no
import at all.

At a new line's start the small model's likeliest line is often a fragment: `s`, `p`, `se`, `#` (on
the notebook benchmark's test split a lone `s` was the suggestion for 47 of 254 new-line and new-cell
tasks). A bare name is a statement only to show a variable's value, which a notebook does with a name
it has, on a cell's last line at the top level (IPython shows that one); above more code, or in a
block, it does nothing (`G`, `p`, `ax` in the middle of a cell: the beam's short line that beats the
longer lines which begin with it). Right below a statement that is no import (in the cell, no blank
line between), the small model, which has read more library files than notebooks, often begins
imports again (`import json` under `dict_file = '...'`), where the training notebooks almost never
write one (docs/completion.md). `Fragments` is a line rule (`lines.LineFit`) that such lines do
not keep, combined with the syntax rule by `lines.AllFit`: the likeliest line that keeps both wins;
`NoImport` is a rule on how the line starts (`indentation.StartRule`), so that no import begins
where one cannot win (greedy, finishing a line the beam ran out of time on, keeps it too).

Pure: no model here.
"""

from __future__ import annotations

import bisect
import builtins
import functools
import importlib.util
import keyword
import re
import sys

from ghostbook.decoding.comments import empty_comment

_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+\(?([\w. \t,]+)", re.M)
_IMPORTED_MODULE = re.compile(r"^[ \t]*(?:import[ \t]+([\w.]+)|from[ \t]+([\w.]+)[ \t]+import\b)", re.M)
# a suggested line that imports one module (`import numpy`, `import seaborn as sns`)
_IMPORT_LINE = re.compile(r"import[ \t]+([A-Za-z_][\w.]*)([ \t]+as[ \t]+\w+)?")
# a name assigned to itself (`data = data`, `self.x = self.x`): a statement that does nothing
_SELF_ASSIGNMENT = re.compile(rb"([A-Za-z_][\w.]*)[ \t]*=[ \t]*\1")
# the words an import statement begins with
_IMPORT_WORDS = (b"import", b"from")
# a line after which an import may come: an import, a comment, a magic, a decorator, a block's header
# (`try:`, `def f():`), a docstring's end (a function's first lines), or a line that goes on (`\`, an
# open bracket)
_IMPORTS_MAY_FOLLOW = re.compile(r"^(?:import|from)\s|^[#%!@]|[:\\,([{]$|\"\"\"$|'''$")


# `import t`: a module's name this short that is no module here is a name begun
BEGUN = 2
# a line's first word this short (`i`, `fr`) begins too many names to be held to the notebook's
OPEN_LETTERS = 2


class Fragments:
    """Lines (bytes, as the beam writes them) keep the rule unless they are one name that `text` (the
    notebook around the cursor) does not have as a word, binds by an import or writes only before a
    dot (`sns`, `nx`: a module shown says nothing), a comment with no word (`comments.empty_comment`),
    or an import of one module that brings nothing new (`_new_import`). With `shown` False (the line is above more code
    of its cell, or in a block) a lone name is a fragment whatever it names, and so is one the line
    indents (a block's body); keywords (`break`, `return`) are statements, not names."""

    def __init__(self, text: str, shown: bool = True) -> None:
        self.text = text
        self.shown = shown

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
        if empty_comment(code.decode("utf-8", "replace")) or assigns_itself(code.decode("utf-8", "replace")):
            return False
        if (m := _IMPORT_LINE.fullmatch(code.decode("utf-8", "replace"))) is not None:
            return self._new_import(m.group(1), m.group(2) is not None)
        if _NAME.fullmatch(code) is None or keyword.iskeyword(code.decode()):
            return True
        if not self.shown or line[:1].isspace():
            return False
        return code in self._words and code not in self._imported and code not in self._owners

    def _new_import(self, module: str, aliased: bool) -> bool:
        """Whether `import module` (`aliased`: with an `as`) brings something new: not a name the
        notebook's imports bind (`import sns`), not the start of a module's name it imports that is no
        module itself (`import se`, `import mat`), not a name of `BEGUN` letters or fewer that is no
        module here and that the notebook never uses (`import t`, a name begun; this Python may lack
        a module the kernel has, so longer names stay), not a module it imports already (`import
        numpy` below `import numpy as np`)."""
        top = module.split(".")[0]
        if top.encode() in self._imported and top not in self._tops:
            return False
        if not is_module(top) and (any(name.startswith(top) and name != top for name in self._tops)
                                   or len(top) <= BEGUN and not re.search(rf"(?<![\w.]){re.escape(top)}\.", self.text)):
            return False
        return aliased or module not in self._modules

    @functools.cached_property
    def _modules(self) -> frozenset[str]:
        """The modules the text imports (`import numpy as np`: `numpy`; `from a.b import c`: `a.b`)."""
        return imported_modules(self.text)

    @functools.cached_property
    def _tops(self) -> frozenset[str]:
        """The top-level names of `_modules` (`matplotlib` for `matplotlib.pyplot`)."""
        return frozenset(name.split(".")[0] for name in self._modules)

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


class NoImport:
    """A line that does not begin an import statement (`import x`, `from x import y`): a start rule
    (`indentation.StartRule`) for the line `below_code`. A word that begins as `import` or `from` do
    stays open only while a name of `text` (the notebook around the cursor) or a builtin begins so too
    (`importances`, `from_date`, `frozenset`): a line kept from `import random` must not find its way
    out by running the words together (`importrandom`), nor be left at `import` with no way on."""

    def __init__(self, text: str) -> None:
        self.text = text

    @functools.cached_property
    def _names(self) -> tuple[bytes, ...]:
        """The notebook's names and the builtins' (`frozenset`), sorted, but the import words."""
        names = set(_NAME.findall(self.text.encode("utf-8", "replace"))) | {n.encode() for n in dir(builtins)}
        return tuple(sorted(names - set(_IMPORT_WORDS)))

    def _begins_a_name(self, word: bytes) -> bool:
        at = bisect.bisect_left(self._names, word)
        return at < len(self._names) and self._names[at].startswith(word)

    def allows(self, text: bytes) -> bool | None:
        body = text.lstrip(b" \t")
        lead = _NAME.match(body)
        if lead is None:
            return True
        word = lead.group()
        if not any(word.startswith(w) or w.startswith(word) for w in _IMPORT_WORDS):
            return True
        if lead.end() == len(body):  # the word may go on
            return None if len(word) <= OPEN_LETTERS or self._begins_a_name(word) else False
        return word not in _IMPORT_WORDS and word in self._names


def below_code(cell_prefix: str) -> bool:
    """Whether the cursor's line (the end of `cell_prefix`, its cell up to the cursor) comes below a
    statement of its cell after which no import comes (`_IMPORTS_MAY_FOLLOW`), with at most blank and
    comment lines between them."""
    for line in reversed(cell_prefix.split("\n")[:-1]):
        above = line.strip()
        if above and not above.startswith("#"):
            return _IMPORTS_MAY_FOLLOW.search(above) is None
    return False


def assigns_itself(line: str) -> bool:
    """Whether `line` assigns a name to itself (`data = data`, `self.x = self.x`): a statement that does
    nothing (or a NameError)."""
    return _SELF_ASSIGNMENT.fullmatch(line.strip().encode()) is not None


def imported_modules(text: str) -> frozenset[str]:
    """The modules `text` imports (`import numpy as np`: `numpy`; `from a.b import c`: `a.b`)."""
    return frozenset(m.group(1) or m.group(2) for m in _IMPORTED_MODULE.finditer(text))


@functools.lru_cache(maxsize=1024)
def is_module(name: str) -> bool:
    """Whether `name` is a module this Python has (the standard library's or an installed one's): `os`,
    `sklearn`, not `df` (a variable) nor `se` (a module's name begun)."""
    if name in sys.stdlib_module_names:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
