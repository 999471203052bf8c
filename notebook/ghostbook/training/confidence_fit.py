"""`ghostbook train confidence`: fit the confidence of automatic ghost text (`completion.confidence`).

The notebook benchmark's `unseen-train` split (repositories neither the model nor the line memory saw)
is answered through the editor's own completion path; a logistic model learns, from what the engine
knew of each suggestion (`Evidence.features`), whether its first line was exactly right. On
`unseen-validation` its calibration is checked and each "Suggest" setting's threshold chosen: the
lowest at which that setting's share of shown suggestions is exactly right (`PRECISION`). Writes the
model (`completion/data/confidence.json`) and a chart of both.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from ghostbook.completion.confidence import ConfidenceModel, packaged_path
from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval import gate_report
from ghostbook.eval import notebook_bench as bench
from ghostbook.eval.notebook_bench import NotebookResult
from ghostbook.eval.notebook_data import load_notebooks, packaged_split
from ghostbook.eval.notebook_tasks import notebook_tasks

# the share of shown automatic suggestions each setting wants exactly right (on validation)
PRECISION = {"often": 0.45, "balanced": 0.60, "confident": 0.75}
REGULARISATION = 1.0  # scikit-learn's C


def answer(split: str, per_notebook: int, model: str = "default") -> list[NotebookResult]:
    tasks = notebook_tasks(load_notebooks(packaged_split(split)), per_notebook)
    return bench.run(tasks, model, dataclasses.replace(CompletionSettings()), progress=True)


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
    args = ap.parse_args(argv)
    train = answer("unseen-train", args.per_notebook)
    weights = fit(train)
    validation = rescore(answer("unseen-validation", args.per_notebook), ConfidenceModel(weights))
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
