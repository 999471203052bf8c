"""The session's rules, without a browser, a kernel or a file: operations in, actions out."""

import json
from typing import Any

import pytest
from ghostbook import protocol as p
from ghostbook.kernel import events as k
from ghostbook.session import actions as a
from ghostbook.session.ops import ExecutionSent, FromClient, FromKernel
from ghostbook.session.reducer import OperationError, apply
from ghostbook.session.state import Cell, NotebookData


def notebook(*sources: str) -> NotebookData:
    data = NotebookData(path="t.ipynb", cells=[Cell(id=f"c{i}", cell_type="code", source=s)
                                               for i, s in enumerate(sources)])
    data.kernel.status = "idle"
    return data


def client(data: NotebookData, message: dict[str, Any], origin: str = "tab1") -> list[a.Action]:
    return apply(data, FromClient(origin, p.parse_client_message(json.dumps(message))))


def kernel(data: NotebookData, event: k.KernelEvent) -> list[a.Action]:
    return apply(data, FromKernel(event))


def broadcasts(actions: list[a.Action], type_: str) -> list[dict[str, Any]]:
    """The messages of `type_` as the tabs get them (and validated as the test suite validates them all)."""
    return [json.loads(p.encode(x.message)) for x in actions if isinstance(x, a.Broadcast) and x.message.type == type_]


def executes(actions: list[a.Action]) -> list[a.ExecuteCode]:
    return [x for x in actions if isinstance(x, a.ExecuteCode)]


def run(data: NotebookData, cell_id: str, msg_id: str) -> None:
    """Bind the ExecuteCode the reducer just emitted to `msg_id`, as the runtime would."""
    apply(data, ExecutionSent(cell_id, msg_id))


def test_insert_delete_restore_move() -> None:
    data = notebook("a", "b", "c")
    actions = client(data, {"type": "insert_cell", "index": 1, "cell_type": "markdown", "source": "# hi",
                            "cell_id": "new1"})
    assert [c.id for c in data.cells] == ["c0", "new1", "c1", "c2"]
    (inserted,) = broadcasts(actions, "cell_inserted")
    assert inserted["origin"] == "tab1" and inserted["index"] == 1 and inserted["cell"]["cell_type"] == "markdown"
    assert any(isinstance(x, a.DocumentChanged) for x in actions)

    client(data, {"type": "delete_cells", "cell_ids": ["c0", "c2"]})
    assert [c.id for c in data.cells] == ["new1", "c1"]
    client(data, {"type": "delete_cells", "cell_ids": ["c1"]})
    client(data, {"type": "restore_deleted"})
    assert [c.id for c in data.cells] == ["new1", "c1"]
    client(data, {"type": "restore_deleted"})
    assert [c.id for c in data.cells] == ["c0", "new1", "c1", "c2"]
    with pytest.raises(OperationError, match="no deleted cells"):
        client(data, {"type": "restore_deleted"})

    actions = client(data, {"type": "move_cell", "cell_id": "c0", "delta": 1})
    assert [c.id for c in data.cells] == ["new1", "c0", "c1", "c2"]
    assert broadcasts(actions, "cell_moved")[0]["index"] == 1
    assert client(data, {"type": "move_cell", "cell_id": "new1", "delta": -1}) == []  # already first


def test_revisions_increase_and_ids_stay_unique() -> None:
    data = notebook("a")
    first = broadcasts(client(data, {"type": "set_source", "cell_id": "c0", "source": "x"}), "source_set")[0]
    second = broadcasts(client(data, {"type": "insert_cell", "index": 0, "cell_id": "c0"}), "cell_inserted")[0]
    assert second["revision"] > first["revision"]
    assert second["cell"]["id"] != "c0"  # a taken id chosen by the client is replaced


def test_set_source_and_type() -> None:
    data = notebook("1")
    data.cells[0].outputs.add("stream", {"name": "stdout", "text": "x"})
    data.cells[0].execution_count = 4
    actions = client(data, {"type": "set_source", "cell_id": "c0", "source": "# md"}, origin="tab2")
    assert broadcasts(actions, "source_set")[0]["origin"] == "tab2"
    client(data, {"type": "set_cell_type", "cell_id": "c0", "cell_type": "markdown"})
    cell = data.cells[0]
    assert cell.cell_type == "markdown" and cell.outputs.items == [] and cell.execution_count is None
    assert "outputs" not in cell.to_nbformat()


