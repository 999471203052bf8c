"""After a keyword argument, only keyword arguments: a start rule (`indentation.StartRule`).

In `dta.plot(title="Returns", ` the next argument must be `name=...` (or `*args`, `**kwargs`, or
the call's end): Python takes no positional argument after a keyword one. The syntax rule
(`decoding.syntax_fit`) rejects such a line only once it is whole, by when the beam may have spent its
search on lines that copy other calls' positional arguments, leaving nothing to show. This rule drops
them as they form, in the beam only (`plan.DecodePlan.finish`: greedy, held to it, bent names into
keywords no call takes). Pure: no model here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ghostbook.decoding.repetition import open_call, top_level

_KEYWORD = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)")
# a name bound at a line's start (`penguins = ...`, `fig, ax = ...`), a name passed as a keyword
_BOUND = re.compile(r"^[ \t]*([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]*=(?!=)", re.M)
_PASSED = re.compile(r"[(,]\s*([A-Za-z_]\w*)\s*=(?!=)")
_NAME_BEGUN = re.compile(r"[A-Za-z_]\w*\s*")
_KEYWORD_TYPED = re.compile(r"(?:^|,)\s*[A-Za-z_]\w*\s*=(?!=)")
# where other rules hold: a lambda's parameters (`key=lambda a, b: ...`), a def's keyword-only ones after `*`
_OTHER_RULES = re.compile(r"\blambda\b|(?:^|,)\s*\*\s*,")


@dataclass(frozen=True)
class KeywordNext:
    """The rule where the call the cursor is in has a keyword argument typed and the cursor is at
    the next argument's start (after a comma). `variables`: names the notebook binds and never passes
    as a keyword, which the model copies from the prompt into a keyword no call takes
    (`sns.heatmap(..., annot=True, ` + `penguins=False`)."""

    variables: frozenset[str] = frozenset()

    @classmethod
    def at(cls, before: str, text: str = "") -> KeywordNext | None:
        """The rule for the cursor after `before` (the cursor's cell up to it: a call may span lines;
        `text` the notebook around the cursor), or None where it does not apply."""
        if not before.rstrip().endswith(","):
            return None
        call = open_call(before)
        args = top_level(call[1]) if call is not None else ""
        if not _KEYWORD_TYPED.search(args) or _OTHER_RULES.search(args):
            return None
        bound = {name.strip() for m in _BOUND.finditer(text) for name in m.group(1).split(",")}
        passed = {m.group(1) for m in _PASSED.finditer(text)}
        return cls(frozenset(bound - passed))

    def allows(self, text: bytes) -> bool | None:
        written = text.decode("utf-8", "replace").lstrip()
        if not written:
            return None
        if written[0] in "*)" or written[0] == "#":
            return True
        if (m := _KEYWORD.match(written)) is not None:
            return m.group(1) not in self.variables
        return None if _NAME_BEGUN.fullmatch(written) else False

