"""`ghostbook train call-table NOTEBOOKS...`: how often notebooks call each function with no arguments,
for the rule that a call they rarely make empty is not closed right after its bracket
(`decoding.empty_calls`: `print(` + `)`).

Counted by Python's parser in the notebooks the model trains on (`notebooks-*.jsonl.gz`, through the
corpus's own filter and decontamination: `corpus.notebook_docs`), (IPython's magic and
shell lines blanked; where a notebook does not parse, its pieces between blank lines, and a piece that
does not parse is skipped). Each call counts for its dotted callee as
written (`np.array`, `print`) and, called on something, for its method (`.append`). Callees called at
least `MIN_COUNT` times are kept, each with the share of its calls that pass nothing; written as JSON
into the package (`decoding/data/call_arguments.json`).
"""

from __future__ import annotations

import argparse
import ast
import collections
import re
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path

from ghostbook.decoding.empty_calls import TABLE
from ghostbook.training.corpus import CorpusReport, notebook_docs
from ghostbook.training.tables import write_table

MIN_COUNT = 20
_MAGIC = re.compile(r"^([ \t]*)[%!?].*$", re.M)


def callee(node: ast.expr) -> str | None:
    """The dotted name a call's function is (`np.random.seed`), or None (a subscript, a call's result)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def count_calls(codes: Iterable[str]) -> tuple[collections.Counter[str], collections.Counter[str]]:
    """For each callee (and `.method`), how many calls, and how many of them with no arguments."""
    calls: collections.Counter[str] = collections.Counter()
    empty: collections.Counter[str] = collections.Counter()
    for code in codes:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(_MAGIC.sub(r"\1pass", code))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (name := callee(node.func)) is not None:
                keys = [name] + (["." + name.rsplit(".", 1)[1]] if "." in name else [])
                for key in keys:
                    calls[key] += 1
                    empty[key] += not node.args and not node.keywords
    return calls, empty


def build_table(codes: Iterable[str], min_count: int = MIN_COUNT) -> dict[str, float]:
    """callee -> the share of its calls that pass no arguments, for callees called `min_count` times."""
    calls, empty = count_calls(codes)
    return {key: round(empty[key] / n, 4) for key, n in sorted(calls.items()) if n >= min_count}


def notebook_code(paths: list[Path]) -> Iterable[str]:
    """The code of the notebooks in `paths`: each document (its cells joined as the editor joins them),
    or where it does not parse as a whole, its pieces between blank lines."""
    for doc in notebook_docs(paths, CorpusReport()):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(_MAGIC.sub(r"\1pass", doc.text))
            yield doc.text
        except (SyntaxError, ValueError):
            yield from doc.text.split("\n\n")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook train call-table", description=__doc__)
    ap.add_argument("notebooks", type=Path, nargs="+", help="notebooks-*.jsonl.gz files")
    ap.add_argument("--out", type=Path, default=TABLE)
    ap.add_argument("--min-count", type=int, default=MIN_COUNT)
    args = ap.parse_args(argv)
    missing = [p for p in args.notebooks if not p.is_file()]
    if missing:
        print(f"no notebooks at {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    table = build_table(notebook_code(args.notebooks), args.min_count)
    write_table(args.out, table)
    print(f"wrote {args.out}: {len(table)} callees")
    return 0
