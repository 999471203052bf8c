"""Writing mode of the notebook benchmark: the cells above run in a real kernel, nothing below the cursor,
the kernel's names in the prompt the editor's service builds; failing cells counted, later tasks apart."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

import pytest
from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval import notebook_bench as bench
from ghostbook.eval import writing_classes, writing_report
from ghostbook.eval.notebook_data import Notebook, write_notebooks
from ghostbook.eval.notebook_tasks import NotebookTask, tasks_for
from ghostbook.eval.writing import KernelStats, Prepared, as_written, prepare, runnable
from ghostbook.models.loader import ModelRegistry, default_factory

from tests.models.conftest import shared_tiny_gguf

# names only the kernel knows: the keys are upper-cased by the comprehension, no cell spells them
NOTEBOOK = Notebook("demo/writing.ipynb", "demo", "MIT", [
    "import math\nWORDS = ['alpha', 'beta']\nLOOKUP = {w.upper(): len(w) for w in WORDS}",
    "total = sum(LOOKUP.values())\nroot = math.sqrt(total)",
    "BELOW_ONLY = [total, root]\nprint(BELOW_ONLY)",
])
FAILING = Notebook("demo/failing.ipynb", "demo", "MIT", [
    "import os\nSEEN = {k.upper(): k for k in ['gamma']}",
    "raise ValueError('boom')",
    "os._exit(3)",  # the kernel dies: restarted
    "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)",  # a hang, deaf to SIGINT
    "AFTER = [n * 2 for n in range(3)]",
    "print(AFTER)\nresult = len(AFTER)",
])


def _at(nb: Notebook, index: int) -> list[NotebookTask]:
    return [t for t in tasks_for(nb, 40) if t.index == index and t.kind != "cell"]


def test_a_task_as_written_has_no_cells_below_and_nothing_after_the_cursor() -> None:
    task = _at(NOTEBOOK, 1)[0]
    written = as_written(task)
    assert written.cells[:-1] == tuple(NOTEBOOK.cells[:1]) and len(written.cells) == 2
    assert written.cells[-1] == task.cells[1][: task.cursor] and written.cursor == len(written.cells[-1])
    assert "BELOW_ONLY" not in "".join(written.cells) and written.expected == task.expected


def test_shell_lines_are_not_run() -> None:
    assert runnable("!pip install x\nimport x\n  %pip install y") == \
        "pass  # pip install x\nimport x\n  pass  #  install y"
    assert runnable("%%bash\nls") is None
    assert runnable("x = 1") == "x = 1"


class _Spy:
    """The real llama.cpp backend, recording the prompts it is asked to read."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.prompts: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def stream(self, ids: Sequence[int], plan: Any, cancel: Any) -> AsyncGenerator[Any, None]:
        self.prompts.append(b"".join(self._real.piece(i) for i in ids).decode("utf-8", "replace"))
        return self._real.stream(ids, plan, cancel)


