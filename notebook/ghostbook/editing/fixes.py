"""Offline fixes: what the notebook itself can prove about an error, with no model.

Each rule is a small function `(source, error, cells, namespace) -> Fix | None`, tried in `RULES`'
order; the first that changes the cell wins:

- `missing_import`: a NameError for a module's usual alias or a name the import tables know
  (`np` → `import numpy as np`; `train_test_split` → `from sklearn.model_selection import ...`; `os`,
  used as `os.`, → `import os`), inserted at the top of the cell, after its leading comments, magics and
  `from __future__` imports, and after the imports that open it;
- `misspelt_name`: a NameError for a name close to one the kernel or the notebook's cells define, or a
  builtin (`dff` → `df`, `pritn` → `print`; Python's own "Did you mean" first), unless a cell defines
  the name itself (that cell has not run: no misspelling);
- `misspelt_attribute`: an AttributeError (`pd.read_cvs` → `read_csv`, `df.groupyb` → `groupby`) from
  Python's "Did you mean", the module attribute table (`completion.module_attributes`), the kernel's
  attributes or DataFrame columns of objects of that type;
- `misspelt_key`: a KeyError for a DataFrame column or a dict key close to one the kernel reported
  (`df['totl']` → `'total'`); only the string literals that spell the key change.

A ModuleNotFoundError has no fix in the cell (installing the package is not an edit): None. A name is
"close" where difflib's ratio is at least `CUTOFF` (or two neighbouring letters are swapped) and no
other candidate is as close.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ghostbook.completion.candidates import ALIASES, from_imports
from ghostbook.completion.code_names import code_names
from ghostbook.completion.line_memory import line_memory
from ghostbook.completion.module_attributes import table as attribute_table
from ghostbook.decoding.fragments import is_module
from ghostbook.editing.errors_text import ErrorInfo

__all__ = ["CUTOFF", "RULES", "ErrorInfo", "Fix", "NamespaceFacts", "Rule", "attribute_owners", "import_line",
           "insert_import", "misspelt_attribute", "misspelt_key", "misspelt_name", "missing_import",
           "module_attributes", "propose_fix"]

# the least difflib ratio between a misspelt name and the one meant
CUTOFF = 0.75

_NAME_ERROR = re.compile(r"name '([A-Za-z_]\w*)' is not defined")
_MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '([A-Za-z_]\w*)'")
_OBJECT_ATTR = re.compile(r"(?:'(\w+)' object|type object '(\w+)') has no attribute '([A-Za-z_]\w*)'")
_DID_YOU_MEAN = re.compile(r"Did you mean:? '([A-Za-z_][\w.]*)'\??")
_NOT_IN_INDEX = re.compile(r"^\[(.*)\] not in index$", re.S)
_NONE_IN = re.compile(r"None of \[Index\(\[(.*?)\]")
_LEADING = re.compile(r"^\s*(?:#|%|!|from\s+__future__\s)")
_IMPORT_LINE = re.compile(r"^(?:import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*"
                          r"|from\s+[\w.]+\s+import\s+[^(\\]+)\s*(?:#.*)?$")
# modules that errors name by another name than code imports them by
_SAME_MODULE = {"posixpath": "os.path", "ntpath": "os.path"}
_HEAD = re.compile(r"^([A-Za-z_]\w*): (\S+)(.*)$")
_COLUMNS = re.compile(r" columns=\[(.*)$")
_KEYS = re.compile(r" keys=\[(.*)$")


@dataclass(frozen=True)
class Fix:
    """The fixed cell and one line saying what changed."""

    source: str
    description: str


@dataclass(frozen=True)
class NamespaceFacts:
    """What the kernel reported of its names (`completion.namespace_provider` lines): each name's type
    ("class", "function" for definitions), the columns of DataFrame-like values, the string keys of
    dicts, and attributes where a report lists them."""

    types: Mapping[str, str] = field(default_factory=dict)
    columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    keys: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    attributes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> NamespaceFacts:
        """From summary lines such as `df: DataFrame shape=(3, 2) columns=[a: int64, b: object]`,
        `d: dict len=2 keys=['a', 'b']`, `class Model(x)`, `def f(a, b)` (a line cut short loses its
        last, partial item)."""
        types: dict[str, str] = {}
        columns: dict[str, tuple[str, ...]] = {}
        keys: dict[str, tuple[str, ...]] = {}
        for line in lines:
            for kind, word in (("class", "class "), ("function", "def ")):
                if line.startswith(word) and (defined := re.match(r"\w+", line[len(word):])):
                    types[defined.group(0)] = kind
            if (m := _HEAD.match(line)) is None:
                continue
            name, kind, rest = m.groups()
            types[name] = kind
            if (c := _COLUMNS.search(rest)) is not None:
                columns[name] = _column_names(c.group(1))
            elif (k := _KEYS.search(rest)) is not None:
                keys[name] = _dict_keys(k.group(1))
        return cls(types, columns, keys)


Rule = Callable[[str, ErrorInfo, Sequence[str], NamespaceFacts], Fix | None]


def propose_fix(source: str, error: ErrorInfo, cells: Sequence[str], namespace: NamespaceFacts) -> Fix | None:
    """The first rule's fix of `source` (the cell that raised `error`; `cells` the notebook's code cells'
    sources), or None where no rule proves one."""
    for rule in RULES:
        fix = rule(source, error, cells, namespace)
        if fix is not None and fix.source != source:
            return fix
    return None


def missing_import(source: str, error: ErrorInfo, cells: Sequence[str], namespace: NamespaceFacts) -> Fix | None:
    name = _undefined(error)
    if name is None or name in namespace.types:
        return None
    line = import_line(name, used_as_module=re.search(rf"(?<![\w.]){name}\s*\.", _code_only(source)) is not None)
    if line is None:
        return None
    return Fix(insert_import(source, line), f"Add `{line}`")


def misspelt_name(source: str, error: ErrorInfo, cells: Sequence[str], namespace: NamespaceFacts) -> Fix | None:
    name = _undefined(error)
    if name is None:
        return None
    bound = code_names("\n\n".join([*cells, source])).bound
    if name in bound:  # a cell defines it: one not run yet, not a misspelling
        return None
    known = set(namespace.types) | set(bound) | {n for n in dir(builtins) if not n.startswith("_")}
    best = _closest(name, known, _suggestion(error))
    if best is None:
        return None
    pattern = re.compile(rf"(?<![\w.]){re.escape(name)}\b(?!\s*=[^=])")
    fixed = _replace_in_code(source, pattern, best)
    return Fix(fixed, f"Replace `{name}` with `{best}`")


def misspelt_attribute(source: str, error: ErrorInfo, cells: Sequence[str],
                       namespace: NamespaceFacts) -> Fix | None:
    if error.ename != "AttributeError":
        return None
    if (m := _MODULE_ATTR.search(error.evalue)) is not None:
        attr, known = m.group(2), module_attributes(m.group(1))
    elif (m := _OBJECT_ATTR.search(error.evalue)) is not None:
        attr, known = m.group(3), set[str]()
        text = _code_only("\n\n".join([*cells, source]))
        for name in attribute_owners(error, namespace):
            known.update(namespace.attributes.get(name, ()))
            known.update(c for c in namespace.columns.get(name, ()) if c.isidentifier())
            known.update(re.findall(rf"(?<![\w.]){re.escape(name)}\.([A-Za-z_]\w*)", text))
    else:
        return None
    best = _closest(attr, known, _suggestion(error))
    if best is None:
        return None
    fixed = _replace_in_code(source, re.compile(rf"(?<=\.){re.escape(attr)}\b"), best)
    return Fix(fixed, f"Replace `.{attr}` with `.{best}`")


def misspelt_key(source: str, error: ErrorInfo, cells: Sequence[str], namespace: NamespaceFacts) -> Fix | None:
    if error.ename != "KeyError":
        return None
    missing = _missing_keys(error.evalue)
    if not missing:
        return None
    code = _code_only(source)
    used = [n for n in (*namespace.columns, *namespace.keys) if re.search(rf"(?<![\w.]){re.escape(n)}\b", code)]
    names = used or [*namespace.columns, *namespace.keys]
    known = {k for n in names for k in (*namespace.columns.get(n, ()), *namespace.keys.get(n, ()))}
    fixed, changes = source, []
    for key in missing:
        best = _closest(key, known)
        if best is None:
            continue
        fixed = _replace_literals(fixed, key, best)
        changes.append(f"`'{key}'` with `'{best}'`")
    return Fix(fixed, "Replace " + ", ".join(changes)) if changes else None


RULES: list[Rule] = [missing_import, misspelt_name, misspelt_attribute, misspelt_key]


def attribute_owners(error: ErrorInfo, namespace: NamespaceFacts) -> list[str]:
    """The kernel's names of the type an AttributeError names (`'DataFrame' object has no attribute`:
    the DataFrames; `type object 'Model'`: the class): a caller that can ask the kernel for their
    `dir()` puts it in `NamespaceFacts.attributes` before asking for a fix."""
    if error.ename != "AttributeError" or (m := _OBJECT_ATTR.search(error.evalue)) is None:
        return []
    if m.group(2):
        return [m.group(2)] if m.group(2) in namespace.types else []
    return [name for name, kind in namespace.types.items() if kind == m.group(1)]


def module_attributes(module: str) -> set[str]:
    """A module's attributes as far as Ghostbook knows them without importing anything: the module
    attribute table's (`os.path`'s for `posixpath`), and `dir()` of a module this process has imported."""
    names = {str(row[0]) for row in attribute_table().get(_SAME_MODULE.get(module, module), []) if row}
    loaded = sys.modules.get(module)
    if loaded is not None:
        names.update(n for n in dir(loaded) if not n.startswith("_"))
    return names


def import_line(name: str, used_as_module: bool = True) -> str | None:
    """The import that binds `name`, from the completion's tables: a module's usual alias (`np`), how
    other notebooks import an alias (`pdr`), the module a name is usually imported from
    (`train_test_split`), or a module Python has, where the cell uses it as one (`os.`)."""
    if name in ALIASES:
        return f"import {ALIASES[name]}"
    if (spelled := line_memory().import_as(name)) is not None:
        return f"import {spelled}"
    if (module := from_imports().get(name)) is not None:
        return f"from {module} import {name}"
    if used_as_module and name.islower() and is_module(name):
        return f"import {name}"
    return None


def insert_import(source: str, line: str) -> str:
    """`source` with the import `line` at its top: after the leading comments, magics, shell lines and
    `from __future__` imports, and after the one-line imports that follow them."""
    if not source:
        return line
    lines = source.split("\n")
    at = 0
    for i, text in enumerate(lines):  # the leading block (blank lines inside it go with it)
        if _LEADING.match(text):
            at = i + 1
        elif text.strip():
            break
    while at < len(lines) and _IMPORT_LINE.match(lines[at]):
        at += 1
    return "\n".join([*lines[:at], line, *lines[at:]])


def _undefined(error: ErrorInfo) -> str | None:
    if error.ename != "NameError":
        return None
    m = _NAME_ERROR.search(error.evalue)
    return m.group(1) if m else None


def _suggestion(error: ErrorInfo) -> str | None:
    """Python's own "Did you mean: 'x'?" (3.10+), where the traceback has it."""
    m = _DID_YOU_MEAN.search(error.evalue) or _DID_YOU_MEAN.search(error.text())
    return m.group(1) if m else None


