"""Analogies (#16.4): notebooks repeat a line with its names renamed (`res_p = mod_p.fit()`, then
`res_h = mod_h.fit()`; `ax1 = fig.add_subplot(211)`, then `ax2 = fig.add_subplot(212)`). Mid-line, a
line that begins as the cursor's line does but for one or two names of the same family (or named after
a string in its rest: `tips = sns.load_dataset("tips")`, then `titanic = `) gives its rest, renamed the
same way: a candidate for `completion.candidates`. Pure text, no model here."""

from __future__ import annotations

import itertools
import os
import re

# lines read for an analogy (nearest first)
ANALOGY_LINES = 400

_NAME_OR_NUMBER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|\S")


def analogies(head: str, before: str, after: str) -> list[str]:
    """The rest of each line of the notebook that begins as the cursor's line does but for one or two
    names or numbers (`res_h = ` in `res_p = mod_p.fit()`), with those renamed in its rest too:
    `mod_h.fit()`. Lines the cursor's line begins exactly are `candidates._continuations`'."""
    code = head.lstrip()
    want = _TOKEN.findall(code)
    if len(want) < 2 or not any(_is_name(t) for t in want):
        return []
    ranked: tuple[list[str], list[str], list[str]] = ([], [], [])  # variants, roles, named after a string
    lines = itertools.chain(reversed(before.split("\n")), after.split("\n"))
    for line in itertools.islice((ln.strip() for ln in lines if ln.strip()), ANALOGY_LINES):
        found = _renamed_rest(want, line, typing=_is_name(code[-1]))
        if found is not None:
            rest, rank = found
            rest = rest.lstrip() if code[-1:].isspace() else rest
            if rest.strip() and all(rest not in kept for kept in ranked):
                ranked[rank].append(rest)
    variants, roles, named = ranked
    # a line named after a string fits any name: only where no name of the family says more
    return variants + roles if variants or roles else named


def _renamed_rest(want: list[str], line: str, typing: bool = False) -> tuple[str, int] | None:
    """`line`'s text after its first `len(want)` tokens, if those are `want`'s but for one or two names
    or numbers renamed alike (`res_p` -> `res_h`: they share a start or an end); the rest with the same
    renames, also inside other names (`mod_p` -> `mod_h`), and whether every rename makes a variant of
    the name (`res_p` -> `res_h`, `ax1` -> `ax2`: the same thing for another case; rank 0) rather than
    another role in one case (`mod_h` -> `res_h`: the line above, rarely written twice; rank 1), or a
    name renamed only because the line is named after a string (`tips` -> `titanic`; rank 2). None if
    it is no such line. `typing`: the last of `want` is a name being typed (`lst.sor`), which no rename
    may change."""
    tokens = list(_TOKEN.finditer(line))
    if len(tokens) <= len(want) or typing and tokens[len(want) - 1].group() != want[-1]:
        return None
    renames: dict[str, str] = {}
    rest = line[tokens[len(want) - 1].end() :]
    for have, wanted in zip(tokens, want, strict=False):
        old = have.group()
        if old == wanted:
            continue
        if not (_is_name(old) and _is_name(wanted)) or renames.get(old, wanted) != wanted or \
                not (_alike(old, wanted) or _quoted(old, rest)):
            return None
        renames[old] = wanted
    if not renames or len(renames) > 2 or len(set(renames.values())) < len(renames):
        return None
    inside = [_inner_rename(old, new) for old, new in renames.items()] + \
        [_word_rename(old, new) for old, new in renames.items()]
    if not all(_alike(old, new) for old, new in renames.items()):
        rank = 2
    else:
        rank = 0 if all(_variant(old, new) for old, new in renames.items()) else 1
    return _NAME_OR_NUMBER.sub(lambda m: renames.get(m.group()) or _renamed_inside(m.group(), inside), rest), rank


