"""Command line of the notebook benchmark.

`ghostbook eval [MODEL...] --tasks notebook [--split test|validation] [--candidates on|off|both]
[--debounce on|off|both] [--png PATH]`: the notebook tasks of a stored split through the editor's
completion path (by default each request after the editor's debounce, the prompt read meanwhile;
`--debounce off`: cold requests); prints a table (overall and per cursor kind) and writes a PNG.
`--writing [on|both]`: the same tasks as the user writes them (`eval.writing_cli`): the cells above run
in a kernel, nothing below the cursor; `both`: beside the whole-notebook tasks.
`--tasks notebook single` adds the HumanEval table.
The stored splits are built by `ghostbook train notebook-data build` (`training.notebooks`).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval.notebook_tasks import KINDS

DEFAULT_PNG = Path("~/.cache/ghostbook/eval/notebook.png")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--split", choices=["test", "validation", "unseen-test", "unseen-validation", "unseen-train"],
                    default="test", help="notebook tasks: the split (test/validation: cut by notebook from the "
                    "training split's repositories; unseen-*: whole repositories the model and the line memory "
                    "never saw, `training.source_split`)")
    ap.add_argument("--notebooks", type=Path, default=None,
                    help="notebook tasks: a notebooks-*.jsonl.gz file instead of the stored split")
    ap.add_argument("--per-notebook", type=int, default=6, help="notebook tasks: tasks cut from each notebook")
    ap.add_argument("--kinds", nargs="+", choices=KINDS, default=None, metavar="KIND",
                    help="notebook tasks: only the tasks of these cursor kinds (`line`, `after .`, ...), of "
                         "those cut")
    ap.add_argument("--png", type=Path, default=DEFAULT_PNG, help="notebook tasks: the chart to write")
    ap.add_argument("--candidates", choices=["on", "off", "both"], default="on",
                    help="candidates copied from the text around the cursor (notebook tasks: the whole notebook) "
                         "compete with the beam's line; both: off and on, side by side")
    ap.add_argument("--debounce", choices=["on", "off", "both"], default="on",
                    help="notebook tasks: on, each request after the editor's debounce (the edit sent, the "
                         "server read the prompt meanwhile: what a user meets); off, cold requests that read "
                         "their own prompt; both: off and on, side by side")
    ap.add_argument("--writing", nargs="?", const="on", default="off", choices=["off", "on", "both"],
                    help="notebook tasks as the user writes them: only the cells above (run in a real kernel "
                         "first, its namespace in the prompt) and the cell up to the cursor; automatic and "
                         "forced requests; both: beside the whole-notebook tasks")
    ap.add_argument("--attributes", choices=["on", "off", "both"], default="on",
                    help="writing mode: the kernel's answer for the object whose attribute the cursor takes "
                         "(`df.`: what df has) keeps ghost text to it; both: off and on, side by side")
    ap.add_argument("--cell-timeout", type=float, default=20.0,
                    help="writing mode: seconds a cell may run in the kernel before it is interrupted")


def run_notebook(args: argparse.Namespace, format_table: Callable[[list[dict[str, object]]], str],
                 task_set: str = "notebook") -> list[dict[str, object]]:
    """Run the notebook tasks (`task_set` "humaneval": HumanEval single-line, one cell a problem) for each
    of `args.models`; print the table, write the PNG (and JSON)."""
    from ghostbook.eval import notebook_bench as bench
    from ghostbook.eval.notebook_data import load_notebooks, packaged_split
    from ghostbook.eval.notebook_tasks import humaneval_tasks, notebook_tasks

    path = args.notebooks or packaged_split(args.split)
    tasks = humaneval_tasks() if task_set == "humaneval" else notebook_tasks(load_notebooks(path), args.per_notebook)
    if getattr(args, "kinds", None):
        tasks = [t for t in tasks if t.kind in args.kinds]
    if args.stride > 1:
        tasks = tasks[:: args.stride]
    if args.limit:
        tasks = tasks[: args.limit]
    if task_set == "notebook" and getattr(args, "writing", "off") != "off":
        from ghostbook.eval.writing_cli import run_writing

        return run_writing(args, tasks, f"notebook tasks ({args.split if args.notebooks is None else path})",
                           format_table)
    onoff = {"on": [True], "off": [False], "both": [False, True]}
    switch = onoff[getattr(args, "candidates", "on")]
    debounces = onoff[getattr(args, "debounce", "on")]
    rows: list[dict[str, object]] = []
    runs = []
    names = [Path(spec).name for spec in args.models]
    for (k, spec), copies, debounce in itertools.product(enumerate(args.models), switch, debounces):
        settings = dataclasses.replace(CompletionSettings(), beam_width=args.beam, notebook_candidates=copies)
        model = spec if spec == "default" else str(Path(spec).expanduser().resolve())
        results = bench.run(tasks, model, settings, progress=not args.quiet, debounce=debounce)
        name = names[k] if names.count(names[k]) == 1 else f"{k + 1}:{names[k]}"  # two files of one name
        cand, requests = "on" if copies else "off", "debounced" if debounce else "cold"
        runs.append((f"{name} beam {args.beam} candidates {cand} {requests}", results))
        rows += bench.rows({"model": name, "beam": args.beam, "candidates": cand, "requests": requests}, results)
        if args.json:
            tag = (("humaneval-" if task_set == "humaneval" else "") + name.replace(":", "-")
                   + ("" if len(switch) == 1 else f"-candidates-{cand}")
                   + ("" if len(debounces) == 1 else f"-{requests}"))
            out = args.json.with_name(args.json.stem + f".notebook-{tag}.json")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps({"argv": sys.argv, "split": str(path), "summary": rows,
                                       "results": bench.details(results)}, indent=1))
    title = "HumanEval single-line (cursor after the indentation" if task_set == "humaneval" else \
        f"notebook tasks ({args.split if args.notebooks is None else path}"
    print(f"{title}, {len(tasks)} tasks; "
          "editor path, no kernel namespace; debounced: the prompt read before the request, as the editor's "
          "debounce lets the server)")
    print(format_table(rows))
    png = args.png.expanduser()
    png = bench.plot(runs, png.with_name(png.stem + "-humaneval" + png.suffix) if task_set == "humaneval" else png)
    print(f"chart: {png}")
    if task_set == "notebook":
        print_gate(runs, png.with_name(png.stem + "-gate" + png.suffix))
    return rows


def print_gate(runs: list[tuple[str, list[Any]]], png: Path) -> None:
    """What automatic requests would show at each "Suggest" setting (`eval.gate_report`), and a chart."""
    from ghostbook.completion.confidence import confidence_model
    from ghostbook.eval import gate_report

    thresholds = dict(confidence_model().thresholds)
    for label, results in runs:
        print(f"automatic requests, {label}: shown, exact among shown (precision), exact hits kept")
        for row in gate_report.gate_rows(results, thresholds):
            print(f"  {row.setting:<14} threshold {row.threshold:.3f}  shown {row.shown:>4} of {row.tasks:<4} "
                  f"exact {row.exact:>4}  precision {row.precision:6.1%}  hits kept {row.hits_kept:6.1%}")
    print(f"chart: {gate_report.plot(runs, thresholds, png)}")



def run_paths(args: argparse.Namespace) -> None:
    """The paths benchmark (`eval.paths_bench`) on `args.split` (or `--notebooks`) for each model."""
    from ghostbook.eval import paths_bench
    from ghostbook.eval.notebook_data import load_notebooks, packaged_split

    path = args.notebooks or packaged_split(args.split)
    settings = dataclasses.replace(CompletionSettings(), beam_width=args.beam)
    for spec in args.models:
        model = spec if spec == "default" else str(Path(spec).expanduser().resolve())
        out = args.json.with_name(args.json.stem + f".paths-{Path(spec).name}.json") if args.json else None
        paths_bench.run_cli(load_notebooks(path), model, settings,
                            f"{Path(spec).name}, {args.split if args.notebooks is None else path}",
                            progress=not args.quiet, out=out)
