"""`ghostbook bench collab` without a browser: its notebooks, counts, table and options (the real run in the
browser: e2e/test_bench_collab.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from ghostbook.bench import BENCHES
from ghostbook.bench import collab_notebooks as notebooks
from ghostbook.bench.collab import Config, SideResult, parse, percentile, table
from ghostbook.bench.collab_pages import RACE_A, RACE_B, RaceRun, kept


def test_the_notebooks_it_opens(tmp_path: Path) -> None:
    big = notebooks.big_cell(1_000_000)
    assert len(big) == 1 and 1_000_000 <= len(str(big[0]["source"])) < 1_000_100
    many = notebooks.many_cells(500)
    kinds = [c["cell_type"] for c in many]
    assert len(many) == 500 and kinds.count("markdown") == 99 and kinds[-1] == "code"
    assert notebooks.head(many) == many[-1]["source"]  # a short last cell: all of it
    assert notebooks.head(big).count("\n") == 9
    notebooks.write(tmp_path / "n.ipynb", many)
    saved = json.loads((tmp_path / "n.ipynb").read_text())
    assert saved["nbformat"] == 4 and saved["cells"][0]["outputs"][0]["name"] == "stdout"
    assert not set(RACE_A + RACE_B) & set(notebooks.TYPING_LINE)  # the race counts letters the cell lacks


def test_counts() -> None:
    assert percentile([5.0, 1.0, 4.0, 2.0, 3.0], 50) == 3.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0
    assert percentile([1.0, 2.0], 100) == 2.0 and math.isnan(percentile([], 50))
    assert kept(notebooks.TYPING_LINE + "abAB", "aAbBcC") == 4
    assert kept("aaaa", "aa") == 2 and kept(None, "a") == 0


def test_table_side_by_side() -> None:
    ours = SideResult("this tree", {"words": [10.0, 20.0, 30.0], "symbols": [5.0]}, {"words": 4, "symbols": 1}, [0.1],
                      [RaceRun(10, 8, 8, 8, True)], [100.0], [200.0])
    theirs = SideResult("baseline abc", {"words": [20.0, 40.0, 60.0], "symbols": [10.0]}, {"words": 4, "symbols": 1},
                        [0.0], [RaceRun(10, 5, 6, 5, False)], [50.0], [400.0])
    out = table([ours, theirs], Config(big_bytes=1_000_000, cells=500)).splitlines()
    assert out[0] == "| measure | this tree | baseline abc | ratio |"
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1:] for line in out[2:]}
    assert rows["keystroke to the other tab, words, p50 (ms)"] == ["20.0", "40.0", "0.50 |"]
    assert rows["keystroke to the other tab, symbols, max (ms)"] == ["5.0", "10.0", "0.50 |"]
    assert rows["words: keys arrived"] == ["3 / 4", "3 / 4", "1.00 |"]
    assert rows["race: typed characters kept in tab B"][:2] == ["8 / 10 (80%)", "6 / 10 (60%)"]
    assert rows["race: runs where both tabs and the file agree"] == ["1 / 1", "0 / 1", "- |"]
    assert rows["open one 1 MB code cell, median (ms)"][2] == "2.00 |"
    assert rows["open 500 cells, median (ms)"][2] == "0.50 |"
    alone = table([ours], Config()).splitlines()
    assert alone[0] == "| measure | this tree |" and alone[1] == "|---|---|"


def test_options() -> None:
    assert BENCHES["collab"] == "ghostbook.bench.collab"
    config, baseline, out = parse([])
    assert baseline is None and out is None and config == Config()
    assert parse(["--baseline"])[1] == ""  # the merge-base with main
    assert parse(["--baseline", "v1"])[1] == "v1" and parse(["--no-baseline"])[1] is None
    config = parse(["--pace", "10:20", "--big-mb", "0.5", "--cells", "7"])[0]
    assert config.pace_ms == (10.0, 20.0) and config.big_bytes == 500_000 and config.cells == 7


def test_only_some_measures() -> None:
    config = parse(["--only", "many,big"])[0]
    assert config.measures == ("big", "many")  # in the table's order
    with pytest.raises(SystemExit):
        parse(["--only", "bigg"])
    opened = SideResult("this tree", open_big=[100.0], open_many=[200.0])
    rows = [line.split(" | ")[0].lstrip("| ") for line in table([opened], config).splitlines()[2:]]
    assert rows == ["open one 1 MB code cell, median (ms)", "open 500 cells, median (ms)"]  # nothing not run
