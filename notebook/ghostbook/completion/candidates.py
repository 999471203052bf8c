"""Candidate completions copied from the notebook (#16.4): what the cells above and below, and the
kernel's namespace summary, say the rest of the cursor's line may be.

A 3.4M-parameter model rarely spells a name it saw once (`revenue_2024`, `make_classification`), but
the notebook holds it. Mid-line, the text before the cursor narrows what fits; the candidates are:

- continuations: the rest of the line after each place where the notebook has the same text as the
  end of the cursor's line (the longest such tail: `df.groupby(` finds `df.groupby('day').sum()`);
- words: the names and short string keys of the notebook (namespace columns included) that start with
  the word being typed, closed as the line needs (`df['rev` -> `enue_2024']`);
- a module's commonest lines after `module.` where the notebook has no continuation
  (`completion.module_attributes`: `fig, ax = plt.` -> `subplots()`);
- calls: at an argument's start, the arguments of the notebook's other calls of the same function
  from that position on (`completion.calls`: `plt.subplots(1, 2, ` -> `figsize=(10, 8))`);
- analogies: a line that begins as the cursor's but for a renamed name, renamed through
  (`completion.analogies`);
- habits: below an assignment, the line the notebook wrote below each of its last assignments, with
  the new name (`print(x)` below `x = ...` where `print(a)` and `print(b)` followed theirs;
  `completion.habits`);
- followers: the rest of a line that follows the line above elsewhere (in the notebook or, from
  `completion.line_memory`, in others) and begins as the cursor's does (`plt.tight_layout()` above,
  `plt.` -> `show()`);
- imports: after `import ` the modules the notebook uses but does not import, under their usual alias
  (`np.` below -> `numpy as np`), then the common data-science imports (after `import X as `, X's usual
  alias); after `from X import ` the
  names the notebook uses but never defines.

At a line's start the line above narrows it: below an import line, an import line for each module the
notebook uses but never imports (`import matplotlib.pyplot as plt`; after a blank line, a new cell,
for each one only the code below uses; with no code below, the common imports not made yet); then the
line that follows the line above wherever else the notebook has that line (`G,` then `pos,`). The
decoding ranks the candidates with the beam's own line by the model's log-probability
(`decoding.copies`). Pure text, no model here.
"""

from __future__ import annotations

import builtins
import functools
import itertools
import json
import keyword
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from importlib import resources

from ghostbook.completion.analogies import analogies
from ghostbook.completion.calls import call_rests, closers, outside_strings
from ghostbook.completion.code_names import CodeNames, code_names
from ghostbook.completion.habits import habit_rest
from ghostbook.completion.line_memory import OFFERED, is_code_line, is_comment, line_memory
from ghostbook.completion.module_attributes import at_cursor
from ghostbook.decoding.conditions import RepeatedCondition, next_branch
from ghostbook.decoding.fragments import imported_modules, is_module

# at most this many candidates are scored (each costs one short model evaluation, ~2 ms on a busy
# 2-core machine; a replay of the validation split's scores: 2 / 3 / 4 / 6 candidates, 29 / 31 / 32 /
# 32 exact)
MAX_CANDIDATES = 4
# at most this many of a module's commonest lines (`plt.` -> `show()`, `subplots()`)
MODULE_LINES = 2
# the line memory's lines looked at for the `OFFERED` (`completion.line_memory`) that read known names
MEMORY_LOOKS = 8
# the notebook text searched on each side of the cursor (characters, nearest kept)
WINDOW = 20_000

