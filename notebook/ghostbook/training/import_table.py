"""`ghostbook train import-table`: which module a name is usually imported from, counted in the training
corpus (`from sklearn.model_selection import train_test_split`: `train_test_split` ->
`sklearn.model_selection`), for the completion's import lines (`completion.candidates`).

The table keeps names imported at least `MIN_COUNT` times (the corpus as trained: the notebook split
repeated), at least 4 characters long and not themselves a module's name (`time`, `this`); each with
its most common module. It is written as JSON into the package (`completion/data/from_imports.json`).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from ghostbook.training.tables import write_table

MIN_COUNT = 10
TABLE = Path(__file__).resolve().parent.parent / "completion" / "data" / "from_imports.json"

_FROM = re.compile(r"^from\s+([A-Za-z_][\w.]*)\s+import\s+\(?([^#\n]+)", re.M)
_NAME = re.compile(r"[A-Za-z_]\w*")


def count_imports(texts: Iterable[str]) -> dict[str, collections.Counter[str]]:
    """For each name, how often each module is the one it is imported from."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for text in texts:
        for m in _FROM.finditer(text):
            for part in m.group(2).rstrip("\\) ").split(","):
                name = part.split(" as ")[0].strip()
                if _NAME.fullmatch(name):
                    counts[name][m.group(1)] += 1
    return counts


def build_table(texts: Iterable[str], min_count: int = MIN_COUNT) -> dict[str, str]:
    """name -> the module it is most often imported from, for names worth proposing."""
    table = {}
    for name, modules in count_imports(texts).items():
        if sum(modules.values()) >= min_count and len(name) >= 4 and name not in sys.stdlib_module_names:
            table[name] = modules.most_common(1)[0][0]
    return dict(sorted(table.items()))


def corpus_texts(path: Path) -> Iterable[str]:
    """The texts of a corpus' `train.jsonl`, one file each."""
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)["text"]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook train import-table", description=__doc__)
    ap.add_argument("corpus", type=Path, help="a corpus' train.jsonl (`ghostbook train corpus`)")
    ap.add_argument("--out", type=Path, default=TABLE)
    ap.add_argument("--min-count", type=int, default=MIN_COUNT)
    args = ap.parse_args(argv)
    if not args.corpus.is_file():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    table = build_table(corpus_texts(args.corpus), args.min_count)
    write_table(args.out, table)
    print(f"wrote {args.out}: {len(table)} names")
    return 0
