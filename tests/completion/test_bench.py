"""`ghostbook bench completion` runs end to end on the tiny model and prints its ratios."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghostbook.bench import main


def test_bench_completion_runs(tiny_gguf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "--model", str(tiny_gguf), "--cases", "2", "--repeat", "1",
                 "--max-new-tokens", "8", "--context-tokens", "256", "--humaneval", "400"]) == 0
    out = capsys.readouterr().out
    for needle in ("cold (server)", "cold (bare llama-cpp)", "+1 line, warm KV", "server overhead",
                   "prompt tokens reused after +1 line", "typed-through model calls", "typing session:",
                   "HumanEval single-line through the service",
                   "default (beam 8, read check off, search 15 ms) vs greedy vs wide", "cold, first text",
                   "warm, whole", "default/greedy", "HumanEval exact match      greedy",
                   "default  cancel -> model free"):
        assert needle in out


def test_bench_plans_table(tiny_gguf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "--model", str(tiny_gguf), "--cases", "1", "--max-new-tokens", "8",
                 "--context-tokens", "256", "--humaneval", "800", "--plans"]) == 0
    out = capsys.readouterr().out
    assert "HumanEval cold" in out and "beam 8 within 15 ms" in out and "greedy" in out


def test_bench_reports_a_missing_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "--model", str(tmp_path / "none.gguf"), "--cases", "1"]) == 1
    assert "model file not found" in capsys.readouterr().out
