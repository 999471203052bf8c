"""`ghostbook eval MODEL [MODEL...]`: HumanEval infilling (single/multi-line) and held-out exact match.
`ghostbook eval edits --model SPEC`: the edit benchmark (`eval/edits`).
`ghostbook eval notebook-ai [--model SPEC]`: Ask's changes to several cells (`eval/notebook_ai`).

MODEL is a `.gguf` file (llama.cpp) or an HF folder (transformers); `default` is the shipped model.
Decoding is the editor's: the first line by a beam (`--beam`, 1 for greedy), the rest greedy.
"""

from __future__ import annotations

import argparse
import itertools
import json
import lzma
import sys
import time
from pathlib import Path

from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval.runner import Summary, evaluate


def _model_path(spec: str) -> Path:
    if spec == "default":
        from ghostbook.models.catalog import resolve

        return resolve("default")[1]
    return Path(spec).expanduser()


def heldout_texts(path: Path) -> list[str]:
    """The texts of a corpus split (`training.corpus` writes it: jsonl, or its packed copy `PATH.xz`)."""
    packed = path.with_name(path.name + ".xz")
    handle = lzma.open(packed, "rt", encoding="utf-8") if not path.exists() and packed.exists() else path.open()
    with handle:
        return [json.loads(line)["text"] for line in handle if line.strip()]


def _tasks(name: str, args: argparse.Namespace) -> list:
    from ghostbook.eval import tasks as t

    if name == "single":
        tasks = t.humaneval_single_line(cut=args.cut)
    elif name == "multi":
        tasks = t.humaneval_multi_line()
    else:
        tasks = t.heldout_lines(heldout_texts(Path(args.heldout).expanduser()), n=args.heldout_n)
    if args.stride > 1:
        tasks = tasks[:: args.stride]
    return tasks[: args.limit] if args.limit else tasks


def format_table(rows: list[dict[str, object]]) -> str:
    """A plain-text table of dict rows (same keys)."""
    if not rows:
        return ""
    keys = list(rows[0])
    cells = [[_fmt(r.get(k)) for k in keys] for r in rows]
    widths = [max(len(k), *(len(c[i]) for c in cells)) for i, k in enumerate(keys)]
    lines = ["  ".join(k.ljust(w) for k, w in zip(keys, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(lines)


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return "-" if v is None else str(v)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["edits"]:  # `ghostbook eval edits`: the edit benchmark (eval/edits)
        from ghostbook.eval.edits.cli import main as edits

        return edits(argv[1:])
    if argv[:1] == ["notebook-ai"]:  # `ghostbook eval notebook-ai`: Ask's multi-cell changes (eval/notebook_ai)
        from ghostbook.eval.notebook_ai.cli import main as notebook_ai

        return notebook_ai(argv[1:])
    ap = argparse.ArgumentParser(prog="ghostbook eval", description=__doc__)
    ap.add_argument("models", nargs="*", default=["default"])
    ap.add_argument("--tasks", nargs="+", default=["single", "multi"],
                    choices=["single", "multi", "heldout", "notebook", "humaneval", "paths"],
                    help="single/multi: HumanEval infilling by the bare decoder; notebook: the notebook benchmark "
                         "through the editor's completion service; humaneval: HumanEval single-line through that "
                         "same path (forced, cursor after the indentation)")
    ap.add_argument("--limit", type=int, default=None, help="first N tasks of each set")
    ap.add_argument("--stride", type=int, default=1, help="every Nth task (a spread-out subset)")
    ap.add_argument("--no-exec", action="store_true", help="exact match only (skip pass@1)")
    ap.add_argument("--no-healing", action="store_true", help="disable token healing")
    ap.add_argument("--no-syntax", action="store_true",
                    help="the beam's first line need not fit the code around it (decoding.syntax_fit)")
    ap.add_argument("--no-reading", action="store_true",
                    help="the beam's best lines are not ranked by a left-to-right reading (decoding.reading)")
    ap.add_argument("--cut", choices=["line", "indent", "mid"], default="line",
                    help="single-line tasks: cursor at the line's start, after its indentation, or inside it")
    ap.add_argument("--layout", choices=["psm", "spm"], default="psm",
                    help="FIM prompt layout (Ghostbook's editor uses the one in the model's fim.json)")
    ap.add_argument("--beam", type=int, default=CompletionSettings().beam_width,
                    help="beam width for the first line, the rest greedy (default: the editor's; 1: greedy)")
    ap.add_argument("--heldout", default="~/.cache/ghostbook/train/corpus/val.jsonl")
    ap.add_argument("--heldout-n", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--n-ctx", type=int, default=512, help="prompt + generation budget (trained length)")
    ap.add_argument("--json", type=Path, default=None, help="write summary + per-task results here")
    ap.add_argument("--quiet", action="store_true")
    from ghostbook.eval.notebook_cli import add_arguments, run_notebook, run_paths

    add_arguments(ap)
    args = ap.parse_args(argv)
    for name in ("notebook", "humaneval"):  # these go through the editor's completion service
        if name in args.tasks:
            run_notebook(args, format_table, name)
    if "paths" in args.tasks:  # so does this
        run_paths(args)
    args.tasks = [t for t in args.tasks if t not in ("notebook", "humaneval", "paths")]
    if not args.tasks:
        return 0

    from ghostbook.eval.generate import load_backend

    rows: list[dict[str, object]] = []
    details: list[dict[str, object]] = []
    for spec in args.models:
        path = _model_path(spec)
        backend = load_backend(path, threads=args.threads, n_ctx=args.n_ctx)
        switch = {"on": [True], "off": [False], "both": [False, True]}[args.candidates]
        for name, copies in itertools.product(args.tasks, switch):
            t0 = time.time()
            summary: Summary = evaluate(backend, _tasks(name, args), name, execute=not args.no_exec,
                                        healing=not args.no_healing, progress=not args.quiet, layout=args.layout,
                                        beam=args.beam, syntax=not args.no_syntax, reading=not args.no_reading,
                                        copies=copies)
            runtime = "transformers" if path.is_dir() else "llama.cpp"
            row = {"model": f"{runtime}:{path.name}", "healing": not args.no_healing, "layout": args.layout,
                   "beam": args.beam,
                   "syntax": not args.no_syntax and args.beam > 1, "reading": not args.no_reading and args.beam > 1,
                   "cut": args.cut if name == "single" else "-", "candidates": copies and args.beam > 1,
                   **summary.row(),
                   "seconds": round(time.time() - t0, 1)}
            rows.append(row)
            details.append({**row, "results": [r.__dict__ for r in summary.results]})
        backend.unload()
    print(format_table(rows))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"argv": sys.argv, "summary": rows, "details": details}, indent=1))
    return 0
