"""`ghostbook bench speculative`: greedy decoding with and without speculative drafts, side by side.

Copy-heavy notebook edits (a cell that repeats a pattern from the cells above) and, as a control, code
that repeats little. Each case: the prompt is evaluated once (warm KV cache), then plain greedy and
speculative greedy each decode `--max-new` tokens `--repeat` times; tokens/s counts decoding only
(the prompt's evaluation left out). The outputs must be identical token for token.

    ghostbook bench speculative [--model PATH] [--draft HF_FOLDER] [--device auto|cpu|cuda]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from ghostbook.decoding.plan import DecodePlan
from ghostbook.models.backend import Backend, ModelLoadError, TokenOut
from ghostbook.models.catalog import default_model_path
from ghostbook.models.templates import build_prompt, get_template, stop_ids

CELLS = [
    'import pandas as pd\ndf = pd.read_csv("sales.csv")\ndf.head()\n',
    'df["total"] = df["price"] * df["quantity"]\ndf["tax"] = df["total"] * 0.2\n'
    'df["net"] = df["total"] - df["tax"]\n',
    'import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot(df["date"], df["total"], label="total")\n'
    'ax.plot(df["date"], df["tax"], label="tax")\nax.legend()\nplt.show()\n',
    "def clean(frame):\n    frame = frame.dropna()\n    frame = frame[frame[\"price\"] > 0]\n    return frame\n",
]
# (name, prefix, suffix): the cursor where a user repeats what is above with a change
COPY_CASES = [
    ("repeat plot line", "\n\n".join(CELLS[:3]) + '\n\nfig, ax = plt.subplots()\nax.plot(df["date"], ', ""),
    ("repeat column math", "\n\n".join(CELLS[:2]) + '\n\ndf2 = df.copy()\ndf2["total"] = ', ""),
    ("copy a function", "\n\n".join(CELLS) + "\n\ndef clean2(frame):\n    frame = ", "\n"),
    ("repeat a cell", "\n\n".join(CELLS) + "\n\nimport pandas as pd\ndf = ", ""),
]
CONTROL = [
    ("new code", "import numpy as np\n\ndef softmax(x):\n    ", "\n"),
    ("class body", "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n", ""),
]


def decode(b: Backend, prompt: list[int], max_new: int, speculative: bool) -> tuple[list[int], float]:
    """The tokens greedy emits and the decoding's tokens/s (the prompt's evaluation left out)."""
    b.speculative = speculative  # type: ignore[attr-defined]
    out: list[TokenOut] = []
    stats = b.generate(prompt, DecodePlan(max_new, stop_ids(get_template(b.info.family), b.lookup)),
                       lambda: False, out.append)
    seconds = max(stats.total_ms - stats.prompt_ms, 1e-3) / 1000
    return [t.id for t in out], len(out) / seconds


def notebook_tasks(b: Backend, count: int, max_new: int) -> None:
    """Plain against speculative greedy over real notebook cursor positions: total decoding tokens/s."""
    from ghostbook.eval.notebook_data import load_notebooks, packaged_split
    from ghostbook.eval.notebook_tasks import notebook_tasks as tasks_of

    tasks = tasks_of(load_notebooks(packaged_split("test")))[:count]
    tokens, seconds, same = [0, 0], [0.0, 0.0], 0
    template = get_template(b.info.family)
    budget = b.info.n_ctx - max_new - 8
    for task in tasks:
        cell = task.cells[task.index]
        prefix = "\n\n".join([*task.cells[: task.index], cell[: task.cursor]])
        suffix = "\n\n".join([cell[task.cursor :], *task.cells[task.index + 1 :]])
        pre, suf = b.tokenize(prefix)[-(budget * 3 // 4) :], b.tokenize(suffix)[: budget // 4]
        prompt = build_prompt(template, pre, suf, b.lookup)
        decode(b, prompt, 1, False)
        outs = []
        for i, speculative in enumerate((False, True)):
            ids, rate = decode(b, prompt, max_new, speculative)
            tokens[i] += len(ids)
            seconds[i] += len(ids) / rate
            outs.append(ids)
        same += outs[0] == outs[1]
    plain, fast = tokens[0] / max(seconds[0], 1e-9), tokens[1] / max(seconds[1], 1e-9)
    print(f"notebook tasks ({len(tasks)}, test split): plain {plain:.1f} tok/s, speculative {fast:.1f} tok/s, "
          f"{fast / plain:.2f}x; identical outputs {same}/{len(tasks)}")


def open_model(path: Path, draft: Path | None, device: str, threads: int | None) -> Backend:
    backend: Backend
    if path.is_dir():
        from ghostbook.models.transformers_backend import TransformersBackend

        backend = TransformersBackend(path, device=device, threads=threads, draft=draft)
    else:
        from ghostbook.models.llamacpp_backend import LlamaCppBackend

        backend = LlamaCppBackend(path, threads=threads)
    backend.load()
    return backend


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ghostbook bench speculative", description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=None, help="GGUF file or transformers folder (default: "
                        "the shipped model)")
    parser.add_argument("--draft", type=Path, default=None, help="a transformers draft model (same vocabulary)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--max-new", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--notebooks", type=int, default=0, help="also this many cursor positions of the "
                        "notebook benchmark's test split (real notebooks, whole notebook as context)")
    args = parser.parse_args(argv)
    path = args.model or default_model_path()
    if path is None:
        parser.error("no shipped model: pass --model")
    try:
        b = open_model(path, args.draft, args.device, args.threads)
    except ModelLoadError as exc:
        print(f"ghostbook bench speculative: {exc}", file=sys.stderr)
        return 1
    print(f"model {path.name} ({b.info.extra.get('device', 'cpu')}), draft: "
          f"{args.draft.name if args.draft else 'prompt lookup'}, {args.max_new} new tokens, median of {args.repeat}")
    print(f"{'case':<20} {'tokens':>6} {'plain tok/s':>12} {'spec tok/s':>11} {'speedup':>8}  same")
    ratios: dict[bool, list[float]] = {True: [], False: []}
    for copy, cases in ((True, COPY_CASES), (False, CONTROL)):
        for name, prefix, suffix in cases:
            template = get_template(b.info.family)
            prompt = build_prompt(template, b.tokenize(prefix), b.tokenize(suffix), b.lookup)
            decode(b, prompt, 1, False)  # the prompt in the KV cache
            plain, fast, same, n = [], [], True, 0
            for _ in range(args.repeat):
                ids, rate = decode(b, prompt, args.max_new, False)
                ids2, rate2 = decode(b, prompt, args.max_new, True)
                plain.append(rate)
                fast.append(rate2)
                same, n = same and ids == ids2, len(ids)
            ratio = statistics.median(fast) / statistics.median(plain) if min(plain) > 0 else 0.0
            if ratio > 0:  # else the model ended at once (nothing decoded)
                ratios[copy].append(ratio)
            print(f"{name:<20} {n:>6} {statistics.median(plain):>12.1f} {statistics.median(fast):>11.1f} "
                  f"{ratio:>7.2f}x  {'yes' if same else 'NO'}")
    for copy in (True, False):
        label = "copy-heavy" if copy else "control"
        if ratios[copy]:
            print(f"{label}: speculative/plain tokens/s, geometric mean "
                  f"{statistics.geometric_mean(ratios[copy]):.2f}x")
    if args.notebooks:
        notebook_tasks(b, args.notebooks, args.max_new)
    b.unload()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