def _closest(word: str, known: Iterable[str], suggestion: str | None = None) -> str | None:
    """Python's suggestion, else the one name in `known` closest to `word` (ratio ≥ `CUTOFF`)."""
    if suggestion is not None and suggestion != word and suggestion.isidentifier():
        return suggestion
    scored = sorted(((_likeness(word, k), k) for k in set(known) if k and k != word), reverse=True)
    if not scored or scored[0][0] < CUTOFF or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


def _likeness(word: str, other: str) -> float:
    """difflib's ratio, where two neighbouring letters swapped (`qyt`, `qty`) count as `CUTOFF`."""
    ratio = SequenceMatcher(None, word, other).ratio()
    if len(word) == len(other) >= 3 and ratio < CUTOFF:
        diff = [i for i, (a, b) in enumerate(zip(word, other, strict=True)) if a != b]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and word[diff[0]] == other[diff[1]] \
                and word[diff[1]] == other[diff[0]]:
            return CUTOFF
    return ratio


def _missing_keys(evalue: str) -> list[str]:
    """The keys a KeyError's message names: `'totl'`, pandas' `"['a', 'b'] not in index"` and
    `"None of [Index(['a'], dtype='object')] are in the [columns]"`."""
    try:
        value = ast.literal_eval(evalue)
    except (ValueError, SyntaxError):
        return []
    if not isinstance(value, str):
        return []
    for pattern in (_NOT_IN_INDEX, _NONE_IN):
        if (m := pattern.search(value)) is not None:
            try:
                items = ast.literal_eval("[" + m.group(1) + "]")
            except (ValueError, SyntaxError):
                return []
            return [item for item in items if isinstance(item, str)]
    return [value]