# the usual alias of a module (`np` -> `import numpy as np`), in the order they are offered
ALIASES = {
    "np": "numpy as np", "pd": "pandas as pd", "plt": "matplotlib.pyplot as plt", "sns": "seaborn as sns",
    "nx": "networkx as nx", "sm": "statsmodels.api as sm", "smf": "statsmodels.formula.api as smf",
    "xr": "xarray as xr", "tf": "tensorflow as tf", "mpl": "matplotlib as mpl", "so": "seaborn.objects as so",
    "px": "plotly.express as px", "go": "plotly.graph_objects as go", "sp": "scipy as sp", "gpd": "geopandas as gpd",
}
COMMON_IMPORTS = ("numpy as np", "pandas as pd", "matplotlib.pyplot as plt", "seaborn as sns")

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_WORD = re.compile(_IDENT)
_PARTIAL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_STRING_PARTIAL = re.compile(r"""(['"])([^'"\\\n]*)$""")
_STRING = re.compile(r"""(['"])([A-Za-z0-9_ .\-]{1,40})\1""")
_IMPORT = re.compile(r"^\s*import\s+([\w.]*(?:\s+as\s+\w*)?)$")  # `import x`, `import x as y`
_FROM_IMPORT = re.compile(r"^\s*from\s+[\w.]+\s+import\s+(?:[\w\s,]*,\s*)?(\w*)$")
_FROM_MODULE = re.compile(r"^\s*from\s+[\w.]*$")  # `from sklearn.`, the module being typed
_FOR_TARGET = re.compile(r"^\s*(?:async\s+)?for\s+(.+?)\s+in\b")
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\s*\((.*)")
_ASSIGNED = re.compile(rf"^\s*({_IDENT}(?:\s*,\s*{_IDENT})*)\s*=(?!=)")
_IMPORT_LINE = re.compile(r"^(?:import|from)\s+[\w.]+")
_COMMENTS_AT_END = re.compile(r"(?:^[ \t]*#[^\n]*\n)+\Z", re.M)  # whole-line comments ending a text
_COLUMNS = re.compile(r"^#   \S+: \w+ .*?columns=\[(.*)\]$", re.M)
_TRIPLE = re.compile(r"(\"\"\"|''')[\s\S]*?\1")
_MIRROR = str.maketrans("()[]{}", ")(][}{")
_KNOWN = set(dir(builtins)) | set(keyword.kwlist)


def candidates(head: str, before: str, after: str, rest: str = "", has: Sequence[str] | None = None) -> list[str]:
    """Texts to insert at the cursor, best guesses first, at most `MAX_CANDIDATES`: `head` is the
    cursor's line before the cursor, `before` the notebook's text above that line (cells above, the
    namespace summary among them, and the cell's lines above), `after` the text after the cursor's
    line; `rest` what the cursor's line already has after the cursor (a candidate ending in it drops it);
    `has`: after a kernel object's `X.`, what X has (its names complete a word being typed too)."""
    if head.strip() == "" and rest.strip():
        return []
    before, after = _code(before[-WINDOW:]), _code(after[:WINDOW])
    if not head.strip():
        found = _habit(head, before) + (_missing_imports(before, after) if not head else []) + \
            _next_lines(head, before, after)
        found += [line for line in _lines_after_above(head, before, after) if line.strip() not in map(str.strip, found)]
        return found[:MAX_CANDIDATES]
    # an import takes only names to import (what other lines do after the same text is none)
    if (m := _IMPORT.match(head)) is not None:
        found = _imports(m.group(1), before, after)
    elif _FROM_MODULE.match(head):  # `from sklearn.`: the from-imports the notebook lacks, then the rest
        typed = head.lstrip()
        found = [line[len(typed):] for line in _import_lines(before, after) if line.startswith(typed)] + \
            _memory_rests(head, before, after)
    elif (m := _FROM_IMPORT.match(head)) is not None:
        found = _unbound_names(head, m.group(1), before, after) or _module_lines(head, before, after)
    elif _in_string(head):  # a key being typed: the notebook's keys before whatever followed them elsewhere
        found = _words(head, before, after) + _continuations(head.lstrip(), before, after)[1]
    else:
        # a module's commonest lines where the notebook has no line of its own going on so; other
        # notebooks' lines before the notebook's own where they begin as the whole line does and the
        # notebook's only as its end does (`penguins = sns.`: `load_dataset("penguins")`, not `jointplot(`)
        key, rests = _continuations(head.lstrip(), before, after)
        own = (rests or _module_lines(head, before, after)) + call_rests(head, before, after) + \
            _words(head, before, after, has or ())
        memory = _memory_rests(head, before, after)
        found = _habit(head, before) + _next_branch(head, before) + analogies(head, before, after) + \
            (memory + own if len(key) < len(head.lstrip()) else own + memory)
        # what follows the line above elsewhere, where it begins so, comes second (`plt.tight_layout()`
        # above, `plt.` + `show()`): first, it took the place of lines the notebook itself goes on with
        found[1:1] = _follower_rests(head, before, after)
    out: list[str] = []
    tail = rest.strip()
    branch = RepeatedCondition(before + head, rest) if head.lstrip().startswith("elif") else None
    for text in found:
        text = text.rstrip()
        if tail and text.endswith(tail):
            text = text[: len(text) - len(tail)].rstrip()
        if branch is not None and not branch.cut(text):  # `elif x == ` + a value the chain tests already
            continue
        if text and text not in out and "\t" not in text:
            out.append(text)
        if len(out) == MAX_CANDIDATES:
            break
    return out


def _module_lines(head: str, before: str, after: str) -> list[str]:
    """After `module.` or `from module import ` (and part of a name): the commonest rests of the line for
    the module's commonest attributes that start so (`completion.module_attributes`), where a rest is a
    whole call or a from-import's names."""
    module = at_cursor(head, before + "\n" + after)
    if module is None:
        return []
    typed = m.group() if (m := _PARTIAL.search(head)) is not None else ""
    out = []
    known: set[str] | None = None
    for rest in module.rests():
        whole = rest.endswith(")") and _balanced(rest) if module.role != "import" else "(" not in rest
        if rest.startswith(typed) and len(rest) > len(typed) and whole:
            known = known if known is not None else set(_WORD.findall(before + "\n" + after)) | _KNOWN
            if not _names_known(rest, known):  # `shuffle(idx)` where the notebook has no `idx`
                continue
            out.append(rest[len(typed):])
            if len(out) == MODULE_LINES:
                break
    return out


def _names_known(rest: str, known: set[str]) -> bool:
    """Whether the names `rest` (a module's call: `normal(0, 1, size=n)`) passes are all `known`: its
    arguments' names, not attributes (`np.ones`) or keywords (`size=`), nor inside strings."""
    chars, _ = outside_strings(rest[rest.find("(") + 1 :] if "(" in rest else "")
    code = "".join(ch for _, ch in chars)
    return all(m.group() in known or code[m.end() : m.end() + 1] == "=" or code[m.start() - 1 : m.start()] == "."
               for m in _WORD.finditer(code))


def _balanced(text: str) -> bool:
    """Whether `text` closes every bracket it opens and no other (strings skipped roughly)."""
    return closers(text) == "" and closers(text[::-1].translate(_MIRROR)) == ""


def _code(text: str) -> str:
    """`text` without the insides of its triple-quoted strings (docstrings: prose, not code to copy)."""
    return _TRIPLE.sub(lambda m: m.group(1) * 2, text) if '""' in text or "''" in text else text


def completes_key(head: str, before: str, after: str) -> bool:
    """Whether the cursor is in a subscript's string key (`df['rev`) that one of the notebook's keys
    or columns completes: a place inside a string where even a weak model's suggestion is worth it."""
    string = _STRING_PARTIAL.search(head)
    if string is None or not _in_string(head) or not head[: string.start()].rstrip().endswith("["):
        return False
    return bool(_words(head, _code(before[-WINDOW:]), _code(after[:WINDOW])))


def _nearest(before: str, after: str, pattern: re.Pattern[str]) -> Iterable[re.Match[str]]:
    """Matches of `pattern` in `before` (last first) and `after` (first first), alternating, nearest first."""
    above = list(pattern.finditer(before))[::-1]
    below = pattern.finditer(after)
    for up in above:
        yield up
        down = next(below, None)
        if down is not None:
            yield down
    yield from below


def _continuations(key_line: str, before: str, after: str) -> tuple[str, list[str]]:
    """The longest tail of `key_line` that the notebook holds, and the rest of the line after each of
    its occurrences (no tail: `""` and none). A tail starts where a word does (not after a `.`:
    `lst.sor` is no `sorted(`) and holds a whole name of the code's own (2+ characters, no keyword or
    builtin: `    retu` or `for i in` say too little)."""
    starts = [i for i in range(len(key_line) - 1)
              if i == 0 or not (_word_char(key_line[i - 1]) or key_line[i - 1] == ".")]
    for i in starts:
        key = key_line[i:]
        names = _WORD.findall(key[: len(key) - len(m.group())] if (m := _PARTIAL.search(key)) else key)
        if not any(len(name) > 1 and name not in _KNOWN for name in names):
            continue
        pattern = re.compile(re.escape(key) + r"([^\n]*)" if not key[0].isalnum() and key[0] != "_"
                             else r"(?<![\w.])" + re.escape(key) + r"([^\n]*)")
        rests = [m.group(1) for m in _nearest(before, after, pattern) if not _in_comment(m)]
        rests = [r for r in rests if r.strip()]
        if rests:
            return key, rests
    return "", []


def _next_lines(head: str, before: str, after: str) -> list[str]:
    """At a line's start: the line that follows each other place where the notebook has the line above
    the cursor (a line with a name of the code's own), indented as there relative to it, nearest
    first (`    G,` above, `    G,` then `    pos,` elsewhere: `pos,`); where it has no such line, the
    places where a line assigns the same names as the line above (`model = make_pipeline_imb(...)`
    above, `model = make_pipeline(...)` then `model.fit(X_train, y_train)` elsewhere); never the line
    below the cursor."""
    lines = before.split("\n")
    at = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), None)
    if at is None:
        return []
    above = lines[at]
    key = above.strip()
    if len(key) < 2 or all(name in _KNOWN for name in _WORD.findall(key)):  # `)`, `else:` say too little
        return []
    below = after.split("\n")
    next_below = next((ln.strip() for ln in below if ln.strip()), "")
    places = _places(lines[:at], below, lambda line: line.strip() == key)
    if not places and (target := _ASSIGNED.match(above)) is not None:
        names, indent = target.group(1), _indent(above)
        places = _places(lines[:at], below, lambda line: (m := _ASSIGNED.match(line)) is not None
                         and m.group(1) == names and _indent(line) == indent)
    out: list[str] = []
    for seq, i in places:
        follow = next((ln for ln in seq[i + 1 :] if ln.strip()), None)
        if follow is None or follow.strip() in (key, next_below):
            continue
        indent = _indent(above) + _indent(follow) - _indent(seq[i])
        if indent >= len(head):
            text = " " * (indent - len(head)) + follow.strip()
            if text not in out:
                out.append(text)
    return out


