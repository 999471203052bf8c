"""`ghostbook train line-table`: the line memory's table from notebooks, decontaminated as the corpus is."""

from __future__ import annotations

from pathlib import Path

from ghostbook.completion.line_memory import LineMemory
from ghostbook.eval.notebook_data import Notebook, load_notebooks, packaged_split, write_notebooks
from ghostbook.training.cli import main as train_main


def _held_out_cell() -> str:
    """A long cell of a test-split notebook (what no table may learn)."""
    cells = [c for nb in load_notebooks(packaged_split("test")) for c in nb.cells]
    return max((c for c in cells if 400 < len(c) < 1500 and "def " in c), key=len)


def test_the_table_holds_the_notebooks_lines_but_none_of_a_held_out_cell(tmp_path: Path) -> None:
    held = _held_out_cell()
    plot = "\n".join(f"plt.plot(rng.normal(size={n}), label='run {n}')" for n in range(10, 20))  # the corpus's size
    nbs = [Notebook("x/a.ipynb", "x", "MIT", ["import numpy as np\nrng = np.random.default_rng(7)", plot, held]),
           Notebook("x/b.ipynb", "x", "MIT", ["import numpy as np\nrng = np.random.default_rng(7)\nrng.random(3)",
                                             plot])]
    write_notebooks(tmp_path / "nb.jsonl.gz", nbs)
    out = tmp_path / "lines.json.gz"
    assert train_main(["line-table", str(tmp_path / "nb.jsonl.gz"), "--out", str(out)]) == 0
    m = LineMemory.load(out)
    assert m.rests("rng = np.random.") == ["default_rng(7)"]
    assert m.notebooks[m.lines.index("import numpy as np")] == 2
    held_lines = [ln.strip() for ln in held.split("\n") if len(ln.strip()) > 30 and not ln.strip().startswith("#")]
    assert held_lines and not any(line in m.lines for line in held_lines)


def test_missing_notebooks_are_an_error(tmp_path: Path) -> None:
    assert train_main(["line-table", str(tmp_path / "none.jsonl.gz"), "--out", str(tmp_path / "t.gz")]) == 2
