"""The notebook-AI benchmark (`ghostbook eval notebook-ai`): its tasks, cut from the test splits; real kernels
running the untouched notebooks (every check fails) and hand-written solutions (every check passes); and
SmolLM2 answering two tasks through the Ask service."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from ghostbook.asking.plan import parse_plan
from ghostbook.eval.notebook_ai.analysis import statement_starts
from ghostbook.eval.notebook_ai.asking_path import Answer, FixedAnswerer
from ghostbook.eval.notebook_ai.checks import check
from ghostbook.eval.notebook_ai.cli import main, run_tasks
from ghostbook.eval.notebook_ai.cutting import RunnableNotebook, cut_tasks
from ghostbook.eval.notebook_ai.generate import offline_cells, runnable
from ghostbook.eval.notebook_ai.probe import Probe
from ghostbook.eval.notebook_ai.report import rows
from ghostbook.eval.notebook_ai.runner import STAGES, run_task
from ghostbook.eval.notebook_ai.tasks import KINDS, NotebookAiTask, load_tasks, select
from ghostbook.eval.notebook_data import load_notebooks, packaged_split
from ghostbook.session.state import Cell
from starlette.requests import Request
from starlette.responses import StreamingResponse

from tests.asking.chat_script import ScriptedChat

TASKS = load_tasks()
FIRST = {kind: next(t for t in TASKS if t.kind == kind) for kind in KINDS}


def test_at_least_30_tasks_of_every_kind_from_the_test_splits() -> None:
    assert len(TASKS) >= 30
    kinds = Counter(t.kind for t in TASKS)
    assert set(kinds) == set(KINDS) and min(kinds.values()) >= 4, kinds
    assert len({t.id for t in TASKS}) == len(TASKS)
    notebooks = {nb.id: nb for split in ("test", "unseen-test") for nb in load_notebooks(packaged_split(split))}
    for task in TASKS:
        nb = notebooks[task.notebook]
        assert (task.source, task.licence) == (nb.source, nb.licence), task.id
        assert len(task.cells) >= 2 and len(task.ids) == len(task.cells)
        assert len(parse_plan(task.reference, task.ids).changes) >= 1, task.id
    assert len({t.source for t in TASKS}) >= 4, "several source repositories"


def test_limit_takes_every_kind_first() -> None:
    assert {t.kind for t in select(TASKS, limit=4)} == set(KINDS)


@pytest.mark.timeout(120)
async def test_a_notebook_is_cut_again_into_the_same_tasks() -> None:
    """Reproducible: the shipped tasks of a notebook are what the generator cuts from it here."""
    task = FIRST["split"]
    nb = next(nb for nb in load_notebooks(packaged_split(task.split)) if nb.id == task.notebook)
    ready = await runnable(nb, task.split, offline_cells(nb))
    assert ready is not None
    shipped = {t.id: t for t in TASKS if t.notebook == nb.id}
    again = {t.id: t for t in cut_tasks(ready) if t.id in shipped}
    assert again == shipped


def test_the_cutter_on_a_small_notebook() -> None:
    nb = RunnableNotebook("x/nb.ipynb", "test", "x", "MIT",
                          ["import numpy as np\nvalues = np.arange(5)", "total = values.sum()",
                           "mean = values.mean()\nprint(total, mean)"],
                          {"values": ["ndarray", [5], "i"], "total": ["int64", None, "i"],
                           "mean": ["float64", None, "f"]}, 0)
    kinds = {t.kind: t for t in cut_tasks(nb)}
    assert kinds["rename"].target == "values" and kinds["rename"].new_name == "values_data"
    assert "import" not in kinds, "np is used in one other cell only"
    assert kinds["plot"].target == "values"


class _Written:
    """A hand-written answer for a task (`solve(task)`: the Markdown a user would accept)."""

    label = "hand-written"

    async def answer(self, task: NotebookAiTask, cells: Sequence[Cell], selected: list[str],
                     namespace: list[str]) -> Answer:
        text = SOLUTIONS[task.kind](task)
        return Answer(text, parse_plan(text, [cell.id for cell in cells]))

    async def close(self) -> None:
        return None


def _import(task: NotebookAiTask) -> str:
    line = {"np": "import numpy as np", "plt": "import matplotlib.pyplot as plt", "pd": "import pandas as pd",
            "sm": "import statsmodels.api as sm", "nx": "import networkx as nx", "sns": "import seaborn as sns",
            "so": "import seaborn.objects as so"}
    return f"New cell at the top:\n```python\n{line[task.target]}\n```\n"


def _rename(task: NotebookAiTask) -> str:
    word = re.compile(rf"(?<![.\w]){re.escape(task.target)}\b")
    return "".join(f"Cell {cell_id}:\n```python\n{word.sub(task.new_name, source)}\n```\n\n"
                   for cell_id, source in zip(task.ids, task.cells, strict=True) if word.search(source))


def _split(task: NotebookAiTask) -> str:
    index = task.ids.index(task.target)
    lines = task.cells[index].split("\n")
    starts = [*statement_starts(task.cells[index]), len(lines)]
    steps = ["\n".join(lines[a:b]).strip("\n") for a, b in zip(starts, starts[1:], strict=False)]
    steps[0] = "\n".join(lines[: starts[1]]).strip("\n")  # comments above the first statement stay with it
    return f"Cell {task.target}:\n```python\n{steps[0]}\n```\n\n" + "".join(
        f"New cell after {task.target}:\n```python\n{step}\n```\n\n" for step in steps[1:])


def _plot(task: NotebookAiTask) -> str:
    return (f"New cell after {task.ids[-1]}:\n```python\nimport matplotlib.pyplot as plt\nplt.figure()\n"
            f"plt.plot({task.target}, marker='o')\nplt.title('{task.target} by index')\n```\n")


SOLUTIONS = {"import": _import, "rename": _rename, "split": _split, "plot": _plot}


@pytest.mark.timeout(300)
async def test_checks_fail_untouched_and_pass_hand_written_solutions() -> None:
    tasks = list(FIRST.values())
    for task in tasks:
        untouched = await run_task(task, FixedAnswerer("original"))
        assert untouched.stage == "no_changes" and not untouched.passed, task.id
        solved = await run_task(task, _Written())
        assert (task.id, solved.stage, solved.detail) == (task.id, "passed", ""), solved.answer
        assert solved.applied >= 1 and solved.cells is not None


def test_each_check_fails_on_the_untouched_notebook() -> None:
    """The check itself, given the untouched cells and their own final state, finds what is missing."""
    for task in TASKS:
        state = Probe(task.state, [[[True, 1]]] * task.figures)
        assert check(task, task.cells, state) is not None, task.id


@pytest.mark.timeout(600)
async def test_smollm2_answers_two_tasks_through_the_ask_service(smollm2: Path) -> None:
    tasks = [FIRST["rename"], FIRST["import"]]
    results = await run_tasks(tasks, str(smollm2), timeout=60.0)
    for result in results:
        print(f"\n{result.task_id}: {result.stage} {result.detail}\n{result.answer}")
        assert result.stage in STAGES and result.stage != "invalid"
        assert result.calls > 0 and result.tokens > 0 and result.prompt_tokens > 0 and result.answer
    table = rows({"model": "smollm2"}, results)
    assert table[-1]["kind"] == "all" and table[-1]["tasks"] == 2


@pytest.mark.timeout(300)
def test_the_command_reports_reference_and_original(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert main(["--model", "reference", "--model", "original", "--limit", "2", "--json", str(out), "--quiet"]) == 0
    summary = {(row["model"], row["kind"]): row for row in json.loads(out.read_text())["summary"]}
    assert summary[("reference", "all")]["passed"] == summary[("reference", "all")]["tasks"] == 2
    assert summary[("reference", "all")]["applied"] == 2 and summary[("reference", "all")]["calls"] == 0
    assert summary[("original", "all")]["passed"] == summary[("original", "all")]["parsed"] == 0


class ReferenceChat(ScriptedChat):
    """A scripted OpenAI-compatible server that answers each task's question with its reference answer."""

    def __init__(self, tasks: Sequence[NotebookAiTask]) -> None:
        super().__init__()
        self.references = {task.instruction: task.reference for task in tasks}

    async def _chat(self, request: Request) -> StreamingResponse:
        body = await request.json()
        self.requests.append(body)
        question = body["messages"][-1]["content"]
        answer = next((reference for instruction, reference in self.references.items() if instruction in question),
                      "I cannot tell.")
        return StreamingResponse(self._events(answer), media_type="text/event-stream")


@pytest.mark.timeout(300)
async def test_a_scripted_openai_server_answering_with_the_references_passes_through_the_server_path() -> None:
    """The `openai:` path end to end: the question goes out with the notebook's cells as the prediction, the
    streamed answer is parsed, applied and checked; one task of each kind passes."""
    tasks = select(TASKS, limit=len(KINDS))
    chat = ReferenceChat(tasks)
    try:
        results = await run_tasks(tasks, chat.spec, timeout=60.0)
    finally:
        chat.stop()
    assert [result.stage for result in results] == ["passed"] * len(tasks), [r.detail for r in results]
    assert len(chat.requests) == len(tasks) and all("prediction" in body for body in chat.requests)
    assert rows({"model": "scripted"}, results)[-1]["passed"] == len(tasks)