def test_unknown_cell_is_an_error_and_changes_nothing() -> None:
    data = notebook("a")
    with pytest.raises(OperationError, match="no cell"):
        client(data, {"type": "set_source", "cell_id": "zzz", "source": "x"})
    assert data.cells[0].source == "a" and data.revision == 0


def test_execution_queue_runs_cells_one_at_a_time() -> None:
    data = notebook("1", "2", "3")
    data.cells.append(Cell(id="md", cell_type="markdown", source="# t"))
    actions = client(data, {"type": "run_all"})
    assert [x.cell_id for x in executes(actions)] == ["c0"]
    assert [c.state for c in data.cells] == ["running", "queued", "queued", "idle"]
    run(data, "c0", "m0")
    kernel(data, k.ExecutionStarted("m0", 1))
    kernel(data, k.Output("m0", "execute_result", {"data": {"text/plain": "1"}, "metadata": {},
                                                   "execution_count": 1}))
    actions = kernel(data, k.ExecutionFinished("m0", "ok", 1))
    assert data.cells[0].state == "idle" and data.cells[0].execution_count == 1
    assert data.cells[0].outputs.to_json()[0]["data"] == {"text/plain": "1"}
    assert [x.cell_id for x in executes(actions)] == ["c1"]
    # outputs are flushed before the cell is reported idle
    kinds = [type(x).__name__ for x in actions]
    assert kinds.index("OutputsChanged") < kinds.index("Broadcast")


def test_error_stops_the_queue() -> None:
    data = notebook("1/0", "2", "3")
    client(data, {"type": "run_all"})
    run(data, "c0", "m0")
    kernel(data, k.Output("m0", "error", {"ename": "ZeroDivisionError", "evalue": "x", "traceback": ["tb"]}))
    actions = kernel(data, k.ExecutionFinished("m0", "error", 1))
    assert executes(actions) == []
    assert [c.state for c in data.cells] == ["idle", "idle", "idle"]
    assert data.cells[0].outputs.to_json()[0]["ename"] == "ZeroDivisionError"


def test_cells_wait_for_a_starting_kernel() -> None:
    data = notebook("1")
    data.kernel.status = "starting"
    assert executes(client(data, {"type": "execute_cells", "cell_ids": ["c0"]})) == []
    assert data.cells[0].state == "queued"
    actions = kernel(data, k.StatusChanged("idle"))
    assert [x.cell_id for x in executes(actions)] == ["c0"]
    assert broadcasts(actions, "kernel_status")[0]["kernel"]["status"] == "idle"


def test_kernel_death_marks_running_and_queued_cells() -> None:
    data = notebook("import os; os._exit(1)", "2")
    client(data, {"type": "run_all"})
    run(data, "c0", "m0")
    actions = kernel(data, k.StatusChanged("dead", "The kernel process exited with code 1"))
    assert broadcasts(actions, "kernel_status")[0]["kernel"]["reason"] == "The kernel process exited with code 1"
    assert data.cells[1].state == "idle"
    kernel(data, k.ExecutionFinished("m0", "dead"))
    assert data.cells[0].state == "idle"
    error = data.cells[0].outputs.to_json()[-1]
    assert error["output_type"] == "error" and "exited with code 1" in error["evalue"]
    with pytest.raises(OperationError, match="dead"):
        client(data, {"type": "execute_cells", "cell_ids": ["c1"]})
    kernel(data, k.StatusChanged("restarting"))
    kernel(data, k.StatusChanged("idle"))
    assert executes(client(data, {"type": "execute_cells", "cell_ids": ["c1"]}))


def test_stdin_round_trip() -> None:
    data = notebook("input('name? ')")
    client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    run(data, "c0", "m0")
    actions = kernel(data, k.StdinRequested("m0", "name? ", False))
    assert broadcasts(actions, "stdin_request")[0] == {"type": "stdin_request", "cell_id": "c0",
                                                       "prompt": "name? ", "password": False}
    assert data.snapshot()["stdin"].prompt == "name? "
    actions = client(data, {"type": "stdin_reply", "value": "Ada"})
    assert [x.value for x in actions if isinstance(x, a.SendStdin)] == ["Ada"]
    assert broadcasts(actions, "stdin_closed")
    assert "name? Ada" in data.cells[0].outputs.to_json()[0]["text"]
    with pytest.raises(OperationError, match="not waiting"):
        client(data, {"type": "stdin_reply", "value": "again"})


