"""Changes to several cells at once (`apply_cell_changes`, an Ask answer as reviewed): modify, insert and
delete in one request, one undoable step (`z`); a gone cell, a cell changed since the review, or a cell
named twice refuses the whole request and changes nothing."""

import pytest
from ghostbook.protocol import ProtocolError
from ghostbook.session.reducer import OperationError

from tests.session.test_reducer import broadcasts, client, notebook
from tests.session.test_structure import ids, sources


def change(kind: str, cell_id: str | None = None, source: str = "", **extra: object) -> dict[str, object]:
    key = "after" if kind == "insert" else "cell_id"
    return {"kind": kind, key: cell_id, "source": source, **extra}


def test_modify_insert_and_delete_are_one_step_that_one_undo_takes_back() -> None:
    data = notebook("a = 1", "b = 2", "c = 3", "d = 4")
    data.cells[0].outputs.add("stream", {"name": "stdout", "text": "kept"})
    before = data.revision
    actions = client(data, {"type": "apply_cell_changes", "changes": [
        change("modify", "c0", "a = 10", expected="a = 1"), change("insert", "c1", "print(a)"),
        change("delete", "c2"), change("insert", None, "import os"), change("modify", "c3", "d = 40")]})
    assert sources(data) == ["import os", "a = 10", "b = 2", "print(a)", "d = 40"]
    assert data.cells[1].outputs.to_json()  # a modified cell keeps its outputs
    assert [m["cell_ids"] for m in broadcasts(actions, "cells_deleted")] == [["c2"]]
    assert [m["index"] for m in broadcasts(actions, "cell_inserted")] == [0, 3]
    (replaced,) = broadcasts(actions, "sources_replaced")
    assert [c["cell_id"] for c in replaced["changes"]] == ["c0", "c3"]
    assert data.revision == before + 4 and len(data.undo) == 1

    undone = client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c0", "c1", "c2", "c3"] and sources(data) == ["a = 1", "b = 2", "c = 3", "d = 4"]
    assert broadcasts(undone, "cells_deleted") and broadcasts(undone, "cell_inserted")
    assert data.undo == []


def test_undo_after_another_tab_deleted_a_changed_cell_restores_the_rest() -> None:
    data = notebook("a = 1", "b = 2")
    client(data, {"type": "apply_cell_changes",
                  "changes": [change("modify", "c0", "a = 2"), change("modify", "c1", "b = 3")]})
    client(data, {"type": "delete_cells", "cell_ids": ["c1"]}, origin="tab2")
    data.undo.pop()  # (c1 stays deleted: undo the changes alone)
    client(data, {"type": "restore_deleted"})
    assert ids(data) == ["c0"] and sources(data) == ["a = 1"]


@pytest.mark.parametrize(("changes", "reason"), [
    ([change("modify", "c0", "x"), change("modify", "gone", "y")], "gone"),
    ([change("modify", "c0", "x"), change("insert", "gone", "y")], "gone"),
    ([change("modify", "c1", "x", expected="b = 0")], "changed since the review"),
    ([change("modify", "c0", "x"), change("delete", "c0")], "more than one change"),
    ([change("delete", None)], "must name its cell"),
])
def test_a_bad_request_changes_nothing(changes: list[dict[str, object]], reason: str) -> None:
    data = notebook("a = 1", "b = 2")
    with pytest.raises(OperationError, match=reason):
        client(data, {"type": "apply_cell_changes", "changes": changes})
    assert sources(data) == ["a = 1", "b = 2"] and data.undo == [] and data.revision == 0


def test_a_malformed_request_is_refused_by_the_protocol() -> None:
    data = notebook("a = 1")
    with pytest.raises(ProtocolError):
        client(data, {"type": "apply_cell_changes", "changes": []})
    with pytest.raises(ProtocolError):
        client(data, {"type": "apply_cell_changes", "changes": [{"kind": "rename", "cell_id": "c0"}]})
