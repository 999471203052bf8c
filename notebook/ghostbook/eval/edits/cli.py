"""`ghostbook eval edits --model SPEC [--model SPEC ...]`: the edit benchmark (see EDITS.md).

SPEC is an edit-model spec (a .gguf path, hf:..., openai:URL, llamacpp:URL; `default`: the shipped
completion model, with no chat template) or one of: `reference` (the hand-written answers: every task must
pass, the test of the checks), `original` (the cell unchanged: every task must fail), `rules` (the offline
fixes the notebook can prove, no model: fix tasks only).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from ghostbook.eval.edits import runner
from ghostbook.eval.edits.propose import make_proposer
from ghostbook.eval.edits.tasks import KINDS, load_tasks, select


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="ghostbook eval edits", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", required=True, help="an edit-model spec, reference, original, rules")
    ap.add_argument("--kind", choices=KINDS, default=None, help="only fix or only edit tasks")
    ap.add_argument("--task", action="append", default=[], help="only this task id (repeatable)")
    ap.add_argument("--limit", type=int, default=None, help="the first N tasks")
    ap.add_argument("--stride", type=int, default=1, help="every Nth task (a spread-out sample)")
    add_run_options(ap)
    return ap


def add_run_options(ap: argparse.ArgumentParser) -> None:
    """The options a benchmark run by edit models shares with `eval notebook-ai`."""
    ap.add_argument("--tasks-file", type=Path, default=None, help="a tasks file instead of the shipped one")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a cell may run")
    ap.add_argument("--api-key", default=os.environ.get("GHOSTBOOK_API_KEY", ""),
                    help="for openai: servers (default: $GHOSTBOOK_API_KEY)")
    ap.add_argument("--no-speculative", action="store_true", help="in-process models: plain greedy")
    ap.add_argument("--json", type=Path, default=None, help="write the summary and per-task results here")
    ap.add_argument("--failures", action="store_true", help="list each task that did not pass, and why")
    ap.add_argument("--quiet", action="store_true")


async def _evaluate(args: argparse.Namespace) -> dict[str, object]:
    tasks = select(load_tasks(args.tasks_file), args.kind, args.task, args.limit, args.stride)
    rows: list[dict[str, object]] = []
    categories: dict[str, list[dict[str, object]]] = {}
    results: dict[str, list[dict[str, object]]] = {}
    for spec in args.model:
        chosen = [t for t in tasks if t.kind == "fix"] if spec == "rules" else tasks
        proposer = await make_proposer(spec, args.api_key, not args.no_speculative)
        try:
            done = await runner.run_tasks(chosen, proposer, progress=not args.quiet, timeout=args.timeout)
        finally:
            await proposer.close()
        rows += runner.rows({"model": spec}, done)
        categories[spec] = runner.by_category(done)
        results[spec] = runner.details(done)
        if args.failures:
            for r in done:
                if not r.passed:
                    print(f"  {spec} {r.task_id} [{r.stage}] {r.detail}")
    print(format_table(rows))
    return {"argv": sys.argv, "tasks": len(tasks), "summary": rows, "categories": categories, "results": results}


def format_table(rows: list[dict[str, object]]) -> str:
    """Aligned plain-text columns (the keys of the first row)."""
    if not rows:
        return ""
    keys = list(rows[0])
    cells = [[_fmt(row.get(k)) for k in keys] for row in rows]
    widths = [max(len(k), *(len(c[i]) for c in cells)) for i, k in enumerate(keys)]
    lines = [[k.ljust(w) for k, w in zip(keys, widths, strict=True)]]
    lines += [[c.ljust(w) for c, w in zip(row, widths, strict=True)] for row in cells]
    return "\n".join("  ".join(line).rstrip() for line in lines)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return "-" if value is None else str(value)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    write_report(args.json, asyncio.run(_evaluate(args)))
    return 0


def write_report(path: Path | None, report: dict[str, object]) -> None:
    """The run's `--json` file (none without the option)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=1))