def _follower_rests(head: str, before: str, after: str) -> list[str]:
    """Mid-line: the rests of the lines that follow the line above elsewhere (`_next_lines`,
    `_lines_after_above`) and begin as the cursor's line does."""
    indent, typed = head[: len(head) - len(head.lstrip())], head.lstrip()
    out = []
    for line in _next_lines(indent, before, after) + _lines_after_above(indent, before, after):
        if line.startswith(typed) and len(line) > len(typed) and line[len(typed):] not in out:
            out.append(line[len(typed):])
    return out


def _lines_after_above(head: str, before: str, after: str) -> list[str]:
    """At a line's start: the lines other notebooks write after the line above the cursor, code or a
    comment (`completion.line_memory`; a lone `)` too: a plot's call ends so, then `plt.show()`), indented as
    that line (one level more after a `:`), where the cursor's indentation does not already go past it;
    not the line below the cursor."""
    lines = before.rstrip().rsplit("\n", 1)
    above = lines[-1] if lines else ""
    if not is_code_line(above.strip()) and not is_comment(above.strip()):
        return []
    indent = _indent(above) + (4 if above.rstrip().endswith(":") else 0)
    if indent < len(head):
        return []
    below = next((line.strip() for line in after.split("\n") if line.strip()), "")
    lines = [line for line in line_memory().after(above, MEMORY_LOOKS) if line != below]
    known = _known_words(before, after) if lines else set()  # (~1 ms: only where the table has lines)
    return [" " * (indent - len(head)) + line for line in lines if _reads_known(line, known)][:OFFERED]