def _alike(old: str, new: str) -> bool:
    """Whether two names look like one family's (`res_p` / `res_h`, `x1` / `x2`): a common start or end
    of two characters or more, one name numbered, or both numbers."""
    if old[0].isdigit() and new[0].isdigit() or old.rstrip("0123456789") == new.rstrip("0123456789"):
        return True  # numbers, or one name numbered (`x1` / `x2`)
    return len(os.path.commonprefix([old, new])) >= 2 or len(os.path.commonprefix([old[::-1], new[::-1]])) >= 2


def _variant(old: str, new: str) -> bool:
    """Whether `new` names a variant of `old` (a common start, the end changed: `res_p` / `res_h`,
    `X_train` / `X_test`, `ax1` / `ax2`), not another role (a common end only: `mod_h` / `res_h`)."""
    return old[0].isdigit() and new[0].isdigit() or len(os.path.commonprefix([old, new])) >= 1


def _quoted(name: str, rest: str) -> bool:
    """Whether `rest` calls with `name` as its first argument, a string (`tips = sns.load_dataset("tips")`):
    the line is named after what it loads, so any name renames it (`titanic = ` -> `sns.load_dataset("titanic")`).
    A key is no such name (`final = params['final']`: `result = ` + `params['result']` was never meant)."""
    return f'("{name}"' in rest or f"('{name}'" in rest


def _inner_rename(old: str, new: str) -> tuple[re.Pattern[str], str] | None:
    """What changed from `old` to `new` as a pattern over other names (the changed part with the
    character on each side of it): `res_p` -> `res_h` renames `_p` at a name's end to `_h`."""
    p = len(os.path.commonprefix([old, new]))
    q = len(os.path.commonprefix([old[p:][::-1], new[p:][::-1]]))
    mid_old, mid_new = old[p : len(old) - q], new[p : len(new) - q]
    if not mid_old and not q and "_" in old[1:]:  # `res_fedfunds` -> `res_fedfunds3`: `mod_fedfunds` too
        last = old.rsplit("_", 1)[1]
        return (re.compile(f"(?<=_){re.escape(last)}$"), last + mid_new) if len(last) >= 2 else None
    if not mid_old:
        return None
    if mid_old.isdigit() and mid_new.isdigit() and not q:  # `ax1` -> `ax2`: `subplot(211)` -> `subplot(212)`
        return re.compile(f"(?<=\\d){mid_old}$|(?<=[A-Za-z_]){mid_old}$"), mid_new
    left = re.escape(old[p - 1]) if p else "^"
    right = re.escape(old[len(old) - q]) if q else "$"
    where = f"(?<={left})" if p else "^"
    return re.compile(f"{where}{re.escape(mid_old)}(?={right})"), mid_new


def _word_rename(old: str, new: str) -> tuple[re.Pattern[str], str] | None:
    """The changed part of a name as a word of its own, any case (`res_lunch` -> `res_dinner`: `Lunch`
    -> `Dinner` in `tips.time == "Lunch"`): a name's variants are often named after a value."""
    p = len(os.path.commonprefix([old, new]))
    q = len(os.path.commonprefix([old[p:][::-1], new[p:][::-1]]))
    mid_old, mid_new = old[p : len(old) - q], new[p : len(new) - q]
    if len(mid_old) < 3 or not mid_old.isalpha() or not mid_new.isalpha() or (p and old[p - 1].isalpha()):
        return None
    return re.compile(f"(?i)^{re.escape(mid_old)}$"), mid_new


def _renamed_inside(name: str, inside: list[tuple[re.Pattern[str], str] | None]) -> str:
    for rename in inside:
        if rename is not None and rename[0].search(name):
            return _cased(rename[0].sub(rename[1], name, count=1), name)
    return name


def _cased(new: str, old: str) -> str:
    """`new` in `old`'s case where `old` is one word in title or upper case (`Lunch` -> `Dinner`)."""
    if old.isalpha() and old.isupper() and len(old) > 1:
        return new.upper()
    if old.isalpha() and old[:1].isupper() and old[1:].islower():
        return new[:1].upper() + new[1:]
    return new


def _is_name(token: str) -> bool:
    return token[:1].isalnum() or token[:1] == "_"
