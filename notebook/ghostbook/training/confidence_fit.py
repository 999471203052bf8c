"""`ghostbook train confidence`: fit the confidence of automatic ghost text (`completion.confidence`).

The notebook benchmark's `unseen-train` split (repositories neither the model nor the line memory saw)
is answered through the editor's own completion path, in the whole notebook (the shipped fit) or, with
`--mode writing`, as the user writes (`eval.writing`: the cells above run in a real kernel, nothing
below the cursor; docs/benchmarks.md says why that fit is not the shipped one); a logistic model
learns, from what the engine knew of each suggestion (`Evidence.features`), whether its first line
was exactly right. On `unseen-validation` its calibration is checked and each "Suggest" setting's
threshold chosen: the lowest at which that setting's share of shown suggestions is exactly right
(`PRECISION`). Writes the model (`completion/data/confidence.json`) and a chart of both.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from ghostbook.completion.confidence import ConfidenceModel, packaged_path
from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval import gate_report
from ghostbook.eval import notebook_bench as bench
from ghostbook.eval.notebook_bench import NotebookResult
from ghostbook.eval.notebook_data import load_notebooks, packaged_split
from ghostbook.eval.notebook_tasks import NotebookTask, notebook_tasks
from ghostbook.eval.writing import prepare
from ghostbook.eval.writing_cli import cells_to_run

# the share of shown automatic suggestions each setting wants exactly right (on validation)
PRECISION = {"often": 0.45, "balanced": 0.60, "confident": 0.75}
REGULARISATION = 1.0  # scikit-learn's C


def answer(split: str, per_notebook: int, model: str = "default", mode: str = "whole") -> list[NotebookResult]:
    """The split's tasks answered through the editor's path (`answer_tasks`)."""
    tasks = notebook_tasks(load_notebooks(packaged_split(split)), per_notebook)
    return answer_tasks(tasks, model, mode, split)


def answer_tasks(tasks: Sequence[NotebookTask], model: str = "default", mode: str = "whole",
                 name: str = "tasks", progress: bool = True) -> list[NotebookResult]:
    """Forced requests, each recording what the automatic one would show: as written (`mode`
    "writing": every task, whether or not the cells above all ran) or in the whole notebook."""
    settings = CompletionSettings()
    if mode == "whole":
        return bench.run(tasks, model, settings, progress=progress)
    with tqdm(total=cells_to_run(tasks), desc=f"{name}: kernel", unit="cell", disable=not progress) as bar:
        prepared = asyncio.run(prepare(tasks, tick=bar.update))
    return asyncio.run(bench.run_tasks([p.task for p in prepared], model, settings, progress=progress,
                                       desc=f"{name}: completion", kernels=[p.kernel() for p in prepared]))


def fit(results: list[NotebookResult]) -> dict[str, float]:
    """Logistic weights by feature name from the suggestions an automatic request would show."""
    from sklearn.linear_model import LogisticRegression

    rows = [r for r in gate_report.eligible(results) if r.features]
    names = sorted({k for r in rows for k in r.features or {}})
    x = [[(r.features or {}).get(k, 0.0) for k in names] for r in rows]
    y = [int(r.auto_exact) for r in rows]
    model = LogisticRegression(C=REGULARISATION, fit_intercept=False, max_iter=2000).fit(x, y)
    return {k: round(float(w), 4) for k, w in zip(names, model.coef_[0], strict=True)}


def rescore(results: list[NotebookResult], model: ConfidenceModel) -> list[NotebookResult]:
    """`results` with the confidence `model` gives their features."""
    import math

    def p(features: dict[str, float] | None) -> float | None:
        if features is None:
            return None
        z = sum(model.weights.get(k, 0.0) * v for k, v in features.items())
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))

    return [dataclasses.replace(r, confidence=p(r.features)) for r in results]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook train confidence", description=__doc__)
    ap.add_argument("--per-notebook", type=int, default=12, help="tasks cut from each notebook")
    ap.add_argument("--out", type=Path, default=packaged_path())
    ap.add_argument("--png", type=Path, default=Path("docs/img/confidence-validation.png"))
    ap.add_argument("--json", type=Path, default=None, help="write the per-task results here")
    ap.add_argument("--mode", choices=["whole", "writing"], default="whole",
                    help="the tasks in the whole notebook, or as the user writes them (the cells above run in a "
                         "kernel, nothing below)")
    args = ap.parse_args(argv)
    train = answer("unseen-train", args.per_notebook, mode=args.mode)
    weights = fit(train)
    validation = rescore(answer("unseen-validation", args.per_notebook, mode=args.mode), ConfidenceModel(weights))
    thresholds = {k: round(gate_report.threshold_for(validation, v), 4) for k, v in PRECISION.items()}
    model = ConfidenceModel(weights, thresholds, "default")
    args.out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"wrote {args.out}: {len(weights)} weights, thresholds {thresholds}")
    for name, results in (("unseen-train", rescore(train, model)), ("unseen-validation", validation)):
        print(name)
        for row in gate_report.gate_rows(results, thresholds):
            print(f"  {row.setting:<14} t={row.threshold:.3f} shown {row.shown:>4} exact {row.exact:>4} "
                  f"precision {row.precision:.1%} hits kept {row.hits_kept:.1%}")
    runs = [("unseen-train", rescore(train, model)), ("unseen-validation", validation)]
    print(f"chart: {gate_report.plot(runs, thresholds, args.png)}")
    if args.json:
        args.json.write_text(json.dumps({"train": bench.details(train), "validation": bench.details(validation)}))
    return 0
