"""After `X.` comes one of X's attributes, not one of the notebook's variables.

The small model often writes a name it has just read where an attribute belongs: `fig, ax = plt.` ->
`sales.head()` or `ax`, `warnings.` -> `warnings`, `pd.` -> `euro12`. `Attributes` is a rule on how
the line starts (`indentation.StartRule`: the beam drops a line as soon as its first name goes wrong)
and on finished lines (`lines.LineFit`):

- after the dot comes a name, and not a lone letter the notebook never writes after a dot (`s`, `f`:
  the start of something else);
- a name that the notebook uses, but never after a dot (and not only as a keyword argument), is a
  variable, a module or a function of its own: no attribute;
- where the attributes of X are `known` (a module's, counted in a corpus: `completion.module_attributes`),
  the attribute is one of them or one the notebook writes after `X.`.
- where X is an object of the kernel's (`df`, `np`), the attribute is one it `has`: what `dir(X)`
  says, a DataFrame's columns among them, is all there is (`completion.kernel_attributes`); of a
  module, one of its `known` too, or one the notebook writes after `X.`.

In `from X import ` the first name is one of X's `known` names (`sales` is no name from
`sklearn.model_selection`), or where the kernel has imported X, one X `has`. A name no rule knows is
left to the model. Pure: no model here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection

_ATTRIBUTE = re.compile(r"(?:(?<![\w.])([A-Za-z_][\w.]*)|[)\]])\.([A-Za-z_][A-Za-z0-9_]*)?$")
_FROM_IMPORT = re.compile(r"^\s*from\s+[A-Za-z_][\w.]*\s+import\s+([A-Za-z_]\w*)?$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LEADING = re.compile(rb"[A-Za-z0-9_]*")


class Attributes:
    """The line (bytes after the cursor, as the beam writes them) spells an attribute of `owner`:
    `typed` (its part before the cursor) + the line's leading name characters. It may not be a name
    `text` (the notebook around the cursor) uses only where a variable stands (never after a `.`, and not
    as a keyword argument only); with `known` (the owner's attributes) it is one of them or one `text`
    writes after `owner.`; with `has` (all the owner has: the kernel's object) one of those, and of
    them one of `known` or the notebook's where they have any (the variables rule gives way)."""

    def __init__(self, typed: str, text: str, known: Collection[str] | None = None, owner: str | None = None,
                 has: Collection[str] | None = None) -> None:
        self.typed = typed.encode()
        self.text = text
        self.known = None if known is None else frozenset(name.encode() for name in known)
        self.owner = owner
        self.has = None if has is None else frozenset(name.encode() for name in has)

    @classmethod
    def at(cls, head: str, text: str, known: Collection[str] | None = None,
           has: Collection[str] | None = None) -> Attributes | None:
        """The rule where `head` (the cursor's line up to the cursor) ends after `owner.` (a dotted name,
        or `)`/`]`) and perhaps part of a name (`plt.sub`: `sub` typed), or where it is to take a
        from-import's first name (`known` the module's: no text needed, the names are all known);
        None elsewhere. `has`: all that a dotted owner has (the kernel's object)."""
        if (m := _FROM_IMPORT.match(head)) is not None:  # the first name a from-import takes
            return cls(m.group(1) or "", "", known, None, has) if known is not None or has is not None else None
        m = _ATTRIBUTE.search(head)
        if m is None:
            return None
        return cls(m.group(2) or "", text, known, m.group(1), has if m.group(1) else None)

    @functools.cached_property
    def _names(self) -> tuple[frozenset[bytes], frozenset[bytes], frozenset[bytes]]:
        """(names written after `owner.`, names written only where a variable stands: never after a dot,
        names written after any dot)."""
        attributes: set[str] = set()
        owned: set[str] = set()
        elsewhere: set[str] = set()
        text, owner = self.text, self.owner
        for m in _NAME.finditer(text):
            name, start = m.group(), m.start()
            if start and text[start - 1] == ".":
                attributes.add(name)
                if owner and text.endswith(owner, 0, start - 1) and not _name_char(text, start - 2 - len(owner)):
                    owned.add(name)
            elif not _keyword_argument(text, start, m.end()):
                elsewhere.add(name)
        return (frozenset(n.encode() for n in owned),
                frozenset(n.encode() for n in elsewhere - attributes),
                frozenset(n.encode() for n in attributes))

    @functools.cached_property
    def _choices(self) -> frozenset[bytes] | None:
        """Every name allowed (None: any but the variables): with `has`, those of its names that `known`
        or the notebook has after `owner.` (all of them where none is: `known` is a table's guess)."""
        if self.known is None and self.has is None:
            return None
        owned, variables, _ = self._names
        if self.has is None:
            return ((self.known or frozenset()) | owned) - variables
        return (self.has & (self.known | owned) if self.known is not None else frozenset()) or self.has

    @functools.cached_property
    def _allowed(self) -> frozenset[bytes] | None:
        """The prefixes a name being written may have (None: any)."""
        if self._choices is None:
            return None
        return frozenset(name[:i] for name in self._choices for i in range(len(name) + 1))

    def allows(self, text: bytes) -> bool | None:
        lead = _LEADING.match(text)
        end = lead.end() if lead is not None else 0
        word = self.typed + text[:end]
        if end == len(text):  # the name may go on: not decided yet unless no name allowed starts so
            return None if self._allowed is None or word in self._allowed else False
        return bool(word) and self.fits(text)  # after the dot a name, nothing else

    def fits(self, line: bytes) -> bool:
        lead = _LEADING.match(line)
        word = self.typed + (lead.group() if lead is not None else b"")
        if not word:
            return not line.strip()  # after the dot a name (an empty line: the end, judged elsewhere)
        if self._choices is not None:
            return word in self._choices
        _, variables, attributes = self._names
        return word not in variables and (len(word) > 1 or word in attributes)  # a lone `s`, `f`: no name


def owner_at(head: str) -> str | None:
    """The dotted name whose attribute `head` (the cursor's line up to the cursor) is taking (`df` in
    `x = df.gro`, `np.random` in `np.random.`); None elsewhere (and after `)` or `]`)."""
    m = _ATTRIBUTE.search(head)
    return m.group(1) if m is not None and m.group(1) and not m.group(1).endswith(".") else None


def _keyword_argument(text: str, start: int, end: int) -> bool:
    """Whether the name at `start`:`end` stands as a keyword argument: `(` or `,` before it, `=` (not
    `==`) after it (`figsize=` says nothing of what `plt.figsize` would be)."""
    rest = text[end : end + 3].lstrip(" ")
    if not rest.startswith("=") or rest.startswith("=="):
        return False
    i = start - 1
    while i >= 0 and text[i] in " \t\n":
        i -= 1
    return i >= 0 and text[i] in "(,"


def _name_char(text: str, at: int) -> bool:
    """Whether `text[at]` goes on a dotted name (`xplt.` is no `plt.`); False before the text's start."""
    return at >= 0 and (text[at].isalnum() or text[at] in "_.")