def _memory_rests(head: str, before: str, after: str) -> list[str]:
    """Mid-line: the rests of the lines other notebooks begin as the cursor's line
    (`completion.line_memory`), where what is typed holds a whole name of the code's own (`    retu`
    or `for i in ` say too little), and whose names the notebook knows (`_reads_known`)."""
    typed = head.lstrip()
    words = _WORD.findall(typed[: len(typed) - len(m.group())] if (m := _PARTIAL.search(typed)) else typed)
    if not any(len(word) > 1 and word not in _KNOWN for word in words):
        return []
    rests = line_memory().rests(head, MEMORY_LOOKS)
    known = _known_words(before, after + "\n" + head) if rests else set()
    return [rest for rest in rests if _reads_known(typed + rest, known)][:OFFERED]


def _known_words(before: str, after: str) -> set[str]:
    return set(_WORD.findall(before)) | set(_WORD.findall(after)) | _KNOWN


def _reads_known(line: str, known: set[str]) -> bool:
    """Whether a line from other notebooks reads only names the notebook has (`known`) or the line
    binds itself: `for value in strings:` after `result = []` reads `strings`, which makes it someone
    else's code in a notebook without one. Attributes (`.load_dataset`), keyword arguments (`size=`),
    strings and import lines aside."""
    if _IMPORT_LINE.match(line.lstrip()):
        return True
    chars, _ = outside_strings(line)
    code = "".join(ch for _, ch in chars)
    bound = set()
    for pattern in (_ASSIGNED, _FOR_TARGET, _DEF):
        if (m := pattern.match(code)) is not None:
            bound |= set(_WORD.findall(" ".join(g for g in m.groups() if g)))
    return all(w.group() in known or w.group() in bound or code[w.start() - 1 : w.start()] == "."
               or code[w.end() : w.end() + 1] == "=" and code[w.end() : w.end() + 2] != "=="
               for w in _WORD.finditer(code))