@pytest.mark.timeout(240)
async def test_writing_mode_runs_the_cells_above_and_the_prompt_holds_the_kernel_names(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    tasks = _at(NOTEBOOK, 1)[:1] + _at(NOTEBOOK, 2)[:1]
    stats = KernelStats()
    prepared = await prepare(tasks, timeout=20.0, stats=stats)
    assert [p.task.task_id for p in prepared] == [t.task_id for t in tasks] and all(p.clean for p in prepared)
    assert stats.cells == {"ok": 2}  # each cell above run once, though two tasks need the first
    first, second = (" ".join(p.namespace) for p in prepared)
    assert "ALPHA" in first and "BETA" in first and "total" not in first
    assert "ALPHA" in second and "total" in second and "root" in second
    spies: list[_Spy] = []

    def factory(path: Path, family: str | None, name: str) -> Any:
        spies.append(_Spy(default_factory(path, family, name)))
        return spies[-1]

    registry = ModelRegistry(factory)
    try:
        results = await bench.run_tasks([p.task for p in prepared], str(shared_tiny_gguf(tmp_path_factory)),
                                        CompletionSettings(beam_width=2), progress=False, registry=registry,
                                        automatic=True, kernels=[p.kernel() for p in prepared])
    finally:
        await registry.close()
    prompts = spies[0].prompts
    assert prompts and all("BELOW_ONLY" not in prompt for prompt in prompts[: len(prompts) // 2])
    assert any("ALPHA" in prompt for prompt in prompts)  # the kernel's summary, as the editor sends it
    assert [r.task_id for r in results] == [t.task_id for t in tasks]
    assert all(r.shown_auto is not None for r in results)  # an automatic request was asked too


@pytest.mark.timeout(240)
async def test_failing_dying_and_hanging_cells_are_counted_and_later_tasks_kept_apart() -> None:
    tasks = _at(FAILING, 1)[:1] + _at(FAILING, 5)[:1]
    stats = KernelStats()
    prepared = await prepare(tasks, timeout=3.0, stats=stats)
    assert [p.clean for p in prepared] == [True, False]
    assert stats.cells == {"ok": 2, "error": 1, "dead": 1, "timeout": 1} and stats.restarts == 2
    assert stats.errors["ValueError"] == 1
    names = " ".join(prepared[1].namespace)
    assert "AFTER" in names and "GAMMA" not in names  # the kernel runs on, restarted: its old names are gone
    assert "GAMMA" in " ".join(prepared[0].namespace)


def test_report_keeps_tasks_after_a_failed_cell_apart() -> None:
    def result(task_id: str, text: str, auto: str) -> bench.NotebookResult:
        return bench.NotebookResult(task_id, "line", "x = 1", text, text == "x = 1", 1.0, not text, None, 5.0,
                                    first_ms=3.0 if text else None, shown_auto=auto,
                                    auto_first_ms=2.0 if auto else None)

    results = [result("r1/a#0", "x = 1", "x = 1"), result("r1/a#1", "y", ""), result("r2/b#0", "x = 1", "")]
    clean = {"r1/a#0": True, "r1/a#1": True, "r2/b#0": False}
    rows = {(r["requests"], r["group"], r["repository"]): r
            for r in writing_report.rows("writing", results, clean, True)}
    forced, auto = rows["forced", "ran", "all"], rows["auto", "ran", "all"]
    assert forced["n"] == 2 and forced["exact"] == 0.5 and forced["shown"] == 1.0 and forced["precision"] == 0.5
    assert auto["exact"] == 0.5 and auto["shown"] == 0.5 and auto["precision"] == 1.0 and auto["empty"] == 0.5
    assert auto["first_p50_ms"] == 2.0
    assert rows["forced", "after a failed cell", "all"]["n"] == 1
    assert rows["forced", "ran", "r1"]["n"] == 2 and ("forced", "ran", "r2") not in rows


@pytest.mark.timeout(300)
def test_eval_cli_writing_both_prints_writing_beside_whole(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """`ghostbook eval MODEL --tasks notebook --writing both` with a real (tiny) model and real kernels."""
    from ghostbook.eval.cli import main

    model = shared_tiny_gguf(tmp_path_factory)
    split = tmp_path / "notebooks-test.jsonl.gz"
    write_notebooks(split, [NOTEBOOK, Notebook("demo/broken.ipynb", "demo", "MIT",
                                               ["x = 1 / 0", "y = [1, 2]\nz = len(y)", "print(z)"])])
    assert main([str(model), "--tasks", "notebook", "--notebooks", str(split), "--writing", "both", "--beam", "2",
                 "--quiet", "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "kernel phase: 2 notebooks" in out and "error 1" in out
    table = [line.split() for line in out.splitlines() if line.startswith("tiny-ghostbook.gguf ")]
    assert {(row[1], row[2]) for row in table} == {(m, r) for m in ("whole", "writing") for r in ("forced", "auto")}
    assert any("failed" in line for line in out.splitlines() if "writing" in line)
    saved = json.loads((tmp_path / "out.writing-tiny-ghostbook.gguf.json").read_text())
    assert set(saved["results"]) == {"whole", "writing"} and saved["kernel"]["notebooks"] == 2
    assert not all(saved["clean"].values()) and any(saved["clean"].values())


ATTRIBUTES = Notebook("demo/attrs.ipynb", "demo", "MIT", [
    "import math\nWORDS = ['alpha', 'beta']",
    "n = WORDS.count('alpha')\nroot = math.sqrt(n)\nprint(root, n)\nWORDS.sort()",
])


@pytest.mark.timeout(240)
async def test_a_task_after_a_kernel_objects_dot_gets_what_the_kernel_says_it_has_and_its_class() -> None:
    tasks = [t for t in tasks_for(ATTRIBUTES, 40) if t.kind in ("after .", "after import", "after ,")
             or (t.kind == "line" and t.index == 0)]
    prepared = await prepare(tasks, timeout=20.0)
    by_head = {p.task.cells[-1].rsplit("\n", 1)[-1]: p for p in prepared}
    words, module = by_head["n = WORDS."], by_head["root = math."]
    assert set(words.attributes) == {"WORDS"} and {"count", "sort", "append"} <= set(words.attributes["WORDS"])
    assert "sqrt" in module.attributes["math"]
    assert {head: writing_classes.classify(p) for head, p in by_head.items()} == {
        "n = WORDS.": "attribute: kernel object", "WORDS.": "attribute: kernel object",
        "root = math.": "attribute: module", "import ": "after import", "": "line below an import",
        "print(root, ": "call argument", "WORDS = ['alpha', ": "list or subscript"}
    results = [bench.NotebookResult(p.task.task_id, p.task.kind, p.task.expected, "", False, 0.0, True, None, 1.0,
                                    shown_auto="") for p in prepared]
    rows = {row["class"]: row["n"] for row in writing_classes.rows(prepared, results)}
    assert rows == {"attribute: kernel object": 2, "attribute: module": 1, "call argument": 1,
                    "list or subscript": 1, "after import": 1, "line below an import": 1}


def test_the_class_of_an_attribute_says_what_the_kernel_can_know_of_its_owner() -> None:
    def klass(cell: str, attributes: dict[str, tuple[str, ...]] | None = None) -> str:
        task = NotebookTask("t#0", "t", "after .", ("x = 1", cell), 1, len(cell), "y")
        return writing_classes.classify(Prepared(task, ("df: DataFrame shape=(2, 1)",), True, attributes or {}))

    assert klass("df.", {"df": ("head",)}) == "attribute: kernel object"
    assert klass("np.", {"np": ("zeros",)}) == "attribute: module"
    assert klass("import numpy as np\nnp.") == "attribute: module imported in its cell"
    assert klass("data = load()\ndata.") == "attribute: name bound in its cell"
    assert klass("gone.") == "attribute: name the kernel lacks"
    assert klass("df.groupby('a').") == "attribute: expression"
    assert klass("from sklearn.") == "dotted name in an import"
