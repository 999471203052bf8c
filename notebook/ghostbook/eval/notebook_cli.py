"""Command line of the notebook benchmark.

`ghostbook eval [MODEL...] --tasks notebook [--split test|validation] [--png PATH]`: the notebook
tasks of a stored split through the editor's completion path; prints a table (overall and per cursor
kind) and writes a PNG. `--tasks notebook single` adds the HumanEval table.
The stored splits are built by `ghostbook train notebook-data build` (`training.notebooks`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from pathlib import Path

from ghostbook.completion.settings import CompletionSettings

DEFAULT_PNG = Path("~/.cache/ghostbook/eval/notebook.png")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--split", choices=["test", "validation"], default="test", help="notebook tasks: the split")
    ap.add_argument("--notebooks", type=Path, default=None,
                    help="notebook tasks: a notebooks-*.jsonl.gz file instead of the stored split")
    ap.add_argument("--per-notebook", type=int, default=6, help="notebook tasks: tasks cut from each notebook")
    ap.add_argument("--png", type=Path, default=DEFAULT_PNG, help="notebook tasks: the chart to write")


def run_notebook(args: argparse.Namespace, format_table: Callable[[list[dict[str, object]]], str]) -> list[
        dict[str, object]]:
    """Run the notebook tasks for each of `args.models`; print the table, write the PNG (and JSON)."""
    from ghostbook.eval import notebook_bench as bench
    from ghostbook.eval.notebook_data import load_notebooks, packaged_split
    from ghostbook.eval.notebook_tasks import notebook_tasks

    path = args.notebooks or packaged_split(args.split)
    tasks = notebook_tasks(load_notebooks(path), args.per_notebook)
    if args.stride > 1:
        tasks = tasks[:: args.stride]
    if args.limit:
        tasks = tasks[: args.limit]
    settings = dataclasses.replace(CompletionSettings(), beam_width=args.beam)
    rows: list[dict[str, object]] = []
    runs = []
    names = [Path(spec).name for spec in args.models]
    for k, spec in enumerate(args.models):
        model = spec if spec == "default" else str(Path(spec).expanduser().resolve())
        results = bench.run(tasks, model, settings, progress=not args.quiet)
        name = names[k] if names.count(names[k]) == 1 else f"{k + 1}:{names[k]}"  # two files of one name
        runs.append((f"{name} beam {args.beam}", results))
        rows += bench.rows({"model": name, "beam": args.beam}, results)
        if args.json:
            out = args.json.with_name(args.json.stem + f".notebook-{name.replace(':', '-')}.json")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps({"argv": sys.argv, "split": str(path), "summary": rows,
                                       "results": bench.details(results)}, indent=1))
    print(f"notebook tasks ({args.split if args.notebooks is None else path}, {len(tasks)} tasks; "
          "editor path, no kernel namespace)")
    print(format_table(rows))
    png = bench.plot(runs, args.png.expanduser())
    print(f"chart: {png}")
    return rows