def _places(above: list[str], below: list[str], like: Callable[[str], bool]) -> list[tuple[list[str], int]]:
    """The lines `like` accepts (each as its sequence and index), nearest the cursor first: `above` ends
    just above it, `below` starts just below it."""
    places = [(above, i) for i in range(len(above) - 1, -1, -1) if like(above[i])]
    places += [(below, i) for i in range(len(below)) if like(below[i])]
    return sorted(places, key=lambda place: len(above) - place[1] if place[0] is above else place[1] + 1)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _in_comment(m: re.Match[str]) -> bool:
    """Whether the match starts after a `#` on its line (a comment, the namespace summary)."""
    return "#" in m.string[m.string.rfind("\n", 0, m.start()) + 1 : m.start()]


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _words(head: str, before: str, after: str, has: Sequence[str] = ()) -> list[str]:
    """The notebook's names (or string keys, inside a string) that start with the word being typed (2+
    characters of a name; after a `.`, attribute names, then those of `has`: what the kernel's object
    has), the string and the line's open brackets closed."""
    string = _STRING_PARTIAL.search(head)
    if string is not None and _in_string(head):
        quote, partial = string.groups()
        ending = quote + closers(head[: string.start()])
        words: Iterable[str] = itertools.chain(_columns(before), (m.group(2) for m in _nearest(before, after, _STRING)))
    else:
        m = _PARTIAL.search(head)
        if m is None or len(m.group()) < 2:
            return []
        partial, ending, dot = m.group(), "", head[m.start() - 1 : m.start()] == "."
        words = itertools.chain((w.group() for w in _nearest(before, after, _WORD)
                                 if not dot or w.string[w.start() - 1 : w.start()] == "."), has if dot else ())
    seen: list[str] = []
    for word in words:
        if word.startswith(partial) and len(word) > len(partial) and word not in seen and word not in _KNOWN:
            seen.append(word)
            if len(seen) == MAX_CANDIDATES:
                break
    return [w[len(partial):] + ending for w in seen]


