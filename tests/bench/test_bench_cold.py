"""`ghostbook bench completion --cold` runs end to end on the shipped model: variants side by side."""

from __future__ import annotations

import pytest
from ghostbook.bench import main


def test_bench_cold_prints_variants_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "--cold", "--stride", "100", "--limit", "3",
                 "--variants", "default", "cell first 128", "n_ctx 2048, context 1024"]) == 0
    out = capsys.readouterr().out
    assert "3 tasks of the test split" in out and "cold (KV cache empty), forced requests" in out
    rows = {line.split(" | ")[0].strip("| "): line for line in out.splitlines() if line.startswith("| ")}
    assert "| 1.00 / 1.00 |" in rows["default (cold 96)"]  # the baseline's ratios
    assert "cell first 128" in rows and "n_ctx 2048, context 1024" in rows
