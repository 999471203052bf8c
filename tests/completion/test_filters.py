"""Golden tests: each post-processing filter, and the whole pipeline, on cases in golden/filters.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ghostbook.completion import filters
from ghostbook.completion.filters import FilterContext

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "golden" / "filters.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden(case: dict[str, Any]) -> None:
    ctx = FilterContext(case["prefix"], case["suffix"], final=case.get("final", True),
                        truncated=case.get("truncated", False), above=case.get("above", ""))
    if case["filter"] == "run":
        got, _ = filters.run(case["text"], ctx)
    else:
        got = filters.FILTERS[case["filter"]](case["text"], ctx)
    assert got == case["expected"]


def test_every_filter_has_golden_cases() -> None:
    covered = {c["filter"] for c in CASES}
    assert set(filters.FILTERS) <= covered
    assert "run" in covered


def test_stoppers_report_stop_while_streaming() -> None:
    ctx = FilterContext("x = ", "", final=False)
    assert filters.run("compute(", ctx) == ("compute(", False)  # partial: not final, no parse check
    text, stopped = filters.run("compute()\n\ny", ctx)
    assert (text, stopped) == ("compute()", True)


def test_a_loop_stops_generation() -> None:
    ctx = FilterContext("x = ", "", final=False)
    assert filters.run("f(a, b, b, b, b, b, b, b, b, b", ctx) == ("", True)
