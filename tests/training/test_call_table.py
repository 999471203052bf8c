"""`ghostbook train call-table`: how often notebooks call each function with no arguments."""

from __future__ import annotations

import json
from pathlib import Path

from ghostbook.decoding.empty_calls import MAX_EMPTY, TABLE
from ghostbook.eval.notebook_data import Notebook, write_notebooks
from ghostbook.training.call_table import build_table
from ghostbook.training.cli import main as train_main


def test_each_callee_gets_the_share_of_its_calls_that_pass_nothing() -> None:
    code = ["import matplotlib.pyplot as plt\n" + "print('a')\nplt.show()\nitems.append(1)\n" * 3 + "print()\n",
            "%matplotlib inline\nother.append(2)\nplt.show()",  # a magic line does not spoil the cell
            "def broken(:\n    print()"]  # does not parse: not counted
    table = build_table(code, min_count=2)
    assert table["print"] == 0.25 and table["plt.show"] == 1.0
    assert table["items.append"] == 0.0 and table[".append"] == 0.0 and table[".show"] == 1.0
    assert "other.append" not in table  # called once: too few to say


def test_the_command_writes_the_table(tmp_path: Path) -> None:
    plot = "\n".join(f"plt.plot(rng.normal(size={n}), label='run {n}')" for n in range(10, 20))  # the corpus's size
    nbs = [Notebook(f"x/{i}.ipynb", "x", "MIT", ["import numpy as np", f"a = np.zeros({i})\nprint(a)\nprint()", plot])
           for i in range(12)]
    write_notebooks(tmp_path / "nb.jsonl.gz", nbs)
    out = tmp_path / "calls.json"
    assert train_main(["call-table", str(tmp_path / "nb.jsonl.gz"), "--out", str(out), "--min-count", "10"]) == 0
    table = json.loads(out.read_text())
    assert table["np.zeros"] == 0.0 and table[".zeros"] == 0.0 and table["print"] == 0.5
    assert table["plt.plot"] == 0.0 and table["rng.normal"] == 0.0
    assert train_main(["call-table", str(tmp_path / "none.jsonl.gz"), "--out", str(out)]) == 2


def test_the_shipped_table() -> None:
    table = json.loads(TABLE.read_text())
    assert table["print"] <= MAX_EMPTY and table["len"] <= MAX_EMPTY and table[".append"] <= MAX_EMPTY
    assert table["plt.show"] > MAX_EMPTY and table[".head"] > MAX_EMPTY
