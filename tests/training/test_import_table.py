"""`ghostbook train import-table`: the module each name is usually imported from, counted in a corpus."""

from __future__ import annotations

import json
from pathlib import Path

from ghostbook.completion.candidates import from_imports
from ghostbook.training.import_table import build_table, main

TEXTS = [
    "from sklearn.model_selection import train_test_split, KFold\nfrom scipy import stats\n",
    "from sklearn.model_selection import (\n    train_test_split,\n)\nfrom scipy import stats as st\n",
    "from sklearn.cross_validation import train_test_split\nfrom datetime import time\nfrom math import e\n",
]


def test_each_name_gets_its_most_common_module() -> None:
    table = build_table(TEXTS * 5, min_count=10)
    assert table == {"stats": "scipy", "train_test_split": "sklearn.model_selection"}
    # `KFold` (5 times) is too rare, `e` too short, `time` a module's own name
    assert build_table(TEXTS * 5, min_count=5)["KFold"] == "sklearn.model_selection"


def test_the_command_writes_the_table(tmp_path: Path) -> None:
    corpus = tmp_path / "train.jsonl"
    corpus.write_text("".join(json.dumps({"path": f"a{i}.py", "text": t}) + "\n" for i, t in enumerate(TEXTS * 4)))
    assert main([str(corpus), "--out", str(tmp_path / "t.json"), "--min-count", "8"]) == 0
    assert json.loads((tmp_path / "t.json").read_text())["train_test_split"] == "sklearn.model_selection"
    assert main([str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "x.json")]) == 2


def test_the_shipped_table_knows_the_usual_data_science_names() -> None:
    table = from_imports()
    assert table["train_test_split"] == "sklearn.model_selection" and table["load_dataset"] == "seaborn"
    assert "time" not in table and "e" not in table
