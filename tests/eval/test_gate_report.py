"""What automatic requests would show at each "Suggest" threshold (`eval.gate_report`): precision is
exact among shown, hits kept are counted against no threshold, and a threshold is the lowest that
reaches its precision."""

from __future__ import annotations

from pathlib import Path

from ghostbook.eval import gate_report
from ghostbook.eval.notebook_bench import NotebookResult


def result(confidence: float, exact: bool, skip: str | None = None, empty: bool = False) -> NotebookResult:
    return NotebookResult("t", "line", "x", "x", exact, 1.0, empty, None, 1.0, auto_skip=skip, auto_exact=exact,
                          auto_empty=empty, confidence=confidence, features={"bias": 1.0})


RESULTS = [result(0.9, True), result(0.8, True), result(0.7, False), result(0.6, True), result(0.3, False),
           result(0.2, False), result(0.95, True, skip="empty cell"), result(0.99, False, empty=True)]


def test_rows_count_only_what_an_automatic_request_would_show() -> None:
    none, high = gate_report.gate_rows(RESULTS, {"confident": 0.75})
    assert (none.shown, none.exact, round(none.precision, 3), none.hits_kept) == (6, 3, 0.5, 1.0)
    assert (high.shown, high.exact, high.precision, round(high.hits_kept, 3)) == (2, 2, 1.0, 0.667)


def test_the_threshold_is_the_lowest_that_reaches_the_precision() -> None:
    assert gate_report.threshold_for(RESULTS, 0.75) == 0.6  # 0.9, 0.8, 0.7, 0.6: 3 of 4
    assert gate_report.threshold_for(RESULTS, 1.0) == 0.8
    assert gate_report.threshold_for(RESULTS, 0.5) == 0.2


def test_reliability_and_chart(tmp_path: Path) -> None:
    bins = gate_report.reliability(RESULTS)
    assert sum(n for _, _, n in bins) == 6 and all(0 <= share <= 1 for _, share, _ in bins)
    png = gate_report.plot([("a", RESULTS)], {"balanced": 0.5}, tmp_path / "gate.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
