"""The confidence gate on the notebook benchmark: what automatic requests would show.

The benchmark asks as Ctrl+Space does (forced); an automatic request at the same cursor gets the first
search's text (`NotebookResult.auto_*`; a forced request searches again where that found nothing or ran
out of time), unless the gate's rules skip the place (`completion.gate`) or its confidence is below the
threshold of the "Suggest" setting (`completion.confidence`). Precision is exact among shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ghostbook.eval.notebook_bench import NotebookResult


@dataclass(frozen=True)
class GateRow:
    setting: str
    threshold: float
    tasks: int
    shown: int
    exact: int
    precision: float
    hits_kept: float  # exact shown, as a share of those shown with no threshold


def eligible(results: Sequence[NotebookResult]) -> list[NotebookResult]:
    """The results an automatic request would have shown with no confidence threshold."""
    return [r for r in results if not r.auto_empty and r.auto_skip is None]


def gate_row(results: Sequence[NotebookResult], setting: str, threshold: float) -> GateRow:
    shown = [r for r in eligible(results) if (r.confidence if r.confidence is not None else 1.0) >= threshold]
    base = sum(r.auto_exact for r in eligible(results))
    exact = sum(r.auto_exact for r in shown)
    return GateRow(setting, threshold, len(results), len(shown), exact, exact / len(shown) if shown else 0.0,
                   exact / base if base else 0.0)


def gate_rows(results: Sequence[NotebookResult], thresholds: Mapping[str, float]) -> list[GateRow]:
    """No threshold, then each setting's."""
    return [gate_row(results, "no threshold", 0.0)] + [gate_row(results, k, v) for k, v in thresholds.items()]


def threshold_for(results: Sequence[NotebookResult], precision: float) -> float:
    """The lowest threshold at which the shown suggestions are at least `precision` exact (the highest
    confidence seen, if none is)."""
    ranked = sorted(eligible(results), key=lambda r: -(r.confidence or 0.0))
    exact, best = 0, None
    for k, r in enumerate(ranked, 1):
        exact += r.auto_exact
        if exact / k >= precision and (k == len(ranked) or (ranked[k].confidence or 0.0) < (r.confidence or 0.0)):
            best = r.confidence or 0.0
    return best if best is not None else (ranked[0].confidence or 1.0 if ranked else 1.0)


def reliability(results: Sequence[NotebookResult], bins: int = 10) -> list[tuple[float, float, int]]:
    """(mean confidence, share exact, count) per confidence bin, for the shown-able suggestions."""
    rows: list[list[NotebookResult]] = [[] for _ in range(bins)]
    for r in eligible(results):
        rows[min(bins - 1, int((r.confidence or 0.0) * bins))].append(r)
    return [(sum(r.confidence or 0.0 for r in b) / len(b), sum(r.auto_exact for r in b) / len(b), len(b))
            for b in rows if b]


def plot(runs: Sequence[tuple[str, Sequence[NotebookResult]]], thresholds: Mapping[str, float], path: Path) -> Path:
    """A PNG: the reliability diagram and the precision–coverage curve of each run, the thresholds marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    left.plot([0, 1], [0, 1], color="grey", linestyle=":", label="calibrated")
    for label, results in runs:
        points = reliability(results)
        left.plot([p for p, _, _ in points], [e for _, e, _ in points], marker="o", label=label)
        ranked = sorted(eligible(results), key=lambda r: -(r.confidence or 0.0))
        base = max(1, sum(r.auto_exact for r in ranked))
        xs, ys, exact = [], [], 0
        for k, r in enumerate(ranked, 1):
            exact += r.auto_exact
            xs.append(exact / base)
            ys.append(exact / k)
        line = right.plot(xs, ys, label=label)[0]
        for name, t in thresholds.items():
            row = gate_row(results, name, t)
            right.scatter([row.hits_kept], [row.precision], color=line.get_color())
            right.annotate(name, (row.hits_kept, row.precision), fontsize=8)
    left.set_xlabel("confidence")
    left.set_ylabel("share exactly right")
    left.set_title("Reliability (automatic suggestions)")
    left.legend(fontsize=8)
    right.set_xlabel("exact hits kept (share of those with no threshold)")
    right.set_ylabel("precision: exact among shown")
    right.set_title("Precision against coverage")
    right.axhline(0.6, color="grey", linestyle=":")
    right.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
