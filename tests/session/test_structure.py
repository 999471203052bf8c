"""Many cells at once: move, merge, split, paste, change type; each one undoable step (`z`), also when
another tab edits the notebook in between."""

import pytest
from ghostbook.protocol import ProtocolError
from ghostbook.session import actions as a
from ghostbook.session.reducer import OperationError
from ghostbook.session.state import Cell

from tests.session.test_reducer import broadcasts, client, notebook


def ids(data) -> list[str]:  # type: ignore[no-untyped-def]
    return [cell.id for cell in data.cells]


def sources(data) -> list[str]:  # type: ignore[no-untyped-def]
    return [cell.source for cell in data.cells]


def test_delete_several_then_undo_brings_all_back() -> None:
    data = notebook("a", "b", "c", "d")
    client(data, {"type": "delete_cells", "cell_ids": ["c1", "c2"]})
    assert ids(data) == ["c0", "c3"]
    actions = client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c0", "c1", "c2", "c3"]
    assert [m["index"] for m in broadcasts(actions, "cell_inserted")] == [1, 2]


def test_move_cells_by_delta_and_to_index_then_undo() -> None:
    data = notebook("a", "b", "c", "d", "e")
    actions = client(data, {"type": "move_cells", "cell_ids": ["c1", "c2"], "delta": 1})
    assert ids(data) == ["c0", "c3", "c1", "c2", "c4"]
    (event,) = broadcasts(actions, "cells_reordered")
    assert event["order"] == ids(data) and event["cell_ids"] == ["c1", "c2"]
    client(data, {"type": "move_cells", "cell_ids": ["c1", "c2"], "delta": -2})
    assert ids(data) == ["c1", "c2", "c0", "c3", "c4"]
    assert client(data, {"type": "move_cells", "cell_ids": ["c1", "c2"], "delta": -1}) == []  # already first
    client(data, {"type": "move_cells", "cell_ids": ["c2", "c1"], "index": 3})  # a drag to the end
    assert ids(data) == ["c0", "c3", "c4", "c1", "c2"]
    client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c1", "c2", "c0", "c3", "c4"]
    client(data, {"type": "restore_deleted"})
    client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c0", "c1", "c2", "c3", "c4"]


def test_move_undo_after_another_tab_deleted_one_of_them() -> None:
    data = notebook("a", "b", "c", "d")
    client(data, {"type": "move_cells", "cell_ids": ["c0", "c1"], "index": 2})
    assert ids(data) == ["c2", "c3", "c0", "c1"]
    client(data, {"type": "delete_cells", "cell_ids": ["c1"]}, origin="tab2")
    data.undo.pop()  # (c1 stays deleted: undo the move alone)
    client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c0", "c2", "c3"]


def test_merge_joins_sources_keeps_primary_type_drops_outputs_and_undoes() -> None:
    data = notebook("x = 1\n", "y = 2", "z = 3")
    data.cells[0].outputs.add("stream", {"name": "stdout", "text": "out"})
    data.cells[0].execution_count = 3
    data.cells[1].metadata = {"tags": ["keep"]}
    actions = client(data, {"type": "merge_cells", "cell_ids": ["c1", "c0"], "primary": "c1", "new_cell_id": "m1"})
    assert ids(data) == ["m1", "c2"]
    merged = data.cells[0]
    assert merged.source == "x = 1\n\n\ny = 2" and merged.outputs.items == [] and merged.execution_count is None
    assert merged.metadata == {"tags": ["keep"]}
    (event,) = broadcasts(actions, "cells_replaced")  # one change for every other tab
    assert event["removed"] == ["c0", "c1"] and event["index"] == 0 and event["cells"][0]["id"] == "m1"
    assert any(isinstance(x, a.DocumentChanged) for x in actions)

    actions = client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c0", "c1", "c2"] and sources(data) == ["x = 1\n", "y = 2", "z = 3"]
    assert data.cells[0].outputs.to_json()[0]["text"] == "out" and data.cells[0].execution_count == 3
    (event,) = broadcasts(actions, "cells_replaced")
    assert event["removed"] == ["m1"] and [c["id"] for c in event["cells"]] == ["c0", "c1"]


