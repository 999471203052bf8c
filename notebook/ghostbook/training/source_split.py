"""`ghostbook train source-split MORE.jsonl.gz`: notebook benchmarks split by source repository.

The notebook benchmark's test and validation splits are cut by notebook from the same repositories as
the training split, whose lines the line memory holds: they measure memory as much as completion. These
splits take whole repositories the shipped model and the line memory never saw (from the collected
notebooks not yet trained on), so each measures what a user of other code meets:

- `unseen-train`: what the completion's confidence gate is fitted on;
- `unseen-validation`: where its calibration is checked and its thresholds chosen;
- `unseen-test`: the held-out benchmark the gate's targets are reported on.

At most `PER_SOURCE` notebooks a repository (chosen by a hash of their ids), so no one repository
outweighs the rest. The validation and test repositories are removed from the input file, so no later
training stage can take them; the train repositories stay trainable (the gate is refitted then).
Repositories that copy a trained one (another edition of a trained book) are left out of all three.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from ghostbook.eval.notebook_data import Notebook, load_notebooks, packaged_split, write_notebooks

PER_SOURCE = 12
# the split of each repository (`Notebook.source`); those not named are left as they are
SOURCES: dict[str, str] = {
    "WillKoehrsen__Data-Analysis": "test",
    "stefmolin__Hands-On-Data-Analysis-with-Pandas-2nd-edition": "test",
    "ipython-books__cookbook-2nd-code": "test",
    "TheAlgorithms__Jupyter": "test",
    "google__eng-edu": "test",
    "chendaniely__pandas_for_everyone": "test",
    "CamDavidsonPilon__Probabilistic-Programming-and-Bayesian-Methods-for-Hackers": "test",
    "mGalarnyk__Python_Tutorials": "validation",
    "PacktPublishing__Pandas-Cookbook": "validation",
    "AllenDowney__ElementsOfDataScience": "validation",
    "trekhleb__homemade-machine-learning": "validation",
    "QuantEcon__QuantEcon.notebooks": "validation",
    "GeostatsGuy__PythonNumericalDemos": "train",
    "AllenDowney__ThinkBayes2": "train",
    "ethen8181__machine-learning": "train",
    "stefan-jansen__machine-learning-for-trading": "train",
    "AllenDowney__ModSimPy": "train",
    "trekhleb__machine-learning-experiments": "train",
    "GokuMohandas__Made-With-ML": "train",
}
# other editions of books the model trained on (handson-ml2, python-machine-learning-book-3rd-edition)
# or the author's own later book (PythonDataScienceHandbook): neither trainable nor unseen
COPIES = ("ageron__handson-ml3", "ageron__handson-ml", "rasbt__machine-learning-book", "jakevdp__sklearn_tutorial")


def _pick(notebooks: list[Notebook]) -> list[Notebook]:
    ranked = sorted(notebooks, key=lambda nb: hashlib.sha256(nb.id.encode()).hexdigest())
    return sorted(ranked[:PER_SOURCE], key=lambda nb: nb.id)


def split(notebooks: list[Notebook]) -> tuple[dict[str, list[Notebook]], list[Notebook]]:
    """The three splits, and the notebooks that stay trainable."""
    by_source: dict[str, list[Notebook]] = {}
    for nb in notebooks:
        by_source.setdefault(nb.source, []).append(nb)
    out: dict[str, list[Notebook]] = {"train": [], "validation": [], "test": []}
    for source in sorted(by_source):
        if source in SOURCES:
            out[SOURCES[source]] += _pick(by_source[source])
    keep = [nb for nb in notebooks if SOURCES.get(nb.source, "train") == "train" and nb.source not in COPIES]
    return out, keep


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook train source-split", description=__doc__)
    ap.add_argument("notebooks", type=Path, help="collected notebooks not yet trained on (gzip jsonl)")
    ap.add_argument("--out", type=Path, default=packaged_split("test").parent, help="where the splits go")
    args = ap.parse_args(argv)
    notebooks = load_notebooks(args.notebooks)
    splits, keep = split(notebooks)
    for name, part in splits.items():
        n = write_notebooks(args.out / f"notebooks-unseen-{name}.jsonl.gz", part)
        print(f"unseen-{name}: {n} notebooks from {len({nb.source for nb in part})} repositories")
    write_notebooks(args.notebooks, keep)
    print(f"{args.notebooks}: {len(keep)} of {len(notebooks)} notebooks stay trainable")
    return 0
