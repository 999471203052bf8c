"""`ghostbook bench roundtrip`'s helpers: the summary, the round order, the notebook it runs, the CPU meter,
and the bare client in a process of its own, on a real kernel."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from ghostbook.bench.bare_runner import BareProcess
from ghostbook.bench.roundtrip import CpuMeter, cpu_ms, faster, rotated, summary, trivial_notebook


def test_summary_is_the_median_and_the_nearest_rank_p95() -> None:
    assert summary([3.0, 1.0, 2.0]) == (2.0, 3.0)
    values = [float(v) for v in range(1, 101)]  # 1..100: the 95th smallest is 95
    assert summary(values) == (50.5, 95.0)
    assert summary([7.0]) == (7.0, 7.0)
    assert summary([1.0, 9.0]) == (5.0, 9.0)  # two samples: p95 is the larger, never below the median
    with pytest.raises(ValueError):
        summary([])


def test_each_round_starts_with_another_side() -> None:
    sides = ["own", "interleaved", "ws"]
    assert [rotated(sides, i)[0] for i in range(4)] == ["own", "interleaved", "ws", "own"]
    assert all(sorted(rotated(sides, i)) == sorted(sides) for i in range(5))


def test_faster_picks_the_lower_median() -> None:
    assert faster([5.0, 5.0, 50.0], [4.0, 6.0, 6.0]) == [5.0, 5.0, 50.0]


def test_the_trivial_notebook_is_valid_and_its_codes_are_its_cells(tmp_path: Path) -> None:
    codes = trivial_notebook(tmp_path / "t.ipynb", 5)
    notebook = nbformat.read(tmp_path / "t.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert [cell.source for cell in notebook.cells] == codes == ["0 + 1", "1 + 1", "2 + 1", "3 + 1", "4 + 1"]
    assert json.loads((tmp_path / "t.ipynb").read_text())["cells"][4]["id"] == "c4"


def test_the_cpu_meter_counts_this_process() -> None:
    meter = CpuMeter(os.getpid())
    meter.start()
    total = sum(i * i for i in range(2_000_000))  # some tens of ms of CPU
    own, children = meter.per(2)
    assert total > 0 and own > 0 and children >= 0
    assert cpu_ms(2**31 - 1) != cpu_ms(2**31 - 1)  # no such process: NaN


@pytest.mark.timeout(120)
async def test_the_bare_runner_times_rounds_and_run_all_on_a_real_kernel() -> None:
    bare = await BareProcess.start()
    try:
        rounds = [await bare.round() for _ in range(5)]
        assert all(0 < result <= done < 5000 for result, done in rounds)
        assert (await bare.round("x = 1"))[0] == 0.0  # no execute_result: no result time
        total = await bare.run_all(["1 + 1", "2 + 1", "print(3)"])
        assert 0 < total < 10_000
    finally:
        await bare.close()
    assert bare._process.returncode == 0