def test_merge_markdown_takes_the_type_of_the_primary_and_gathers_attachments() -> None:
    data = notebook("a")
    data.cells.insert(0, Cell(id="md", cell_type="markdown", source="# T",
                              extra={"attachments": {"p.png": {"image/png": "AA=="}}}))
    client(data, {"type": "merge_cells", "cell_ids": ["md", "c0"]})
    (cell,) = data.cells
    assert cell.cell_type == "markdown" and cell.source == "# T\n\na"
    assert cell.extra["attachments"] == {"p.png": {"image/png": "AA=="}}


def test_merge_errors_change_nothing() -> None:
    data = notebook("a", "b", "c")
    with pytest.raises(OperationError, match="no cell with id zz"):
        client(data, {"type": "merge_cells", "cell_ids": ["c0", "zz"]})
    with pytest.raises(OperationError, match="primary"):
        client(data, {"type": "merge_cells", "cell_ids": ["c0", "c1"], "primary": "c2"})
    with pytest.raises(ProtocolError, match="at least 2"):
        client(data, {"type": "merge_cells", "cell_ids": ["c0"]})
    assert ids(data) == ["c0", "c1", "c2"] and data.revision == 0 and not data.undo


def test_split_at_cursor_and_around_a_selection_then_undo() -> None:
    data = notebook("a = 1\n\nb = 2\nc = 3")
    data.cells[0].metadata = {"tags": ["t"]}
    actions = client(data, {"type": "split_cell", "cell_id": "c0", "offsets": [6], "new_cell_ids": ["s1", "s2"]})
    assert ids(data) == ["s1", "s2"] and sources(data) == ["a = 1", "b = 2\nc = 3"]  # newlines stripped
    assert all(cell.metadata == {"tags": ["t"]} for cell in data.cells)
    (event,) = broadcasts(actions, "cells_replaced")
    assert event["removed"] == ["c0"] and [c["id"] for c in event["cells"]] == ["s1", "s2"]

    client(data, {"type": "split_cell", "cell_id": "s2", "offsets": [6, 11]})  # "c = 3" selected
    assert sources(data) == ["a = 1", "b = 2", "c = 3", ""]
    client(data, {"type": "restore_deleted"})
    client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c0"] and sources(data) == ["a = 1\n\nb = 2\nc = 3"]


def test_split_rejects_offsets_outside_the_cell() -> None:
    data = notebook("abc")
    with pytest.raises(OperationError, match="ascending"):
        client(data, {"type": "split_cell", "cell_id": "c0", "offsets": [9]})
    with pytest.raises(OperationError, match="ascending"):
        client(data, {"type": "split_cell", "cell_id": "c0", "offsets": [2, 1]})
    assert ids(data) == ["c0"]


def test_concurrent_edit_of_another_cell_survives_undo_of_a_merge() -> None:
    data = notebook("a", "b", "c")
    client(data, {"type": "merge_cells", "cell_ids": ["c0", "c1"], "new_cell_id": "m"})
    client(data, {"type": "set_source", "cell_id": "c2", "source": "c!"}, origin="tab2")
    with pytest.raises(OperationError, match="no cell with id c1"):  # tab2 typed in a merged-away cell
        client(data, {"type": "set_source", "cell_id": "c1", "source": "b!"}, origin="tab2")
    client(data, {"type": "insert_cell", "index": 0, "cell_id": "t2"}, origin="tab2")
    client(data, {"type": "restore_deleted"})
    assert ids(data) == ["t2", "c0", "c1", "c2"] and sources(data) == ["", "a", "b", "c!"]


