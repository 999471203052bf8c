"""`ghostbook train attribute-table`: what code writes after a module's name or imports from it, counted
in a corpus, per role, with each role's commonest rest of the line counted in files."""

from __future__ import annotations

import json
from pathlib import Path

from ghostbook.training.attribute_table import build_table, main

PLOTS = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot(x)\nplt.show()\n"
RANDOM = "import numpy as np\nnp.random.seed(0)\nx = np.random.normal(size=3)  # noise\n# np.zeros(3)\n"
IMPORTS = "from sklearn.metrics import accuracy_score, f1_score\nfrom sklearn.metrics import f1_score\n"
TEXTS = [PLOTS, PLOTS.replace("subplots()", "subplots(2)"), RANDOM, IMPORTS, "import os\nos.getcwd()\n"]


def test_each_module_gets_its_attributes_per_role() -> None:
    table = build_table(TEXTS * 3, min_module=3, min_count=3)
    plt = {row[0]: row[1:] for row in table["matplotlib.pyplot"]}
    # statements (files, rest), values (files, rest), imports (files, rest)
    assert plt["show"] == [6, "show()", 0, "", 0, ""]
    assert plt["subplots"] == [0, "", 6, "subplots()", 0, ""]  # 3 files each way: the first commonest
    random = {row[0]: row[1:] for row in table["numpy.random"]}
    assert random["seed"][:2] == [3, "seed(0)"] and random["normal"][2:4] == [3, "normal(size=3)"]
    assert "zeros" not in {row[0] for row in table["numpy"]}  # in a comment
    metrics = {row[0]: row[1:] for row in table["sklearn.metrics"]}
    assert metrics["accuracy_score"][4:] == [3, "accuracy_score, f1_score"] and metrics["f1_score"][4] == 3
    assert "os" in table and "ax" not in table  # `ax` is no module


def test_rare_modules_and_attributes_are_left_out() -> None:
    table = build_table(TEXTS, min_module=3, min_count=2)
    assert "os" not in table  # seen once
    assert [row[0] for row in table["matplotlib.pyplot"]] == ["subplots", "show"]
    assert table["matplotlib.pyplot"][0][4] == ""  # 1 file each: no rest common enough


def test_the_command_writes_the_table(tmp_path: Path) -> None:
    corpus = tmp_path / "train.jsonl"
    corpus.write_text("".join(json.dumps({"path": f"a{i}.py", "text": t}) + "\n" for i, t in enumerate(TEXTS * 4)))
    assert main([str(corpus), "--out", str(tmp_path / "t.json"), "--min-module", "4"]) == 0
    assert "matplotlib.pyplot" in json.loads((tmp_path / "t.json").read_text())
    assert main([str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "x.json")]) == 2
