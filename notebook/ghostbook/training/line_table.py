"""`ghostbook train line-table NOTEBOOKS...`: the lines notebooks write, for the completion's line memory
(`completion.line_memory`), from the notebooks the model trains on (`notebooks-*.jsonl.gz`).

The notebooks pass the corpus's own filter, scrubbing and decontamination (`corpus.notebook_docs`: a
cell that shares a long n-gram with HumanEval or the benchmark's validation and test notebooks is
dropped), so the table knows nothing the model may not. Written as gzipped JSON into the package
(`completion/data/notebook_lines.json.gz`).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

from ghostbook.completion.line_memory import TABLE, table_json
from ghostbook.training.corpus import CorpusReport, notebook_docs

OUT = Path(__file__).resolve().parent.parent / "completion" / "data" / TABLE


def build(paths: list[Path], out: Path, min_notebooks: int = 1) -> dict[str, int]:
    """Write the table of the notebooks in `paths` to `out`; returns its counts."""
    report = CorpusReport()
    docs = notebook_docs(paths, report)
    table = table_json(((doc.path, doc.text) for doc in docs), min_notebooks)
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump(table, f, separators=(",", ":"))
    return {"notebooks": len(docs), "lines": len(table["lines"]), "pairs": len(table["next"]),
            "contaminated_cells": report.files.get("contaminated_cells", 0)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook train line-table", description=__doc__)
    ap.add_argument("notebooks", type=Path, nargs="+", help="notebooks-*.jsonl.gz files")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--min-notebooks", type=int, default=1, help="keep lines in at least this many notebooks")
    args = ap.parse_args(argv)
    missing = [p for p in args.notebooks if not p.is_file()]
    if missing:
        print(f"no notebooks at {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    counts = build(args.notebooks, args.out, args.min_notebooks)
    print(f"wrote {args.out}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0