def test_undo_of_a_merge_whose_cell_another_tab_deleted() -> None:
    data = notebook("a", "b", "c")
    client(data, {"type": "merge_cells", "cell_ids": ["c1", "c2"], "new_cell_id": "m"})
    client(data, {"type": "delete_cells", "cell_ids": ["m"]}, origin="tab2")
    client(data, {"type": "restore_deleted"})  # the last step is tab2's delete: m comes back
    assert ids(data) == ["c0", "m"]
    client(data, {"type": "restore_deleted"})  # then the merge is undone
    assert ids(data) == ["c0", "c1", "c2"]


def test_paste_inserts_every_cell_in_one_step() -> None:
    data = notebook("a")
    actions = client(data, {"type": "insert_cells", "index": 1, "cells": [
        {"cell_type": "markdown", "source": "# one", "cell_id": "p1"},
        {"cell_type": "code", "source": "two", "cell_id": "c0"},  # a taken id gets a new one
        {"cell_type": "raw", "source": "three", "metadata": {"format": "text/plain"}},
    ]})
    assert [c.cell_type for c in data.cells] == ["code", "markdown", "code", "raw"]
    assert sources(data) == ["a", "# one", "two", "three"] and data.cells[3].metadata == {"format": "text/plain"}
    assert data.cells[1].id == "p1" and len(set(ids(data))) == 4
    (event,) = broadcasts(actions, "cells_replaced")
    assert event["removed"] == [] and event["index"] == 1 and len(event["cells"]) == 3
    client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c0"]


def test_set_cells_type_is_one_step_and_undo_brings_outputs_back() -> None:
    data = notebook("1", "2", "3")
    data.cells[0].outputs.add("stream", {"name": "stdout", "text": "one"})
    data.cells[0].execution_count = 1
    actions = client(data, {"type": "set_cells_type", "cell_ids": ["c0", "c1"], "cell_type": "markdown"})
    assert [c.cell_type for c in data.cells] == ["markdown", "markdown", "code"]
    assert [m["cell_id"] for m in broadcasts(actions, "cell_type_set")] == ["c0", "c1"]
    assert data.cells[0].outputs.items == []
    assert client(data, {"type": "set_cells_type", "cell_ids": ["c0"], "cell_type": "markdown"}) == []
    actions = client(data, {"type": "restore_deleted"})
    assert [c.cell_type for c in data.cells] == ["code", "code", "code"]
    assert data.cells[0].outputs.to_json()[0]["text"] == "one" and data.cells[0].execution_count == 1
    assert any(isinstance(x, a.OutputsChanged) and x.cell_id == "c0" for x in actions)
    with pytest.raises(OperationError, match="nothing to undo"):
        client(data, {"type": "restore_deleted"})


def test_removed_queued_cells_leave_the_queue() -> None:
    data = notebook("1", "2", "3")
    client(data, {"type": "execute_cells", "cell_ids": ["c0", "c1", "c2"]})
    assert data.queue == ["c1", "c2"]
    client(data, {"type": "merge_cells", "cell_ids": ["c1", "c2"]})
    assert data.queue == [] and [c.state for c in data.cells] == ["running", "idle"]


@pytest.mark.parametrize("message", [
    {"type": "move_cells", "cell_ids": ["c0"], "delta": 1},
    {"type": "insert_cells", "index": 0, "cells": [{"source": "p"}]},
    {"type": "merge_cells", "cell_ids": ["c0", "c1"]},
    {"type": "split_cell", "cell_id": "c0", "offsets": [1]},
    {"type": "set_cells_type", "cell_ids": ["c0", "c1"], "cell_type": "raw"},
])
def test_every_operation_is_saved_and_undone_as_one_step(message: dict[str, object]) -> None:
    data = notebook("ab", "cd")
    before = [(cell.id, cell.cell_type, cell.source) for cell in data.cells]
    assert any(isinstance(x, a.DocumentChanged) for x in client(data, message))  # autosave follows
    assert len(data.undo) == 1
    assert any(isinstance(x, a.DocumentChanged) for x in client(data, {"type": "restore_deleted"}))
    assert [(cell.id, cell.cell_type, cell.source) for cell in data.cells] == before
