"""Benchmarks split by source repository (`training.source_split`): whole repositories per split, at
most `PER_SOURCE` notebooks each, the held-out ones removed from what later stages may train on; and
the stored splits share no repository with each other or with the training notebooks."""

from __future__ import annotations

from pathlib import Path

from ghostbook.eval.notebook_data import Notebook, load_notebooks, packaged_split
from ghostbook.training import source_split


def nb(source: str, k: int) -> Notebook:
    return Notebook(f"{source}/n{k}.ipynb", source, "MIT", [f"x = {k}"])


def test_whole_repositories_go_to_one_split_and_held_out_ones_leave_the_training_file() -> None:
    notebooks = [nb(s, k) for s in ("TheAlgorithms__Jupyter", "AllenDowney__ModSimPy",
                                    "QuantEcon__QuantEcon.notebooks", "ageron__handson-ml3", "someone__new")
                 for k in range(20)]
    splits, keep = source_split.split(notebooks)
    assert {n.source for n in splits["test"]} == {"TheAlgorithms__Jupyter"}
    assert {n.source for n in splits["validation"]} == {"QuantEcon__QuantEcon.notebooks"}
    assert {n.source for n in splits["train"]} == {"AllenDowney__ModSimPy"}
    assert all(len(part) == source_split.PER_SOURCE for part in splits.values())
    assert {n.source for n in keep} == {"AllenDowney__ModSimPy", "someone__new"}  # copies and held-out gone
    assert source_split.split(list(reversed(notebooks)))[0] == splits  # the choice is the ids', not the order


def test_the_stored_splits_share_no_repository_with_each_other_or_with_training() -> None:
    stored = {s: {n.source for n in load_notebooks(packaged_split(f"unseen-{s}"))}
              for s in ("train", "validation", "test")}
    assert all(stored.values())
    assert not stored["train"] & stored["validation"] and not stored["test"] & (stored["train"] | stored["validation"])
    root = Path(__file__).resolve().parents[2] / "training-state"
    trained = {n.source for f in ("notebooks-train.jsonl.gz", "notebooks-extra.jsonl.gz")
               for n in load_notebooks(root / f)}
    assert not trained & (stored["validation"] | stored["test"] | stored["train"])
    later = {n.source for n in load_notebooks(root / "notebooks-more.jsonl.gz")}
    assert not later & (stored["validation"] | stored["test"])