def _column_names(text: str) -> tuple[str, ...]:
    """`a: int64, b: datetime64[ns, UTC], ...]` → ("a", "b") (`a, b]` where the value has no dtypes);
    a list cut short loses its last item."""
    whole = text.endswith("]")
    pieces = (text[:-1] if whole else text).split(", ")
    typed = ": " in pieces[0]
    items: list[str] = []
    for piece in pieces:
        if not typed or ": " in piece or not items or piece == "...":
            items.append(piece)
        else:
            items[-1] += ", " + piece  # inside a dtype: `datetime64[ns, UTC]`
    if not whole and items:
        items.pop()
    return tuple(item.rsplit(": ", 1)[0] if typed else item for item in items if item and item != "...")


def _dict_keys(text: str) -> tuple[str, ...]:
    """`'a', 'b', ...]` → ("a", "b"): the string keys."""
    body = text[:-1] if text.endswith("]") else text.rsplit(", ", 1)[0]
    body = body.removesuffix(", ...")
    try:
        items = ast.literal_eval("[" + body + "]")
    except (ValueError, SyntaxError):
        return ()
    return tuple(item for item in items if isinstance(item, str))


def _spans(source: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The string literals (with prefix letters and quotes) and comments of `source`, as (start, end)."""
    strings: list[tuple[int, int]] = []
    comments: list[tuple[int, int]] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch == "#":
            end = source.find("\n", i)
            end = n if end < 0 else end
            comments.append((i, end))
            i = end
        elif ch in "'\"":
            start = i
            while start > 0 and source[start - 1] in "rRbBuUfF" and i - start < 2:
                start -= 1
            quote = source[i : i + 3] if source[i : i + 3] in ("'''", '"""') else ch
            j = i + len(quote)
            while j < n and not source.startswith(quote, j) and (len(quote) == 3 or source[j] != "\n"):
                j += 2 if source[j] == "\\" else 1
            end = min(n, j + len(quote)) if j < n and source.startswith(quote, j) else j
            strings.append((start, end))
            i = end
        else:
            i += 1
    return strings, comments


def _code_only(source: str) -> str:
    """`source` with its strings and comments blanked (same length)."""
    chars = list(source)
    for start, end in [s for spans in _spans(source) for s in spans]:
        chars[start:end] = [c if c == "\n" else " " for c in source[start:end]]
    return "".join(chars)


def _replace_in_code(source: str, pattern: re.Pattern[str], new: str) -> str:
    """`source` with each match of `pattern` outside strings and comments replaced by `new`."""
    code = _code_only(source)
    out, last = [], 0
    for m in pattern.finditer(code):
        out += [source[last : m.start()], new]
        last = m.end()
    return "".join(out) + source[last:]


def _replace_literals(source: str, old: str, new: str) -> str:
    """`source` with each plain string literal that spells `old` spelling `new` (its quotes kept)."""
    out, last = [], 0
    for start, end in _spans(source)[0]:
        literal = source[start:end]
        body = literal.lstrip("rRbBuU")
        quote = body[:3] if body[:3] in ("'''", '"""') else body[:1]
        if body[:1] in "fF" or len(body) < 2 * len(quote) or body[len(quote) : len(body) - len(quote)] != old:
            continue
        out += [source[last:start], literal[: len(literal) - len(body)] + quote + new + quote]
        last = end
    return "".join(out) + source[last:]
