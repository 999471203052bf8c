"""Changes to several cells at once (an Ask answer's, as reviewed: `apply_cell_changes`) and their undo.

All of them or none: a cell that is gone, or whose source is no longer the one the change was reviewed
against, refuses the whole request (ValueError, nothing changed). Applied, they are one step on the
structural undo stack (`Changed`), so one `z` takes them all back.
"""

from __future__ import annotations

from ghostbook import protocol as p
from ghostbook.session import actions as a
from ghostbook.session.state import Cell, Changed, NotebookData, new_cell_id
from ghostbook.session.structure import document_event, push, put_back


def apply_changes(data: NotebookData, origin: str, msg: p.ApplyCellChanges) -> list[a.Action]:
    sources: dict[str, str] = {}
    deleted: set[str] = set()
    inserts: dict[str | None, list[str]] = {}
    for change in msg.changes:
        target = change.cell_id if change.kind != "insert" else change.after
        cell = data.find(target) if target is not None else None
        if target is not None and cell is None:
            raise ValueError(f"cell {target} is gone (deleted in another tab?): review the changes again")
        if change.kind == "insert":
            inserts.setdefault(target, []).append(change.source)
            continue
        if cell is None:
            raise ValueError(f"a {change.kind} change must name its cell")
        if cell.id in sources or cell.id in deleted:
            raise ValueError(f"cell {cell.id} is named by more than one change")
        if change.expected is not None and cell.source != change.expected:
            raise ValueError(f"cell {data.index_of(cell.id) + 1} changed since the review: its change was not applied")
        if change.kind == "delete":
            deleted.add(cell.id)
        elif cell.source != change.source:
            sources[cell.id] = change.source
    if not sources and not deleted and not inserts:
        return []

    removed = [(index, cell) for index, cell in enumerate(data.cells) if cell.id in deleted]
    order: list[Cell] = [Cell(id=new_cell_id(), cell_type="code", source=s) for s in inserts.get(None, [])]
    for cell in data.cells:
        if cell.id not in deleted:
            order.append(cell)
        order += [Cell(id=new_cell_id(), cell_type="code", source=s) for s in inserts.get(cell.id, [])]
    old_ids = {cell.id for cell in data.cells}
    added = [(index, cell) for index, cell in enumerate(order) if cell.id not in old_ids]
    old_sources = [(cell_id, data.find(cell_id).source) for cell_id in sources]  # type: ignore[union-attr]

    actions: list[a.Action] = []
    if removed:
        data.cells = [cell for cell in data.cells if cell.id not in deleted]
        data.queue = [cell_id for cell_id in data.queue if cell_id not in deleted]
        for _, cell in removed:
            if cell.state == "queued":
                cell.state = "idle"
        actions.append(document_event(data, p.CellsDeleted, origin, cell_ids=[cell.id for _, cell in removed]))
    for index, cell in added:  # ascending: each lands at its place in the final order
        data.cells.insert(index, cell)
        actions.append(document_event(data, p.CellInserted, origin, index=index, cell=cell.to_wire()))
    if sources:
        for cell_id, source in sources.items():
            data.find(cell_id).source = source  # type: ignore[union-attr]
        actions.append(_sources_event(data, origin, sources))
    push(data, Changed(old_sources, [cell.id for _, cell in added], removed))
    return [*actions, a.DocumentChanged()]


def undo_changes(data: NotebookData, origin: str, step: Changed) -> list[a.Action]:
    """Take a `Changed` step back: the new cells go, the deleted ones come back where they were, the
    changed ones get their old sources (cells another tab has deleted since stay deleted)."""
    actions: list[a.Action] = []
    gone = [cell_id for cell_id in step.added if data.find(cell_id) is not None]
    if gone:
        data.cells = [cell for cell in data.cells if cell.id not in set(gone)]
        data.queue = [cell_id for cell_id in data.queue if cell_id not in set(gone)]
        actions.append(document_event(data, p.CellsDeleted, origin, cell_ids=gone))
    actions += [document_event(data, p.CellInserted, origin, index=index, cell=cell.to_wire())
                for index, cell in put_back(data, step.removed)]
    sources = {}
    for cell_id, source in step.sources:
        cell = data.find(cell_id)
        if cell is not None and cell.source != source:
            cell.source = sources[cell_id] = source
    if sources:
        actions.append(_sources_event(data, origin, sources))
    return actions


def _sources_event(data: NotebookData, origin: str, sources: dict[str, str]) -> a.Broadcast:
    return document_event(data, p.SourcesReplaced, origin,
                          changes=[p.SourceChanged.model_construct(cell_id=cell_id, source=source)
                                   for cell_id, source in sources.items()])
