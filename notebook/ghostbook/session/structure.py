"""Operations on many cells at once (move, merge, split, paste, change type) and the notebook's
structural undo (`z`): each operation is one step on `data.undo`, and `restore_deleted` undoes the last.

Merge and split follow JupyterLab's `NotebookActions.mergeCells` / `splitCell`
(jupyterlab/jupyterlab, packages/notebook/src/actions.tsx): merged sources are joined with a blank line
("\\n\\n") into a new cell of the primary (active) cell's type and metadata, outputs dropped, markdown
and raw attachments gathered; a split cuts at the cursor (or around each selection), strips leading and
trailing newlines from each piece, and gives every piece the cell's type and metadata, without outputs.

Every function changes `data` in place and returns actions, like the reducer; a bad request raises
ValueError and changes nothing.
"""

from __future__ import annotations

import copy
from typing import Any

from ghostbook import protocol as p
from ghostbook.session import actions as a
from ghostbook.session.outputs import CellOutputs
from ghostbook.session.state import Cell, Deleted, Moved, NotebookData, Replaced, Retyped, Step, new_cell_id

MAX_UNDO = 50


def document_event(data: NotebookData, event: type[p.DocumentEvent], origin: str | None, **fields: Any) -> a.Broadcast:
    """A change of the document, broadcast to every tab under the next revision."""
    data.revision += 1
    return a.Broadcast(event.model_construct(revision=data.revision, origin=origin, **fields))


def push(data: NotebookData, step: Step) -> None:
    data.undo.append(step)
    del data.undo[:-MAX_UNDO]


def cells_of(data: NotebookData, cell_ids: list[str]) -> list[Cell]:
    """The cells named, in document order; ValueError when one does not exist."""
    wanted = set(cell_ids)
    cells = [cell for cell in data.cells if cell.id in wanted]
    if len(cells) != len(wanted):
        missing = sorted(wanted - {cell.id for cell in cells})
        raise ValueError(f"no cell with id {missing[0]}")
    return cells


def _fresh_id(data: NotebookData, wanted: str | None, taken: set[str]) -> str:
    """The client's chosen id when it is free, else a new one."""
    cell_id = wanted if wanted and wanted not in taken and data.find(wanted) is None else new_cell_id()
    taken.add(cell_id)
    return cell_id


def _replace(data: NotebookData, origin: str, removed: list[Cell], index: int, added: list[Cell]) -> list[a.Action]:
    """Take `removed` out, put `added` at `index` (of the list without them): one undoable step, one event."""
    gone = {cell.id for cell in removed}
    before = [(i, cell) for i, cell in enumerate(data.cells) if cell.id in gone]
    data.cells = [cell for cell in data.cells if cell.id not in gone]
    data.queue = [cell_id for cell_id in data.queue if cell_id not in gone]
    for cell in removed:
        if cell.state == "queued":
            cell.state = "idle"
    index = max(0, min(index, len(data.cells)))
    data.cells[index:index] = added
    push(data, Replaced(before, [cell.id for cell in added]))
    return [document_event(data, p.CellsReplaced, origin, removed=[cell.id for cell in removed],
                           index=index, cells=[cell.to_wire() for cell in added]), a.DocumentChanged()]


def insert_cells(data: NotebookData, origin: str, msg: p.InsertCells) -> list[a.Action]:
    """Paste: several cells at `index`, in order, as one step."""
    taken: set[str] = set()
    cells = [Cell(id=_fresh_id(data, new.cell_id, taken), cell_type=new.cell_type, source=new.source,
                  metadata=dict(new.metadata)) for new in msg.cells]
    return _replace(data, origin, [], msg.index, cells)


def merge_cells(data: NotebookData, origin: str, msg: p.MergeCells) -> list[a.Action]:
    cells = cells_of(data, msg.cell_ids)
    if len(cells) < 2:
        raise ValueError("merging needs at least two cells")
    primary = cells_of(data, [msg.primary])[0] if msg.primary else cells[0]
    if primary not in cells:
        raise ValueError("the primary cell must be one of the merged cells")
    merged = Cell(id=_fresh_id(data, msg.new_cell_id, set()), cell_type=primary.cell_type,
                  source="\n\n".join(cell.source for cell in cells), metadata=copy.deepcopy(primary.metadata))
    if merged.cell_type in ("markdown", "raw"):
        attachments: dict[str, Any] = {}
        for cell in cells:
            if cell.cell_type in ("markdown", "raw"):
                attachments.update(cell.extra.get("attachments") or {})
        if attachments:
            merged.extra["attachments"] = attachments
    return _replace(data, origin, cells, data.index_of(cells[0].id), [merged])


