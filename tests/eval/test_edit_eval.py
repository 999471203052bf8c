"""The edit benchmark (`ghostbook eval edits`): its tasks file, and real kernels running the hand-written
answers (which must pass), the cells unchanged (which must fail) and the offline fixes (fix tasks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ghostbook.eval.edits import runner
from ghostbook.eval.edits.cli import main
from ghostbook.eval.edits.propose import EngineProposer, FixedProposer, Proposal, TaskState
from ghostbook.eval.edits.tasks import EditTask, TaskFormatError, load_tasks, parse_tasks, select
from ghostbook.eval.notebook_data import load_notebooks, packaged_split

TASKS = load_tasks()
RUNNABLE = [t for t in TASKS if not runner.missing_modules(t)]
# a spread-out sample of the tasks (the full run is in eval/edits/EDITS.md): both kinds, several sources
SAMPLE = RUNNABLE[:: max(1, len(RUNNABLE) // 10)][:10]


def test_the_tasks_come_from_the_test_split_with_their_licences() -> None:
    assert len(TASKS) >= 60
    assert sum(t.kind == "fix" for t in TASKS) >= 15
    assert len(RUNNABLE) >= 60, "the tasks that need only numpy and matplotlib are at least 60"
    notebooks = {nb.id: nb for nb in load_notebooks(packaged_split("test"))}
    for task in TASKS:
        assert task.notebook in notebooks, task.id
        assert task.licence == notebooks[task.notebook].licence, task.id
        assert task.kind != "fix" or task.error, task.id
    assert {t.kind for t in SAMPLE} == {"fix", "edit"}


@pytest.mark.timeout(400)
async def test_reference_answers_pass_their_checks() -> None:
    results = await runner.run_tasks(SAMPLE, FixedProposer("reference"), progress=False)
    assert [(r.task_id, r.stage, r.detail) for r in results if not r.passed] == []
    summary = runner.summarise(results)
    assert summary["pass"] == 1.0 and summary["kept"] == 1.0 and summary["parse_fail"] == 0


async def test_a_wrong_proposal_fails_its_check() -> None:
    edit = next(t for t in SAMPLE if t.kind == "edit")
    fix = next(t for t in SAMPLE if t.kind == "fix")
    results = await runner.run_tasks([edit, fix], FixedProposer("original"), progress=False)
    assert [r.stage for r in results] == ["check", "run"], results
    assert fix.error is not None and results[1].detail.startswith(fix.error)
    assert results[1].error.startswith(fix.error), "the proposer was given the cell's traceback"


class _Broken:
    """A proposer whose answer runs but does the wrong thing, or does not parse."""

    label = "broken"

    def __init__(self, text: str) -> None:
        self.text = text

    async def propose(self, task: EditTask, state: TaskState) -> Proposal:
        assert state.cells[-1] == task.cell and list(state.cells[:-1]) == list(task.prefix)
        assert any(line.startswith("x:") for line in state.namespace), state.namespace
        return Proposal(self.text, source="test")

    async def close(self) -> None:
        return None


async def test_checks_judge_behaviour_and_syntax() -> None:
    [task] = select(TASKS, ids=["lmfit-nan-mean"])
    wrong = task.reference.replace("np.nanmean(y)", "np.nanmedian(y)")
    [result] = await runner.run_tasks([task], _Broken(wrong), progress=False)
    assert result.stage == "check" and result.detail.startswith("AssertionError")
    assert result.kept == result.keepable == 3  # the unchanged lines survived
    [result] = await runner.run_tasks([task], _Broken("mean_y = (\n"), progress=False)
    assert result.stage == "run" and result.parses is False and result.kept < result.keepable


async def test_rules_mode_runs_the_offline_fixes_on_fix_tasks() -> None:
    fixes = select(RUNNABLE, kind="fix", ids=["lmfit-step-missing-numpy", "lmfit-confidence-linspace",
                                              "statsmodels-gee-nested-name", "lmfit-parameters-key"])
    results = await runner.run_tasks(fixes, EngineProposer("rules"), progress=False)
    stages = {r.task_id: r for r in results}
    assert all(r.stage != "invalid" for r in results), results
    for name in ("lmfit-step-missing-numpy", "lmfit-confidence-linspace", "statsmodels-gee-nested-name"):
        assert stages[name].passed and stages[name].source == "rules", stages[name]
    assert stages["lmfit-parameters-key"].stage in ("no_proposal", "run", "check", "passed")


def test_cli_writes_the_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "edits.json"
    assert main(["--model", "reference", "--task", "lmfit-confidence-docstring", "--json", str(out), "--quiet"]) == 0
    report = json.loads(out.read_text())
    assert report["summary"][0]["passed"] == 1 and report["results"]["reference"][0]["stage"] == "passed"
    assert "reference" in capsys.readouterr().out


def test_kept_lines_and_summary() -> None:
    assert runner.kept_lines("a\nb\nc", "a\nB\nc") == {0, 2}
    assert runner.kept_lines("a\nb", "x = 1\na\nb") == {0, 1}
    assert runner.parses("%matplotlib inline\nx = 1") and not runner.parses("x = (")
    rows = [runner.EditResult("t1", "fix", "c", "passed", proposal="x", kept=2, keepable=2, ms=10.0),
            runner.EditResult("t2", "edit", "c", "check", proposal="y", kept=0, keepable=2, ms=30.0),
            runner.EditResult("t3", "edit", "c", "skipped")]
    summary = runner.summarise(rows)
    assert summary["n"] == 2 and summary["skipped"] == 1 and summary["pass"] == 0.5 and summary["kept"] == 0.5
    assert [r["kind"] for r in runner.rows({"model": "m"}, rows)] == ["all", "fix", "edit"]


def test_the_parser_refuses_malformed_tasks() -> None:
    good = ("%%% task t1\nnotebook: n\nlicence: MIT\nkind: edit\ninstruction: do it\n"
            "%%% prefix\nx = 1\n%%% cell\ny = x\n%%% reference\ny = x + 1\n%%% check\nassert y == 2\n")
    [task] = parse_tasks(good)
    assert task.prefix == ("x = 1",) and task.cell == "y = x" and task.modules == set()
    with pytest.raises(TaskFormatError, match="reference is the cell unchanged"):
        parse_tasks(good.replace("y = x + 1", "y = x"))
    with pytest.raises(TaskFormatError, match="names the error"):
        parse_tasks(good.replace("kind: edit", "kind: fix"))
    with pytest.raises(TaskFormatError, match="used twice"):
        parse_tasks(good + good)
    with pytest.raises(TaskFormatError, match="expected a header"):
        parse_tasks(good.replace("licence: MIT", "licence MIT"))
    with pytest.raises(KeyError):
        select([task], ids=["nope"])