def test_clear_output_wait_and_update_display() -> None:
    data = notebook("display", "other")
    client(data, {"type": "run_all"})
    run(data, "c0", "m0")
    kernel(data, k.Output("m0", "display_data", {"data": {"text/plain": "v1"}, "metadata": {},
                                                 "transient": {"display_id": "d1"}}))
    kernel(data, k.Output("m0", "clear_output", {"wait": True}))
    assert len(data.cells[0].outputs.items) == 1  # kept until the next output arrives
    kernel(data, k.Output("m0", "stream", {"name": "stdout", "text": "after"}))
    assert [o["output_type"] for o in data.cells[0].outputs.to_json()] == ["stream"]

    kernel(data, k.Output("m0", "display_data", {"data": {"text/plain": "v1"}, "metadata": {},
                                                 "transient": {"display_id": "d2"}}))
    kernel(data, k.ExecutionFinished("m0", "ok", 1))
    run(data, "c1", "m1")
    actions = kernel(data, k.Output("m1", "update_display_data", {"data": {"text/plain": "v2"}, "metadata": {},
                                                                  "transient": {"display_id": "d2"}}))
    assert [x.cell_id for x in actions if isinstance(x, a.OutputsChanged)] == ["c0"]
    assert data.cells[0].outputs.to_json()[-1]["data"] == {"text/plain": "v2"}
    assert "transient" not in data.cells[0].outputs.to_json()[-1]


def test_deleting_a_queued_cell_unqueues_it() -> None:
    data = notebook("1", "2")
    client(data, {"type": "run_all"})
    client(data, {"type": "delete_cells", "cell_ids": ["c1"]})
    run(data, "c0", "m0")
    assert executes(kernel(data, k.ExecutionFinished("m0", "ok", 1))) == []


def test_outputs_of_other_requests_are_ignored() -> None:
    data = notebook("1")
    assert kernel(data, k.Output("unknown", "stream", {"name": "stdout", "text": "x"})) == []
    assert kernel(data, k.ExecutionFinished("unknown", "ok")) == []


def test_changing_kernel_announces_it_and_cells_wait_for_it() -> None:
    data = notebook("1")
    data.kernel.name = "python3"
    actions = client(data, {"type": "change_kernel", "name": "other"})
    (status,) = broadcasts(actions, "kernel_status")
    assert status["kernel"]["name"] == "other" and status["kernel"]["status"] == "starting"
    assert [x.name for x in actions if isinstance(x, a.StartKernel)] == ["other"]
    assert executes(client(data, {"type": "execute_cells", "cell_ids": ["c0"]})) == []
    assert data.cells[0].state == "queued"
    kernel(data, k.StatusChanged("starting"))
    assert [x.cell_id for x in executes(kernel(data, k.StatusChanged("idle")))] == ["c0"]


def test_busy_means_running_a_cell_not_answering_a_completion() -> None:
    data = notebook("1")
    # a completion request makes the kernel busy then idle: nothing to tell the tabs
    assert kernel(data, k.StatusChanged("busy")) == []
    assert kernel(data, k.StatusChanged("idle")) == []
    actions = client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    assert [m["kernel"]["status"] for m in broadcasts(actions, "kernel_status")] == ["busy"]
    run(data, "c0", "m0")
    assert kernel(data, k.StatusChanged("busy")) == []
    actions = kernel(data, k.ExecutionFinished("m0", "ok", 1))
    assert [m["kernel"]["status"] for m in broadcasts(actions, "kernel_status")] == ["idle"]
    assert data.kernel.status == "idle"


def test_empty_cells_are_not_sent_to_the_kernel() -> None:
    data = notebook("1", "  \n")
    data.cells[1].execution_count = 7
    actions = client(data, {"type": "run_all"})
    assert [x.cell_id for x in executes(actions)] == ["c0"]
    assert data.cells[1].state == "idle" and data.cells[1].execution_count is None
    (cleared,) = [m for m in broadcasts(actions, "cell_state") if m["cell_id"] == "c1"]
    assert cleared["state"] == "idle" and cleared["execution_count"] is None
    assert data.queue == []


