"""Revert: the document as the file on disk has it, with the session's live state carried over."""

from __future__ import annotations

from ghostbook.session.state import NotebookData


def carry_over(old: NotebookData, fresh: NotebookData) -> NotebookData:
    """`fresh` (the file, read as opening reads it) with what belongs to the running session, not the file:
    the kernel and its status, the run queue and the running cell, stdin, widgets (the kernel's, live),
    full outputs. The structural undo starts empty (its steps name the old cells); the revision goes on.

    A queued or running cell that the file still has keeps its state; the running one keeps the outputs
    its kernel is writing. One the file no longer has finishes unseen, as a deleted cell does.
    """
    fresh.revision = old.revision + 1
    fresh.kernel = old.kernel
    fresh.queue = [cell_id for cell_id in old.queue if _is_code(fresh, cell_id)]
    fresh.running, fresh.msg_cells = old.running, old.msg_cells
    fresh.stdin, fresh.display_cells, fresh.widgets = old.stdin, old.display_cells, old.widgets
    fresh.run_after_restart, fresh.keep_full_outputs = old.run_after_restart, old.keep_full_outputs
    for cell in fresh.cells:
        before = old.find(cell.id)
        if before is None or before.state == "idle" or cell.cell_type != "code":
            continue
        cell.state = before.state
        if cell.id == old.running:
            cell.outputs = before.outputs
    return fresh


def _is_code(data: NotebookData, cell_id: str) -> bool:
    cell = data.find(cell_id)
    return cell is not None and cell.cell_type == "code"
