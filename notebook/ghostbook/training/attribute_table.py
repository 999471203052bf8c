"""`ghostbook train attribute-table`: what code writes after a module's name, counted in the training
corpus (`plt.` -> `subplots`, `show`, `figure`, ...; `np.random.` -> `seed`, `normal`, ...), for the
completion's attribute rule and candidates (`completion.attributes`).

A module is known by how the text imports it (`import matplotlib.pyplot as plt`, `from matplotlib import
pyplot as plt`, `import os`); each `alias.a.b` counts `a` for the module and `b` for `module.a`, and
each `from module import a, b` counts `a` and `b`. The
table keeps modules seen at least `MIN_MODULE` times, and of each the attributes seen at least
`MIN_COUNT` times (at most `MAX_ATTRIBUTES`, commonest first), each with how often it starts a
statement (`plt.show()`), is a value (`fig, ax = plt.subplots()`) and is the first name a from-import
takes, and for each the commonest rest of its line (counted in files, not lines) where that is at
least `MIN_REST` of them and `MIN_FILES`. It is written as JSON into
the package (`completion/data/attributes.json`).
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from ghostbook.completion.calls import outside_strings
from ghostbook.completion.module_attributes import ROLES, aliases
from ghostbook.training.import_table import corpus_texts
from ghostbook.training.tables import write_table

MIN_MODULE = 100
MIN_COUNT = 3
MAX_ATTRIBUTES = 200
MIN_REST = 0.2
MIN_FILES = 3
TABLE = Path(__file__).resolve().parent.parent / "completion" / "data" / "attributes.json"

_CHAIN = re.compile(r"(?<![\w.])([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)([^\n]*)")
_FROM = re.compile(r"^[ \t]*from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+([A-Za-z_][\w \t,]*?)[ \t]*(?:#.*)?$", re.M)
_NAME = re.compile(r"[A-Za-z_]\w*")


class Counts:
    """Per module: how often each attribute follows it, and each attribute's rests of the line, in each
    of the `ROLES` (`module_attributes.ROLES`: `plt.show()`, `fig, ax = plt.subplots()`,
    `from sklearn.metrics import accuracy_score, f1_score`)."""

    def __init__(self) -> None:
        self.modules: collections.Counter[str] = collections.Counter()
        self.attributes: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self.rests: dict[tuple[str, str, str], collections.Counter[str]] = \
            collections.defaultdict(collections.Counter)

    def add(self, text: str) -> None:
        rests: set[tuple[str, str, str, str]] = set()  # each counted once per text: files, not lines
        for m in _FROM.finditer(text):
            module, names = m.group(1), m.group(2)
            for name in _NAME.findall(names.split(" as ")[0] if "," not in names else names):
                if name != "as":
                    self.modules[module] += 1
                    self.attributes[module][name] += 1
            first = _NAME.match(names)
            if first is not None:
                rests.add((module, first.group(), "import", names.rstrip()))
        bound = aliases(text)
        for m in _CHAIN.finditer(text) if bound else ():
            module = bound.get(m.group(1))
            line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
            if module is None or "#" in line or line.lstrip().startswith(("import ", "from ")):
                continue
            role = "statement" if not line.strip() else "value"
            parts = m.group(2)[1:].split(".")
            for i, attribute in enumerate(parts):
                self.modules[module] += 1
                self.attributes[module][attribute] += 1
                rest = ".".join(parts[i:]) + _without_comment(m.group(3))
                rests.add((module, attribute, role, rest.rstrip()))
                module = f"{module}.{attribute}"
        for module, attribute, role, rest in sorted(rests):  # ties: the same table each run
            self.rests[(module, attribute, role)][rest] += 1

    def table(self, min_module: int = MIN_MODULE, min_count: int = MIN_COUNT) -> dict[str, list[list[str | int]]]:
        """module -> [[attribute, then per role: files, commonest rest there], ...], commonest attribute
        first; a rest is "" where none is common enough."""
        out: dict[str, list[list[str | int]]] = {}
        for module, seen in sorted(self.modules.items()):
            if seen < min_module or any(part.startswith("_") for part in module.split(".")):
                continue
            rows: list[list[str | int]] = []
            for attribute, n in self.attributes[module].most_common(MAX_ATTRIBUTES):
                if n < min_count:
                    break
                row: list[str | int] = [attribute]
                for role in ROLES:
                    rests = self.rests[(module, attribute, role)]
                    total = sum(rests.values())
                    rest, k = rests.most_common(1)[0] if rests else ("", 0)
                    row += [total, rest if k >= max(MIN_FILES, MIN_REST * total) and len(rest) <= 80 else ""]
                rows.append(row)
            out[module] = rows
        return out


def _without_comment(line: str) -> str:
    """`line` up to a `#` outside its strings."""
    return next((line[:i] for i, ch in outside_strings(line)[0] if ch == "#"), line)


def build_table(texts: Iterable[str], min_module: int = MIN_MODULE,
                min_count: int = MIN_COUNT) -> dict[str, list[list[str | int]]]:
    counts = Counts()
    for text in texts:
        counts.add(text)
    return counts.table(min_module, min_count)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook train attribute-table", description=__doc__)
    ap.add_argument("corpus", type=Path, help="a corpus' train.jsonl (`ghostbook train corpus`)")
    ap.add_argument("--min-module", type=int, default=MIN_MODULE)
    ap.add_argument("--min-count", type=int, default=MIN_COUNT)
    ap.add_argument("--out", type=Path, default=TABLE)
    args = ap.parse_args(argv)
    if not args.corpus.is_file():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    table = build_table(corpus_texts(args.corpus), args.min_module, args.min_count)
    write_table(args.out, table)
    print(f"wrote {args.out}: {len(table)} modules, {sum(map(len, table.values()))} attributes")
    return 0