def test_set_cell_metadata_merges_top_level_keys_and_null_removes_one() -> None:
    data = notebook("x = 1")
    cell = data.cells[0]
    cell.metadata = {"tags": ["keep"]}
    actions = client(data, {"type": "set_cell_metadata", "cell_id": cell.id,
                            "metadata": {"jupyter": {"outputs_hidden": True}, "collapsed": True}})
    assert cell.metadata == {"tags": ["keep"], "jupyter": {"outputs_hidden": True}, "collapsed": True}
    [event] = broadcasts(actions, "cell_metadata_set")
    assert event["metadata"] == cell.metadata and event["origin"] == "tab1"
    assert any(isinstance(action, a.DocumentChanged) for action in actions)
    client(data, {"type": "set_cell_metadata", "cell_id": cell.id, "metadata": {"collapsed": None}})
    assert "collapsed" not in cell.metadata
    assert client(data, {"type": "set_cell_metadata", "cell_id": cell.id, "metadata": {"collapsed": None}}) == []


def test_replace_sources_changes_every_cell_in_one_revision_or_none() -> None:
    data = notebook("a = 1", "b = a", "c = 3")
    revision = data.revision
    actions = client(data, {"type": "replace_sources", "changes": [
        {"cell_id": "c0", "source": "x = 1"}, {"cell_id": "c1", "source": "b = x"},
        {"cell_id": "c2", "source": "c = 3"}]})
    assert [c.source for c in data.cells] == ["x = 1", "b = x", "c = 3"]
    [event] = broadcasts(actions, "sources_replaced")
    assert event["revision"] == revision + 1 and event["origin"] == "tab1"
    assert event["changes"] == [{"cell_id": "c0", "source": "x = 1"}, {"cell_id": "c1", "source": "b = x"}]
    assert any(isinstance(x, a.DocumentChanged) for x in actions)
    # an unknown cell: nothing changes
    with pytest.raises(OperationError, match="no cell with id nope"):
        client(data, {"type": "replace_sources", "changes": [
            {"cell_id": "c0", "source": "a = 1"}, {"cell_id": "nope", "source": ""}]})
    assert data.cells[0].source == "x = 1" and data.revision == revision + 1
    with pytest.raises(OperationError, match="twice"):
        client(data, {"type": "replace_sources", "changes": [
            {"cell_id": "c0", "source": "1"}, {"cell_id": "c0", "source": "2"}]})
    assert client(data, {"type": "replace_sources", "changes": [{"cell_id": "c0", "source": "x = 1"}]}) == []
    with pytest.raises(p.ProtocolError):
        client(data, {"type": "replace_sources", "changes": []})


def test_add_attachment_stores_nbformat_attachments_and_unused_ones_are_not_saved() -> None:
    data = notebook("x = 1")
    data.cells.append(Cell(id="md", cell_type="markdown", source="![image.png](attachment:a1.png)"))
    actions = client(data, {"type": "add_attachment", "cell_id": "md", "name": "a1.png", "mime": "image/png",
                            "data": "iVBORw0KGgo="})
    [event] = broadcasts(actions, "attachments_set")
    assert event["attachments"] == {"a1.png": {"image/png": "iVBORw0KGgo="}} and event["origin"] == "tab1"
    assert any(isinstance(action, a.DocumentChanged) for action in actions)
    client(data, {"type": "add_attachment", "cell_id": "md", "name": "old.gif", "mime": "image/gif", "data": "R0lG"})
    assert data.cells[1].to_wire().attachments.keys() == {"a1.png", "old.gif"}
    # JupyterLab drops on save the attachments the text no longer names (panel.ts `_onSave`)
    assert data.to_nbformat()["cells"][1]["attachments"] == {"a1.png": {"image/png": "iVBORw0KGgo="}}
    with pytest.raises(OperationError, match="Markdown and raw"):
        client(data, {"type": "add_attachment", "cell_id": "c0", "name": "a.png", "mime": "image/png", "data": ""})


@pytest.mark.parametrize("bad", [{"name": "../x.png"}, {"mime": "text/html"}, {"data": "<svg>"},
                                 {"data": "A" * (p.MAX_ATTACHMENT_BASE64 + 4)}, {"name": ""}])
def test_add_attachment_rejects_bad_names_types_and_sizes(bad: dict[str, str]) -> None:
    message = {"type": "add_attachment", "cell_id": "md", "name": "a.png", "mime": "image/png", "data": "AAAA", **bad}
    with pytest.raises(p.ProtocolError):
        p.parse_client_message(json.dumps(message))
