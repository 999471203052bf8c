"""Run above / below, restart and run all, hidden outputs and run timing: the reducer's rules."""

from __future__ import annotations

import pytest
from ghostbook.kernel import events as k
from ghostbook.session import actions as a
from ghostbook.session.cell_metadata import hide_outputs_patch
from ghostbook.session.reducer import OperationError
from ghostbook.session.state import Cell, NotebookData

from .test_reducer import broadcasts, client, executes, kernel, notebook, run

TIMING = {"iopub.status.busy": "2026-12-04T14:03:00.100000Z", "iopub.execute_input": "2026-12-04T14:03:00.101000Z",
          "shell.execute_reply.started": "2026-12-04T14:03:00.102000Z",
          "shell.execute_reply": "2026-12-04T14:03:01.302000Z", "iopub.status.idle": "2026-12-04T14:03:01.303000Z"}


def finish_all(data: NotebookData, first_msg: int = 0) -> list[str]:
    """Let the kernel finish each cell the reducer starts; the ids of the cells run, in order."""
    ran: list[str] = []
    n = first_msg
    while data.running is not None:
        cell_id = data.running
        ran.append(cell_id)
        run(data, cell_id, f"m{n}")
        kernel(data, k.ExecutionFinished(f"m{n}", "ok", n))
        n += 1
    return ran


def test_run_above_runs_the_cells_before_not_the_selected_one() -> None:
    data = notebook("1", "2", "3", "4")
    data.cells.insert(1, Cell(id="md", cell_type="markdown", source="# t"))
    client(data, {"type": "run_above", "cell_id": "c2"})
    assert finish_all(data) == ["c0", "c1"]
    assert data.cells[3].execution_count is None  # c2 itself did not run
    assert client(data, {"type": "run_above", "cell_id": "c0"}) == []  # nothing above the first cell


def test_run_below_runs_the_selected_cell_and_those_after() -> None:
    data = notebook("1", "2", "3", "4")
    client(data, {"type": "run_below", "cell_id": "c1"})
    assert finish_all(data) == ["c1", "c2", "c3"]
    with pytest.raises(OperationError, match="no cell"):
        client(data, {"type": "run_below", "cell_id": "nope"})


def test_restart_and_run_all_runs_only_once_the_new_kernel_is_up() -> None:
    data = notebook("1", "2")
    client(data, {"type": "execute_cells", "cell_ids": ["c0", "c1"]})
    run(data, "c0", "m0")  # c0 runs, c1 waits
    actions = client(data, {"type": "restart_and_run_all"})
    assert any(isinstance(x, a.RestartKernel) for x in actions) and executes(actions) == []
    assert data.queue == [] and data.cells[1].state == "idle"
    # the old kernel's last statuses do not start anything
    assert executes(kernel(data, k.StatusChanged("busy"))) == []
    assert executes(kernel(data, k.StatusChanged("idle"))) == []
    assert executes(kernel(data, k.StatusChanged("restarting"))) == []
    assert executes(kernel(data, k.ExecutionFinished("m0", "dead", reason="The kernel was restarted"))) == []
    actions = kernel(data, k.StatusChanged("idle"))  # the new kernel is up
    assert [x.cell_id for x in executes(actions)] == ["c0"]
    assert finish_all(data, 1) == ["c0", "c1"]
    assert data.run_after_restart is None
    kernel(data, k.StatusChanged("restarting"))  # a later plain restart runs nothing
    assert executes(kernel(data, k.StatusChanged("idle"))) == []


def test_restart_and_run_all_after_a_failed_restart_runs_nothing() -> None:
    data = notebook("1")
    data.kernel.status = "dead"
    client(data, {"type": "restart_and_run_all"})
    kernel(data, k.StatusChanged("starting"))
    kernel(data, k.StatusChanged("dead", "could not start"))
    assert data.run_after_restart is None
    kernel(data, k.StatusChanged("starting"))
    assert executes(kernel(data, k.StatusChanged("idle"))) == []


def test_timing_is_written_with_jupyterlabs_keys_before_the_cell_is_idle() -> None:
    data = notebook("1")
    client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    run(data, "c0", "m0")
    actions = kernel(data, k.ExecutionFinished("m0", "ok", 1, timing=dict(TIMING)))
    assert data.cells[0].metadata["execution"] == TIMING
    assert list(data.cells[0].to_nbformat()["metadata"]["execution"]) == [
        "iopub.status.busy", "iopub.execute_input", "shell.execute_reply.started", "shell.execute_reply",
        "iopub.status.idle"]
    (meta,) = broadcasts(actions, "cell_metadata_set")
    assert meta["metadata"]["execution"] == TIMING
    types = [x.message.type for x in actions if isinstance(x, a.Broadcast)]
    assert types.index("cell_metadata_set") < types.index("cell_state")
    # a new run drops the old timing (JupyterLab's clearExecution), as does clearing the outputs
    client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    assert "execution" not in data.cells[0].metadata
    run(data, "c0", "m1")
    kernel(data, k.ExecutionFinished("m1", "ok", 2, timing=dict(TIMING)))
    client(data, {"type": "clear_outputs", "cell_ids": ["c0"]})
    assert "execution" not in data.cells[0].metadata


def test_hidden_outputs_keep_collapsed_and_jupyter_outputs_hidden_together() -> None:
    data = notebook("1")
    cell = data.cells[0]
    cell.metadata = {"jupyter": {"source_hidden": True}, "tags": ["x"]}
    client(data, {"type": "set_cell_metadata", "cell_id": "c0", "metadata": hide_outputs_patch(cell.metadata, True)})
    assert cell.metadata == {"jupyter": {"source_hidden": True, "outputs_hidden": True}, "collapsed": True,
                             "tags": ["x"]}
    client(data, {"type": "set_cell_metadata", "cell_id": "c0", "metadata": hide_outputs_patch(cell.metadata, False)})
    assert cell.metadata == {"jupyter": {"source_hidden": True}, "tags": ["x"]}
    cell.metadata = {"jupyter": {"outputs_hidden": True}, "collapsed": True}
    assert hide_outputs_patch(cell.metadata, False) == {"collapsed": None, "jupyter": None}
    # running the cell shows its outputs again (JupyterLab's CodeCell.execute: outputHidden = false)
    client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    assert cell.metadata == {}


def test_full_text_of_a_long_stream_is_handed_on_not_kept() -> None:
    data = notebook("for i in range(50_000): print(i)")
    data.keep_full_outputs = True
    client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    run(data, "c0", "m0")
    text = "".join(f"{i}\n" for i in range(50_000))
    taken = []
    for at in range(0, len(text), 8192):
        kernel(data, k.Output("m0", "stream", {"name": "stdout", "text": text[at:at + 8192]}))
        taken.append(data.cells[0].outputs.items[0].take_dropped())  # type: ignore[union-attr]
    stream = data.cells[0].outputs.items[0]
    assert "".join(taken) + stream.rest() == text  # type: ignore[union-attr]
    (wire,) = data.cells[0].to_wire().outputs
    assert wire["full_text"]["lines"] == 50_000
    assert "full_text" not in data.cells[0].to_nbformat()["outputs"][0]  # the file keeps the capped text