def split_cell(data: NotebookData, origin: str, msg: p.SplitCell) -> list[a.Action]:
    cell = cells_of(data, [msg.cell_id])[0]
    source = cell.source
    bounds = [0, *msg.offsets, len(source)]
    if any(later < earlier for earlier, later in zip(bounds, bounds[1:], strict=False)):
        raise ValueError(f"split offsets must be ascending and within the cell (0..{len(source)})")
    taken: set[str] = set()
    wanted = list(msg.new_cell_ids or [])
    pieces = [
        Cell(id=_fresh_id(data, wanted[i] if i < len(wanted) else None, taken), cell_type=cell.cell_type,
             source=source[start:end].strip("\n"), metadata=copy.deepcopy(cell.metadata))
        for i, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False))
    ]
    return _replace(data, origin, [cell], data.index_of(cell.id), pieces)


def move_cells(data: NotebookData, origin: str, msg: p.MoveCells) -> list[a.Action]:
    """Gather the cells (in document order) at `index` of the list without them."""
    moving = cells_of(data, msg.cell_ids)
    ids = {cell.id for cell in moving}
    rest = [cell for cell in data.cells if cell.id not in ids]
    if msg.index is not None:
        index = msg.index
    else:  # delta: one place up or down past the neighbour of the block's first cell
        index = data.index_of(moving[0].id) + (msg.delta or 0)
    index = max(0, min(index, len(rest)))
    order = rest[:index] + moving + rest[index:]
    if [cell.id for cell in order] == [cell.id for cell in data.cells]:
        return []
    before = [(i, cell.id) for i, cell in enumerate(data.cells) if cell.id in ids]
    data.cells = order
    push(data, Moved(before))
    return [_reordered(data, origin, [cell.id for cell in moving]), a.DocumentChanged()]


def _reordered(data: NotebookData, origin: str, moved: list[str]) -> a.Broadcast:
    return document_event(data, p.CellsReordered, origin, order=[cell.id for cell in data.cells], cell_ids=moved)


# ---- undo ---------------------------------------------------------------------------------------


def undo(data: NotebookData, origin: str) -> list[a.Action]:
    """Undo the last structural step. Cells another tab removed since stay removed; cells it added stay."""
    if not data.undo:
        raise ValueError("nothing to undo: there are no deleted cells to restore")
    step = data.undo.pop()
    actions: list[a.Action]
    match step:
        case Deleted(removed):
            actions = [document_event(data, p.CellInserted, origin, index=index, cell=cell.to_wire())
                       for index, cell in put_back(data, removed)]
        case Replaced(removed, added):
            gone = set(added) & {cell.id for cell in data.cells}
            anchor = next((i for i, cell in enumerate(data.cells) if cell.id in gone), None)
            data.cells = [cell for cell in data.cells if cell.id not in gone]
            data.queue = [cell_id for cell_id in data.queue if cell_id not in gone]
            if anchor is not None and removed:  # where the merged or split cells are now (others may have moved)
                first_index = removed[0][0]
                removed = [(anchor + index - first_index, cell) for index, cell in removed]
            back = put_back(data, removed)
            first = back[0][0] if back else 0
            actions = [document_event(data, p.CellsReplaced, origin, removed=[i for i in added if i in gone],
                                      index=first, cells=[cell.to_wire() for _, cell in back])]
            if back and [i for i, _ in back] != list(range(first, first + len(back))):
                actions.append(_reordered(data, origin, [cell.id for _, cell in back]))  # not one block
        case Moved(before):
            present = [(index, cell) for index, cell_id in before if (cell := data.find(cell_id)) is not None]
            if not present:
                return []
            ids = {cell.id for _, cell in present}
            data.cells = [cell for cell in data.cells if cell.id not in ids]
            _insert_at(data, present)
            actions = [_reordered(data, origin, [cell.id for _, cell in present])]
        case Retyped(cells):
            actions = []
            for cell_id, cell_type, outputs, count in cells:
                cell = data.find(cell_id)
                if cell is None or cell.state != "idle":
                    continue
                cell.cell_type, cell.outputs, cell.execution_count = cell_type, CellOutputs.from_json(outputs), count
                actions += [document_event(data, p.CellTypeSet, origin, cell_id=cell.id, cell_type=cell_type),
                            a.OutputsChanged(cell.id, urgent=True),
                            document_event(data, p.CellStateEvent, None, cell_id=cell.id, state=cell.state,
                                           execution_count=count)]
    return [*actions, a.DocumentChanged()]


def put_back(data: NotebookData, removed: list[tuple[int, Cell]]) -> list[tuple[int, Cell]]:
    """Restore removed cells where they were (a new id where theirs is taken again); returns where each went."""
    for _, cell in removed:
        if data.find(cell.id) is not None:
            cell.id = new_cell_id()
    return _insert_at(data, removed)


def _insert_at(data: NotebookData, placed: list[tuple[int, Cell]]) -> list[tuple[int, Cell]]:
    done = []
    for index, cell in sorted(placed, key=lambda item: item[0]):  # ascending: each lands where it was
        index = min(index, len(data.cells))
        data.cells.insert(index, cell)
        done.append((index, cell))
    return done
