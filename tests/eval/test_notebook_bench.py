"""The notebook benchmark: data built from a local sdist (pip, no network), tasks cut by cursor kind,
scoring through the editor's completion service, the PNG, and the stored splits."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from ghostbook.completion.garbage import garbage_reason
from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval import notebook_bench as bench
from ghostbook.eval.notebook_data import (
    Notebook,
    cells_from_ipynb,
    cells_from_script,
    load_notebooks,
    notebook_text,
    packaged_split,
    write_notebooks,
)
from ghostbook.eval.notebook_tasks import KINDS, notebook_tasks, tasks_for
from ghostbook.models.loader import ModelRegistry
from ghostbook.training.notebooks import build

from tests.completion.conftest import ScriptedBackend

NOTEBOOK = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
     "source": ["import numpy as np\n", "import pandas as pd"]},
    {"cell_type": "markdown", "metadata": {}, "source": ["# Load"]},
    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
     "source": "df = pd.read_csv('data.csv')\nfor col in df.columns:\n    print(df[col].mean())"},
    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 3, "source": ""},
    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 4,
     "source": "x = np.linspace(0, 1, 50)\ny = np.sin(x)"}]}
GALLERY = '''"""
Plot a sine
===========
"""
import numpy as np
import matplotlib.pyplot as plt

# %%
# Make the data.
x = np.linspace(0, 2 * np.pi, 100)
y = np.sin(x)

# %%
fig, ax = plt.subplots()
ax.plot(x, y, color="red")
'''


def _sdist(folder: Path, name: str, licence: str) -> Path:
    """A tiny sdist (tar.gz) with PKG-INFO, pyproject.toml, an example notebook and a gallery script."""
    files = {
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\nLicense: {licence}\n",
        "pyproject.toml": f'[project]\nname = "{name}"\nversion = "1.0"\nlicense = {{text = "{licence}"}}\n'
                          '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
                          '[tool.setuptools]\npy-modules = []\n',
        "examples/analysis.ipynb": json.dumps(NOTEBOOK),
        "examples/plot_sine.py": GALLERY,
        "tests/test_x.py": "def test_x():\n    assert True\n\n\ndef test_y():\n    assert 1\n",
    }
    path = folder / f"{name}-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{name}-1.0/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_build_reads_notebooks_of_a_local_sdist_and_skips_copyleft(tmp_path: Path) -> None:
    index = tmp_path / "index"
    index.mkdir()
    _sdist(index, "nbdemo", "MIT")
    _sdist(index, "nbcopyleft", "GPL-3.0")
    pip = ["--no-index", "--find-links", str(index), "--no-build-isolation"]
    summary = build(tmp_path / "out", packages=["nbdemo==1.0", "nbcopyleft==1.0"], pip_args=pip)
    assert summary["sources"] == [{"name": "nbdemo", "version": "1.0", "licence": "MIT", "origin": "pypi sdist",
                                   "files": 2}]
    assert summary["skipped"] == [{"name": "nbcopyleft", "licence": "GPL-3.0"}]
    stored = [nb for split in ("train", "validation", "test")
              for nb in load_notebooks(tmp_path / "out" / f"notebooks-{split}.jsonl.gz")]
    assert sorted(nb.id for nb in stored) == ["nbdemo/nbdemo-1.0/examples/analysis.ipynb",
                                              "nbdemo/nbdemo-1.0/examples/plot_sine.py"]
    assert json.loads((tmp_path / "out" / "sources.json").read_text())["splits"] == summary["splits"]


def test_a_book_snapshot_with_licensed_code_builds_training_only_notebooks(tmp_path: Path) -> None:
    book = tmp_path / "book"
    (book / "notebooks").mkdir(parents=True)
    (book / "LICENSE-TEXT").write_text("Attribution-NonCommercial-NoDerivatives 4.0 International\n")
    (book / "LICENSE-CODE").write_text("The MIT License (MIT)\n\nPermission is hereby granted, free of charge\n")
    for k in range(6):
        nb = {**NOTEBOOK, "cells": [*NOTEBOOK["cells"], {"cell_type": "code", "metadata": {}, "outputs": [],
                                                         "source": [f"y{k} = np.arange({k})"]}]}
        (book / "notebooks" / f"ch{k}.ipynb").write_text(json.dumps(nb))
    summary = build(tmp_path / "out", roots=[book], training_only=True)
    assert summary["sources"] == [{"name": "book", "version": "", "licence": "MIT", "origin": "folder", "files": 6}]
    assert summary["splits"] == {"extra": 6}  # every notebook, none held out: the benchmark is elsewhere
    assert sorted(p.name for p in (tmp_path / "out").glob("*.gz")) == ["notebooks-extra.jsonl.gz"]
    assert len(load_notebooks(tmp_path / "out" / "notebooks-extra.jsonl.gz")) == 6


def test_cells_of_an_ipynb_and_of_a_gallery_script() -> None:
    assert cells_from_ipynb(json.dumps(NOTEBOOK)) == [
        "import numpy as np\nimport pandas as pd",
        "df = pd.read_csv('data.csv')\nfor col in df.columns:\n    print(df[col].mean())",
        "x = np.linspace(0, 1, 50)\ny = np.sin(x)"]
    assert cells_from_script(GALLERY) == [
        "import numpy as np\nimport matplotlib.pyplot as plt",
        "# Make the data.\nx = np.linspace(0, 2 * np.pi, 100)\ny = np.sin(x)",
        'fig, ax = plt.subplots()\nax.plot(x, y, color="red")']
    assert cells_from_ipynb("not json") == []


def test_notebook_text_joins_cells_as_the_editor_prompt_does() -> None:
    nb = Notebook("s/a.ipynb", "s", "MIT", ["import numpy as np\n", "x = np.zeros(3)"])
    assert notebook_text(nb) == "import numpy as np\n\nx = np.zeros(3)\n"


def _notebook() -> Notebook:
    return Notebook("demo/a.ipynb", "demo", "MIT", cells_from_ipynb(json.dumps(NOTEBOOK)) + cells_from_script(GALLERY))


def test_tasks_cut_the_rest_of_the_line_at_each_cursor_kind() -> None:
    nb = _notebook()
    tasks = tasks_for(nb, per_notebook=40)
    assert tasks == tasks_for(nb, per_notebook=40)  # deterministic
    kinds = {t.kind for t in tasks}
    assert {"cell", "line", "after .", "after (", "after =", "after ,", "after import"} <= kinds <= set(KINDS)
    for t in tasks:
        cell = t.cells[t.index]
        original = nb.cells[t.index]
        line_start = cell.rfind("\n", 0, t.cursor) + 1
        if t.kind == "cell":
            assert cell == "" and t.cursor == 0 and original.startswith(t.expected)
        else:  # the cursor's line is cut at the cursor; the other lines and cells stay
            assert cell[t.cursor:].split("\n", 1)[0] == ""
            assert cell[line_start:t.cursor] + t.expected in original.split("\n")
            assert t.kind != "after import" or cell[:t.cursor].endswith("import ")
        assert [c for i, c in enumerate(t.cells) if i != t.index] == [c for i, c in enumerate(nb.cells)
                                                                      if i != t.index]


def test_garbage_rules() -> None:
    assert garbage_reason("x = 1") is None
    assert garbage_reason("a\nb\na\nc\na") == "repeated line"
    assert garbage_reason("\n".join(f"x{i} = {i}" for i in range(9))) == "too many lines"
    # #15: a copy of any line within 3 of the cursor
    assert garbage_reason("np.zeros(3)", "y = ", "y = np.zeros(3)") == "copies a nearby line"
    assert garbage_reason("np.ones(3)", "y = ", "y = np.zeros(3)") is None


async def test_tasks_go_through_the_completion_service(tmp_path: Path) -> None:
    """A scripted model that always says `np.sin(x)`: exact where that is the rest of the line."""
    nb = Notebook("demo/b.ipynb", "demo", "MIT", ["import numpy as np", "x = np.linspace(0, 1)\ny = np.sin(x)",
                                                   "y = np.sin(x)"])
    tasks = [t for t in tasks_for(nb, 40) if t.kind in ("after =", "line")]
    backend = ScriptedBackend("np.sin(x)")
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    registry = ModelRegistry(lambda path, family, name: backend)
    results = await bench.run_tasks(tasks, str(tmp_path / "m.gguf"), CompletionSettings(beam_width=1),
                                    progress=False, registry=registry)
    by_id = {r.task_id: r for r in results}
    for t in tasks:
        r = by_id[t.task_id]
        assert r.exact == (t.expected == "np.sin(x)") and r.ms > 0
        assert r.exact or r.similarity < 1
    # the prompt holds the cells above and below the cursor's cell: cross-cell context
    assert any(b"import numpy as np" in bytes(i for i in prompt if i < 256) for prompt in backend.prompts)
    png = bench.plot([("scripted", results)], tmp_path / "nb.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    row = bench.summarise(results)
    assert row["n"] == len(tasks) and 0 < float(row["exact_match"]) < 1


def test_stored_validation_and_test_splits() -> None:
    test, validation = load_notebooks(packaged_split("test")), load_notebooks(packaged_split("validation"))
    assert {nb.id for nb in test}.isdisjoint(nb.id for nb in validation)
    tasks = notebook_tasks(test + validation)
    assert len(tasks) >= 500 and {t.kind for t in tasks} == set(KINDS)
    assert all(nb.licence for nb in test)


def test_eval_cli_prints_the_notebook_table_and_writes_the_png(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """`ghostbook eval MODEL --tasks notebook` with a real (tiny, random) llama.cpp model."""
    from ghostbook.eval.cli import main

    from tests.models.conftest import shared_tiny_gguf

    model = shared_tiny_gguf(tmp_path_factory)
    split = tmp_path / "notebooks-test.jsonl.gz"
    write_notebooks(split, [_notebook()])
    png = tmp_path / "chart.png"
    assert main([str(model), "--tasks", "notebook", "--notebooks", str(split), "--png", str(png), "--beam", "2",
                 "--quiet", "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "exact_match" in out and "char_similarity" in out and "p95_ms" in out and " all " in out
    assert png.read_bytes()[:4] == b"\x89PNG"
    saved = json.loads((tmp_path / "out.notebook-tiny-ghostbook.gguf.json").read_text())
    assert len(saved["results"]) == 6 and {r["kind"] for r in saved["results"]} <= set(KINDS)


def test_eval_cli_runs_the_tasks_with_and_without_candidates_side_by_side(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """`--candidates both`: the same tasks without, then with the notebook candidates (#16.4)."""
    from ghostbook.eval.cli import main

    from tests.models.conftest import shared_tiny_gguf

    model = shared_tiny_gguf(tmp_path_factory)
    split = tmp_path / "notebooks-test.jsonl.gz"
    write_notebooks(split, [_notebook()])
    assert main([str(model), "--tasks", "notebook", "--notebooks", str(split), "--png", str(tmp_path / "c.png"),
                 "--beam", "2", "--quiet", "--candidates", "both", "--json", str(tmp_path / "out.json")]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if " all " in line]
    assert [row[2] for row in rows] == ["off", "on"]
    for cand in ("off", "on"):
        saved = json.loads((tmp_path / f"out.notebook-tiny-ghostbook.gguf-candidates-{cand}.json").read_text())
        assert len(saved["results"]) == 6


async def test_debounced_requests_find_their_prompt_read(tmp_path_factory: pytest.TempPathFactory) -> None:
    """#16: by default each request comes after the editor's debounce, during which the server read its
    prompt (the edit sent with the cursor), so the request reads (almost) nothing itself; `debounce=False`
    keeps the cold requests, which read their whole prompt."""
    from tests.models.conftest import shared_tiny_gguf

    model = str(shared_tiny_gguf(tmp_path_factory))
    tasks = notebook_tasks([_notebook()], 6)
    registry = ModelRegistry()
    try:
        settings = CompletionSettings(beam_width=2, search_ms=0)
        cold = await bench.run_tasks(tasks, model, settings, progress=False, registry=registry, debounce=False)
        warm = await bench.run_tasks(tasks, model, settings, progress=False, registry=registry)
        again = await bench.run_tasks(tasks, model, settings, progress=False, registry=registry)
    finally:
        await registry.close()
    assert max(r.read for r in cold) > 20
    assert max(r.read for r in warm) <= 1
    # the answers do not depend on what the cache held (a cold request reads a shorter context, #15,
    # which the copy model reads too: its answers may differ)
    assert [r.completion for r in warm] == [r.completion for r in again]


def test_eval_cli_runs_cold_and_debounced_requests_side_by_side(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """`--debounce both`: the same tasks as cold requests, then after the debounce (the default)."""
    from ghostbook.eval.cli import main

    from tests.models.conftest import shared_tiny_gguf

    model = shared_tiny_gguf(tmp_path_factory)
    split = tmp_path / "notebooks-test.jsonl.gz"
    write_notebooks(split, [_notebook()])
    assert main([str(model), "--tasks", "notebook", "--notebooks", str(split), "--png", str(tmp_path / "c.png"),
                 "--beam", "2", "--quiet", "--debounce", "both", "--json", str(tmp_path / "out.json")]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if " all " in line]
    assert [row[3] for row in rows] == ["cold", "debounced"]
    for requests in ("cold", "debounced"):
        saved = json.loads((tmp_path / f"out.notebook-tiny-ghostbook.gguf-{requests}.json").read_text())
        assert len(saved["results"]) == 6