def _columns(before: str) -> list[str]:
    """The DataFrame columns the kernel's namespace summary lists (`columns=[name: dtype, ...]`)."""
    out: list[str] = []
    for m in _COLUMNS.finditer(before):
        out += [part.rsplit(": ", 1)[0].strip() for part in m.group(1).split(", ") if part and part != "..."]
    return out


def _in_string(head: str) -> bool:
    """Whether `head` ends inside a string it opened (roughly: an odd count of its last quote)."""
    string = _STRING_PARTIAL.search(head)
    return string is not None and head.count(string.group(1)) % 2 == 1


def _habit(head: str, before: str) -> list[str]:
    """The rest the notebook's habit writes below the assignment above (`completion.habits`), if any."""
    return [line] if (line := habit_rest(head, before)) is not None else []


def _next_branch(head: str, before: str) -> list[str]:
    """The rest of the `elif` that goes on the chain above in steps (`decoding.conditions`), where the
    cursor's line has begun as it does (`elif dice_value == ` -> `4:`)."""
    typed = head.lstrip()
    if not typed.startswith("elif"):
        return []
    line = next_branch(before.split("\n"), head[: len(head) - len(typed)])
    return [line[len(typed):]] if line is not None and line.startswith(typed) and len(line) > len(typed) else []


def _imports(partial: str, before: str, after: str) -> list[str]:
    """After `import `: modules used (`name.`) but not bound, by their usual alias; the common ones only
    where the notebook uses none (its own evidence is not to be outvoted by a guess)."""
    above, below = code_names(before), code_names(after)
    out = _used_modules(above, below, above.bound | below.bound)
    if not [c for c in out if c.startswith(partial) and len(c) > len(partial)]:
        out += [c for c in COMMON_IMPORTS if c not in out and c.rsplit(" ", 1)[-1] not in above.bound | below.bound]
    if " as " in partial:  # `import seaborn as ` -> `sns`: any module's usual alias
        partial = " ".join(partial.split()) + (" " if partial.endswith(" ") else "")
        out += [c for c in ALIASES.values() if c not in out]
    return [c[len(partial):] for c in out if c.startswith(partial) and len(c) > len(partial)]


def _used_modules(above: CodeNames, below: CodeNames, bound: Collection[str]) -> list[str]:
    """The modules the code reads attributes of (`name.`) but does not bind, as an import spells them
    (`numpy as np`; an alias `ALIASES` lacks as other notebooks import it: `pandas_datareader as
    pdr`, `completion.line_memory`), nearest first. A name that no import spells, that is no module
    here and that no other notebook imports (`tfp.`, `vutils.`: an alias, `import tfp` would fail) is
    none."""
    out: list[str] = []
    memory = line_memory()
    for name in _alternating(above.dotted[::-1], below.dotted):
        if name in bound or name in _KNOWN:
            continue
        spelled = ALIASES.get(name) or memory.import_as(name) or (
            name if is_module(name) or memory.imports(name) else "")
        if spelled and spelled not in out:
            out.append(spelled)
    return out


def _alternating(first: Sequence[str], second: Sequence[str]) -> Iterable[str]:
    """One of `first`, one of `second`, and so on; then what is left of either."""
    for pair in itertools.zip_longest(first, second):
        yield from (name for name in pair if name is not None)


