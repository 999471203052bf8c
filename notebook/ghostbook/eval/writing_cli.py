"""`ghostbook eval --tasks notebook --writing [on|both]`: the notebook benchmark as the user writes.

First the kernel phase (`eval.writing.prepare`: each notebook's cells run in a real kernel up to each
task), then the completion phase through the editor's service (`eval.notebook_bench`), an automatic
and a forced request at each cursor; `both` also asks the whole-notebook tasks (every cell, the rest of
the cell) the same way, side by side. Prints the table of `eval.writing_report`, then the writing
tasks by class (`eval.writing_classes`). Requests always come after the debounce (`--debounce` does not
apply); `--candidates off` turns the notebook candidates off; `--attributes off` leaves out the kernel's
answers for objects' attributes (`both`: a writing mode without them, "writing, no attributes", first).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tqdm import tqdm

from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval import notebook_bench as bench
from ghostbook.eval import writing_classes as classes
from ghostbook.eval import writing_report as report
from ghostbook.eval.notebook_tasks import NotebookTask
from ghostbook.eval.writing import KernelStats, prepare

NO_ATTRIBUTES = "writing, no attributes"

def cells_to_run(tasks: Sequence[NotebookTask]) -> int:
    """Cells the kernel phase runs: each notebook's, up to its last task's cell."""
    last: dict[str, int] = {}
    for t in tasks:
        last[t.notebook] = max(last.get(t.notebook, 0), t.index)
    return sum(last.values())


def run_writing(args: argparse.Namespace, tasks: Sequence[NotebookTask], title: str,
                format_table: Callable[[list[dict[str, object]]], str]) -> list[dict[str, object]]:
    """The kernel phase once, then each model in writing mode (and whole-notebook mode for `both`)."""
    start = time.perf_counter()
    stats = KernelStats()
    with tqdm(total=cells_to_run(tasks), desc="writing: kernel", unit="cell", disable=args.quiet) as bar:
        prepared = asyncio.run(prepare(tasks, args.cell_timeout, bar.update, stats))
    clean = {p.task.task_id: p.clean for p in prepared}
    modes = (["whole"] if args.writing == "both" else []) + \
        {"on": ["writing"], "off": [NO_ATTRIBUTES], "both": [NO_ATTRIBUTES, "writing"]}[args.attributes]
    settings = dataclasses.replace(CompletionSettings(), beam_width=args.beam,
                                   notebook_candidates=args.candidates != "off")
    rows: list[dict[str, object]] = []
    by_class: list[str] = []  # each writing mode's class table
    took: list[str] = []  # each completion phase's time
    for spec in args.models:
        model = spec if spec == "default" else str(Path(spec).expanduser().resolve())
        found: dict[str, list[bench.NotebookResult]] = {}
        for mode in modes:
            writing, began = mode != "whole", time.perf_counter()
            found[mode] = asyncio.run(bench.run_tasks(
                [p.task for p in prepared] if writing else tasks, model, settings, progress=not args.quiet,
                automatic=True, kernels=[p.kernel(mode == "writing") for p in prepared] if writing else None,
                desc=f"{mode}: completion"))
            took.append(f"{mode} {time.perf_counter() - began:.0f} s")
            rows += [{"model": Path(spec).name, **row} for row in report.rows(mode, found[mode], clean, True)]
            if writing:
                by_class.append(f"{Path(spec).name}, {mode}:\n" +
                                classes.format_rows(classes.rows(prepared, found[mode])))
        if args.json:
            out = args.json.with_name(args.json.stem + f".writing-{Path(spec).name}.json")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps({"argv": sys.argv, "split": title, "kernel": stats.to_json(),
                                       "summary": rows, "clean": clean,
                                       "classes": {p.task.task_id: classes.classify(p) for p in prepared},
                                       "results": {m: bench.details(r) for m, r in found.items()}}, indent=1))
    print(f"{title}, {len(tasks)} tasks; writing mode: the cells above run in a kernel, nothing below the "
          f"cursor; automatic requests after the debounce through the confidence gate, forced as Ctrl+Space")
    print(stats.line())
    print(format_table([r for r in rows if r["repository"] == "all"]))
    print("\nby repository (tasks whose cells above all ran):")
    print(format_table([r for r in rows if r["repository"] != "all"]))
    print("\nwriting tasks by class (tasks whose cells above all ran):")
    print("\n\n".join(by_class))
    print(f"\n{time.perf_counter() - start:.0f} s in all (completion phases: {', '.join(took)})")
    return rows