def _missing_imports(before: str, after: str) -> list[str]:
    """At the start of a line below an import (the imports go on) or at the notebook's top: an import
    line for each module the notebook uses (`np.`) but never imports, nearest first, then a from-import
    for each name it uses but never binds that `from_imports` knows; with no code below at all (a
    notebook being written), right below an import or at the top, the common imports not made yet
    (`_common_imports`; not after a blank line, in the cell or a new one, where the training notebooks
    rarely go on with them: docs/completion.md). After a blank line (a new cell, a new paragraph) the
    same, for what only the code below uses (the imports go before the first use). Comment lines just
    above count for nothing (`# Imports`, a file's header).
    `before`/`after` as `_code` leaves them."""
    code = _COMMENTS_AT_END.sub("", before)
    above = code.rstrip("\n").rsplit("\n", 1)[-1]
    below_only = bool(above.strip()) and not _IMPORT_LINE.match(above)
    if below_only and not code.endswith("\n\n"):
        return []
    lines = _import_lines(before, after, below_only)
    at_top = all(line.lstrip()[:1] in ("", "#") for line in code.split("\n"))  # comments at most
    if lines or below_only or after.strip() or (code.endswith("\n\n") and not at_top):
        return lines
    return _common_imports(before)


def _common_imports(before: str) -> list[str]:
    """Where the imports begin or go on and no code is below to say what they need (a notebook being
    written): the common data-science imports not made yet, in `_imports`' order (`import numpy as np`
    first in an empty notebook, where the model alone writes any line at all)."""
    bound, made = code_names(before).bound, imported_modules(before)
    return ["import " + c for c in COMMON_IMPORTS
            if c.rsplit(" ", 1)[-1] not in bound and c.split(" ", 1)[0] not in made]


def _import_lines(before: str, after: str, below_only: bool = False) -> list[str]:
    """The import lines of `_missing_imports`, for the code below the cursor only if `below_only`."""
    up, down = code_names(before), code_names(after)
    bound = set(up.bound | down.bound)
    if below_only:  # a name the code above uses is imported (if at all) elsewhere, not here
        bound |= set(up.read)
    used = ["import " + c for c in _used_modules(up, down, bound) if " as " in c or is_module(c)]
    table = from_imports()
    named = [f"from {table[name]} import {name}" for name in _unbound(up, down, bound) if name in table]
    return used + named


@functools.cache
def from_imports() -> dict[str, str]:
    """Which module a name is usually imported from (`train_test_split` -> `sklearn.model_selection`),
    counted in the training corpus (`ghostbook train import-table`); empty if the table is missing."""
    try:
        table = json.loads((resources.files("ghostbook.completion") / "data" / "from_imports.json").read_text())
    except (OSError, ValueError):
        return {}
    return table if isinstance(table, dict) else {}


def names_to_import(before: str, after: str) -> list[str]:
    """Names the notebook (`before` and `after` the cursor's line) uses but never binds (`_unbound`)."""
    up, down = code_names(_code(before[-WINDOW:])), code_names(_code(after[:WINDOW]))
    return list(_unbound(up, down, up.bound | down.bound))


def _unbound_names(head: str, partial: str, before: str, after: str) -> list[str]:
    """After `from X import `: names the notebook uses but never binds, below the cursor first; those
    the attribute table lists for X first, then those that look imported (called, read an attribute
    of, or capitalised: `GLM`, not `X` or `df`), then the others."""
    up, down = code_names(before), code_names(after)
    names = [n for n in _unbound(up, down, up.bound | down.bound) if n.startswith(partial) and len(n) > len(partial)]
    module = at_cursor(head, "")
    listed = set(module.names) if module is not None else set()
    used = set(up.called + up.dotted + down.called + down.dotted)

    def tier(name: str) -> int:
        return 0 if name in listed else 1 if name in used or (len(name) > 1 and name[0].isupper()) else 2

    return [n[len(partial):] for n in sorted(names, key=tier)[:MAX_CANDIDATES]]


def _unbound(up: CodeNames, down: CodeNames, bound: Collection[str]) -> Iterable[str]:
    """Names the code reads but never binds, below the cursor first (each in the order of its first
    reading), each once; not builtins."""
    seen: set[str] = set()
    for name in (*down.read, *up.read):
        if name in bound or name in _KNOWN or name in seen:
            continue
        seen.add(name)
        yield name
