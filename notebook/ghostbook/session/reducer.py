"""The session as a reducer: `apply(data, op) -> actions`, after Livebook's session data.

`apply` changes `data` in place (copying a whole notebook per keystroke would be waste) and returns
the side effects as data (`session.actions`); it does no I/O, so every rule here is testable without
a kernel, a socket or a file.
"""

from __future__ import annotations

from typing import Any

from ghostbook import protocol as p
from ghostbook.kernel import events as k
from ghostbook.session import actions as a
from ghostbook.session import cell_changes, structure
from ghostbook.session import cell_metadata as meta
from ghostbook.session import widgets as w
from ghostbook.session.ops import (
    ExecutionFailedToSend,
    ExecutionSent,
    FromClient,
    FromKernel,
    KernelChosen,
    Operation,
)
from ghostbook.session.outputs import RichOutput
from ghostbook.session.state import Cell, Changed, Deleted, NotebookData, Retyped, StdinPrompt, new_cell_id

_document_event = structure.document_event
USABLE_KERNEL = ("idle", "busy")


class OperationError(ValueError):
    """The operation cannot be applied (e.g. an unknown cell); nothing was changed."""


def apply(data: NotebookData, op: Operation) -> list[a.Action]:
    if isinstance(op, FromClient):
        return _client(data, op.client_id, op.message)
    if isinstance(op, FromKernel):
        return _kernel(data, op.event)
    if isinstance(op, ExecutionSent):
        data.msg_cells[op.msg_id] = op.cell_id
        return []
    if isinstance(op, ExecutionFailedToSend):
        return _finish_running(data, op.cell_id) + _clear_queue(data) + [a.Broadcast(p.error_message(op.reason))]
    if isinstance(op, KernelChosen):
        data.kernel.name, data.kernel.display_name = op.name, op.display_name
        data.kernel.can_install = op.can_install
        actions: list[a.Action] = [_kernel_info(data)]
        spec = data.metadata.get("kernelspec") or {}
        if spec.get("name") != op.name or spec.get("display_name") != op.display_name:
            data.metadata["kernelspec"] = {**spec, "name": op.name, "display_name": op.display_name}
            if op.by_user:
                actions.append(a.DocumentChanged())
        return actions
    raise OperationError(f"unknown operation {op!r}")


# ---- document edits -----------------------------------------------------------------------------


def _client(data: NotebookData, origin: str, msg: p.ClientMessage) -> list[a.Action]:
    match msg:
        case p.InsertCell():
            return _insert(data, origin, msg)
        case p.DeleteCells():
            return _delete(data, origin, msg.cell_ids)
        case p.RestoreDeleted() | p.MoveCells() | p.InsertCells() | p.MergeCells() | p.SplitCell() \
                | p.ApplyCellChanges():
            return _structure(data, origin, msg)
        case p.MoveCell():
            return _move(data, origin, msg.cell_id, msg.delta)
        case p.SetCellsType():
            return _set_types(data, origin, msg.cell_ids, msg.cell_type)
        case p.SetSource():
            cell = _cell(data, msg.cell_id)
            cell.source = msg.source
            return [_document_event(data, p.SourceSet, origin, cell_id=cell.id, source=cell.source),
                    a.DocumentChanged()]
        case p.ReplaceSources():
            return _replace_sources(data, origin, msg.changes)
        case p.SetCellType():
            return _set_type(data, origin, msg.cell_id, msg.cell_type)
        case p.SetCellMetadata():
            return _set_metadata(data, origin, _cell(data, msg.cell_id), msg.metadata)
        case p.AddAttachment():
            return _add_attachment(data, origin, _cell(data, msg.cell_id), msg)
        case p.ExecuteCells():
            return _enqueue(data, [_cell(data, cell_id) for cell_id in msg.cell_ids])
        case p.RunAll():
            return _enqueue(data, list(data.cells))
        case p.RunAbove():  # JupyterLab's run-all-above: the cells before it, not it
            return _enqueue(data, data.cells[:data.index_of(_cell(data, msg.cell_id).id)])
        case p.RunBelow():  # run-all-below: it and the cells after it
            return _enqueue(data, data.cells[data.index_of(_cell(data, msg.cell_id).id):])
        case p.RestartAndRunAll():  # the cells run once the new kernel is up (_kernel_status)
            data.run_after_restart = "asked"
            return _clear_queue(data) + [a.RestartKernel()]
        case p.InterruptKernel():
            return _interrupt(data)
        case p.RestartKernel():
            return _clear_queue(data) + [a.RestartKernel()]
        case p.ChangeKernel():
            data.kernel.name, data.kernel.display_name, data.kernel.reason = msg.name, msg.name, None
            data.kernel.can_install = False  # until the new kernel is known (KernelChosen)
            data.kernel.status = "starting"  # cells run now wait for the new kernel
            data.run_after_restart = None
            # the old kernel's events are dropped from now on: its running cell ends here
            stopped = _stop_running(data, f"The kernel was replaced by {msg.name!r}")
            w.disconnect(data.widgets, data.all_outputs())
            return stopped + _clear_queue(data) + [_kernel_info(data), a.StartKernel(msg.name)]
        case p.ClearOutputs():
            ids = msg.cell_ids if msg.cell_ids is not None else [c.id for c in data.cells]
            return _clear_outputs(data, [_cell(data, cell_id) for cell_id in ids])
        case p.StdinReply():
            return _stdin_reply(data, msg.value)
        case p.CommOpen() | p.CommMsg() | p.CommClose():
            try:
                return w.client_comm(data.widgets, origin, msg)
            except ValueError as exc:
                raise OperationError(str(exc)) from None
    raise OperationError(f"{msg.type} is not a document operation")


def _cell(data: NotebookData, cell_id: str) -> Cell:
    cell = data.find(cell_id)
    if cell is None:
        raise OperationError(f"no cell with id {cell_id}")
    return cell


def _structure(data: NotebookData, origin: str, msg: p.ClientMessage) -> list[a.Action]:
    """Many cells at once and the structural undo (session/structure.py)."""
    try:
        match msg:
            case p.MoveCells():
                return structure.move_cells(data, origin, msg)
            case p.InsertCells():
                return structure.insert_cells(data, origin, msg)
            case p.MergeCells():
                return structure.merge_cells(data, origin, msg)
            case p.SplitCell():
                return structure.split_cell(data, origin, msg)
            case p.ApplyCellChanges():
                return cell_changes.apply_changes(data, origin, msg)
        if data.undo and isinstance(step := data.undo[-1], Changed):
            data.undo.pop()
            return [*cell_changes.undo_changes(data, origin, step), a.DocumentChanged()]
        return structure.undo(data, origin)
    except ValueError as exc:
        raise OperationError(str(exc)) from None


def _insert(data: NotebookData, origin: str, msg: p.InsertCell) -> list[a.Action]:
    cell_id = msg.cell_id if msg.cell_id and data.find(msg.cell_id) is None else new_cell_id()
    cell = Cell(id=cell_id, cell_type=msg.cell_type, source=msg.source)
    index = min(msg.index, len(data.cells))
    data.cells.insert(index, cell)
    return [_document_event(data, p.CellInserted, origin, index=index, cell=cell.to_wire()),
            a.DocumentChanged()]


def _delete(data: NotebookData, origin: str, cell_ids: list[str]) -> list[a.Action]:
    wanted = set(cell_ids)
    removed = [(index, cell) for index, cell in enumerate(data.cells) if cell.id in wanted]
    if not removed:
        raise OperationError("none of those cells exist")
    data.cells = [cell for cell in data.cells if cell.id not in wanted]
    data.queue = [cell_id for cell_id in data.queue if cell_id not in wanted]
    for _, cell in removed:
        if cell.state == "queued":
            cell.state = "idle"
    structure.push(data, Deleted(removed))
    return [_document_event(data, p.CellsDeleted, origin, cell_ids=[cell.id for _, cell in removed]),
            a.DocumentChanged()]


def _move(data: NotebookData, origin: str, cell_id: str, delta: int) -> list[a.Action]:
    index = data.index_of(_cell(data, cell_id).id)
    target = max(0, min(len(data.cells) - 1, index + delta))
    if target == index:
        return []
    data.cells.insert(target, data.cells.pop(index))
    return [_document_event(data, p.CellMoved, origin, cell_id=cell_id, index=target), a.DocumentChanged()]


def _replace_sources(data: NotebookData, origin: str, changes: list[p.SourceChange]) -> list[a.Action]:
    """Set several cells' sources as one step: every cell must exist (else nothing changes); cells that
    already hold their new source are left out; one revision for all."""
    cells = [(_cell(data, change.cell_id), change.source) for change in changes]
    if len({cell.id for cell, _ in cells}) != len(cells):
        raise OperationError("a cell appears twice in replace_sources")
    changed = [(cell, source) for cell, source in cells if cell.source != source]
    if not changed:
        return []
    for cell, source in changed:
        cell.source = source
    return [_document_event(data, p.SourcesReplaced, origin,
                            changes=[p.SourceChanged.model_construct(cell_id=cell.id, source=source)
                                     for cell, source in changed]),
            a.DocumentChanged()]

def _set_types(data: NotebookData, origin: str, cell_ids: list[str], cell_type: str) -> list[a.Action]:
    """Change the type of several cells as one undoable step (their old types and outputs are kept)."""
    try:
        cells = [cell for cell in structure.cells_of(data, cell_ids) if cell.cell_type != cell_type]
    except ValueError as exc:
        raise OperationError(str(exc)) from None
    if not cells:
        return []
    before = [(cell.id, cell.cell_type, cell.outputs.to_json(), cell.execution_count) for cell in cells]
    structure.push(data, Retyped(before))
    return [action for cell in cells for action in _set_type(data, origin, cell.id, cell_type)]


def _set_type(data: NotebookData, origin: str, cell_id: str, cell_type: str) -> list[a.Action]:
    cell = _cell(data, cell_id)
    if cell.cell_type == cell_type:
        return []
    actions: list[a.Action] = []
    if cell.cell_type == "code":
        actions += _clear_outputs(data, [cell])
        data.queue = [queued for queued in data.queue if queued != cell.id]
    cell.cell_type = cell_type
    return actions + [_document_event(data, p.CellTypeSet, origin, cell_id=cell.id, cell_type=cell_type),
                      a.DocumentChanged()]


def _set_metadata(data: NotebookData, origin: str | None, cell: Cell, patch: dict[str, Any]) -> list[a.Action]:
    """Set (or, with None, remove) top-level metadata keys of `cell`; broadcast its whole metadata."""
    changed = False
    for key, value in patch.items():
        if value is None:
            changed |= cell.metadata.pop(key, None) is not None
        elif cell.metadata.get(key) != value:
            cell.metadata[key] = value
            changed = True
    if not changed:
        return []
    return [_document_event(data, p.CellMetadataSet, origin, cell_id=cell.id, metadata=dict(cell.metadata)),
            a.DocumentChanged()]


def _add_attachment(data: NotebookData, origin: str, cell: Cell, msg: p.AddAttachment) -> list[a.Action]:
    """Store an image as nbformat's `attachments[name] = {mime: base64}` of a Markdown or raw cell."""
    if cell.cell_type == "code":
        raise OperationError("only Markdown and raw cells have attachments")
    attachments = {**(cell.extra.get("attachments") or {}), msg.name: {msg.mime: msg.data}}
    cell.extra["attachments"] = attachments
    return [_document_event(data, p.AttachmentsSet, origin, cell_id=cell.id, attachments=attachments),
            a.DocumentChanged()]


def _clear_outputs(data: NotebookData, cells: list[Cell]) -> list[a.Action]:
    actions: list[a.Action] = []
    for cell in cells:
        if cell.cell_type != "code" or (not cell.outputs.items and cell.execution_count is None):
            continue
        cell.outputs.clear()
        if cell.state == "idle":
            cell.execution_count = None
        actions += [a.OutputsChanged(cell.id, urgent=True), _cell_state(data, cell),
                    *_set_metadata(data, None, cell, meta.run_start_patch(cell.metadata))]
    return actions + ([a.DocumentChanged()] if actions else [])


# ---- execution ----------------------------------------------------------------------------------


def _kernel_info(data: NotebookData) -> a.Broadcast:
    return a.Broadcast(p.KernelStatusEvent.model_construct(kernel=data.kernel.to_wire()))


def _cell_state(data: NotebookData, cell: Cell) -> a.Broadcast:
    return _document_event(data, p.CellStateEvent, None, cell_id=cell.id, state=cell.state,
                           execution_count=cell.execution_count)


def _enqueue(data: NotebookData, cells: list[Cell]) -> list[a.Action]:
    if data.kernel.status == "dead":
        raise OperationError("the kernel is dead: restart it to run cells")
    actions: list[a.Action] = []
    for cell in cells:
        if cell.cell_type != "code" or cell.state != "idle":
            continue
        if not cell.source.strip():  # like Jupyter: an empty cell is not sent, just cleared
            actions += _clear_outputs(data, [cell])
            continue
        cell.state = "queued"
        data.queue.append(cell.id)
        actions.append(_cell_state(data, cell))
    return actions + _advance(data)


def _advance(data: NotebookData) -> list[a.Action]:
    """Start the next queued cell if the kernel is free to take it."""
    if data.running is not None or not data.queue or data.kernel.status not in USABLE_KERNEL:
        return []
    cell = data.find(data.queue.pop(0))
    if cell is None:
        return _advance(data)
    data.running = cell.id
    cell.state = "running"
    cell.outputs.clear()
    return [a.OutputsChanged(cell.id, urgent=True), _cell_state(data, cell),
            *_set_metadata(data, None, cell, meta.run_start_patch(cell.metadata)),
            a.ExecuteCode(cell.id, cell.source), a.DocumentChanged(), *_sync_busy(data)]


def _clear_queue(data: NotebookData) -> list[a.Action]:
    actions: list[a.Action] = []
    for cell_id in data.queue:
        cell = data.find(cell_id)
        if cell is not None and cell.state == "queued":
            cell.state = "idle"
            actions.append(_cell_state(data, cell))
    data.queue = []
    return actions


def _finish_running(data: NotebookData, cell_id: str) -> list[a.Action]:
    if data.running == cell_id:
        data.running = None
    if data.stdin is not None and data.stdin.cell_id == cell_id:
        data.stdin = None
        actions: list[a.Action] = [a.Broadcast(p.StdinClosed.model_construct(cell_id=cell_id))]
    else:
        actions = []
    cell = data.find(cell_id)
    if cell is None:
        return actions
    cell.state = "idle"
    return actions + [a.OutputsChanged(cell.id, urgent=True), _cell_state(data, cell)]


def _stop_running(data: NotebookData, reason: str) -> list[a.Action]:
    """End the running cell without its kernel's word (that kernel is gone), saying why."""
    data.msg_cells.clear()
    if data.running is None:
        return []
    cell = data.find(data.running)
    if cell is not None:
        cell.outputs.add("error", {"ename": "KernelStopped", "evalue": reason, "traceback": [reason]})
    return _finish_running(data, data.running) + [a.DocumentChanged()]


def _stdin_reply(data: NotebookData, value: str) -> list[a.Action]:
    prompt = data.stdin
    if prompt is None:
        raise OperationError("the kernel is not waiting for input")
    data.stdin = None
    actions: list[a.Action] = [a.SendStdin(value), a.Broadcast(p.StdinClosed.model_construct(cell_id=prompt.cell_id))]
    cell = data.find(prompt.cell_id)
    if cell is not None:
        shown = "········" if prompt.password else value
        cell.outputs.add("stream", {"name": "stdout", "text": f"{prompt.prompt}{shown}\n"})
        actions.append(a.OutputsChanged(cell.id, urgent=True))
    return actions


# ---- kernel events ------------------------------------------------------------------------------


def _kernel(data: NotebookData, event: k.KernelEvent) -> list[a.Action]:
    if isinstance(event, k.StatusChanged):
        return _kernel_status(data, event)
    if isinstance(event, k.CommMessage):
        return w.kernel_comm(data.widgets, event)
    if isinstance(event, k.CommDone):
        return w.comm_done(data.widgets, event)
    if isinstance(event, k.Output) and (captured := w.capture(data.widgets, event)) is not None:
        return captured  # an Output widget's, not the cell's
    cell_id = data.msg_cells.get(event.msg_id)
    cell = data.find(cell_id) if cell_id is not None else None
    if isinstance(event, k.ExecutionFinished):
        data.msg_cells.pop(event.msg_id, None)
        if cell_id is None:
            return []
        if cell is not None:
            if event.execution_count is not None:
                cell.execution_count = event.execution_count
            if event.status == "dead":
                reason = event.reason or _stop_reason(data)
                cell.outputs.add("error", {"ename": "KernelStopped", "evalue": reason, "traceback": [reason]})
        # the run's timestamps, as JupyterLab records them (written before the cell is reported idle)
        timing = _set_metadata(data, None, cell, {"execution": dict(event.timing)}) if cell and event.timing else []
        actions = timing + _finish_running(data, cell_id)
        if event.status != "ok":
            actions += _clear_queue(data)
        return actions + [a.DocumentChanged()] + (_advance(data) or _sync_busy(data))
    if isinstance(event, k.ExecutionStarted):
        if cell is None:
            return []
        cell.execution_count = event.execution_count
        return [_cell_state(data, cell)]
    if isinstance(event, k.StdinRequested):
        if cell is None:
            return []
        data.stdin = StdinPrompt(cell.id, event.prompt, event.password)
        return [a.Broadcast(p.StdinRequest.model_construct(cell_id=cell.id, prompt=event.prompt,
                                                   password=event.password))]
    if isinstance(event, k.Output):
        return _output(data, cell, event)
    return []


def _stop_reason(data: NotebookData) -> str:
    """Why a run ended without its reply, when the kernel did not say."""
    if data.kernel.status == "dead":
        return f"The kernel died: {data.kernel.reason}" if data.kernel.reason else "The kernel died"
    return "The kernel stopped before the cell finished"


def _interrupt(data: NotebookData) -> list[a.Action]:
    """Interrupt only a ready kernel (a starting one dies of SIGINT); before that, un-queue the cells
    waiting for it."""
    status = data.kernel.status
    if status in USABLE_KERNEL:
        return [a.InterruptKernel()]
    if status in ("starting", "restarting") and data.queue:
        return _clear_queue(data)
    if status == "dead":
        raise OperationError("the kernel is dead: restart it first")
    raise OperationError(f"the kernel is {status}: there is nothing to interrupt yet")


def _output(data: NotebookData, cell: Cell | None, event: k.Output) -> list[a.Action]:
    content = event.content
    if event.msg_type == "update_display_data":
        display_id = (content.get("transient") or {}).get("display_id")
        actions: list[a.Action] = []
        for cell_id in sorted(data.display_cells.get(display_id or "", ())):
            shown = data.find(cell_id)
            if shown is not None and shown.outputs.update_display(display_id or "", content):
                actions.append(a.OutputsChanged(shown.id, urgent=True))
        return actions + ([a.DocumentChanged()] if actions else [])
    if cell is None:
        return []
    if event.msg_type == "clear_output":
        cell.outputs.clear(wait=bool(content.get("wait")))
    else:
        cell.outputs.add(event.msg_type, content, keep_dropped=data.keep_full_outputs)
        last = cell.outputs.items[-1]
        if isinstance(last, RichOutput) and last.display_id:
            data.display_cells.setdefault(last.display_id, set()).add(cell.id)
    return [a.OutputsChanged(cell.id, urgent=event.msg_type != "stream"), a.DocumentChanged()]


def _kernel_status(data: NotebookData, event: k.StatusChanged) -> list[a.Action]:
    """Follow the kernel's lifecycle. Busy/idle as shown to users means "running a cell": the kernel's
    own busy/idle also flips for completions, docs and silent runs, which would make the toolbar flicker."""
    previous = data.kernel.status
    if event.state in USABLE_KERNEL:
        if previous in USABLE_KERNEL:
            return _sync_busy(data)
        data.kernel.status = "idle"
    else:
        data.kernel.status = event.state
    if data.run_after_restart is not None and event.state in ("starting", "restarting", "dead"):
        data.run_after_restart = "down" if event.state != "dead" else None  # a failed restart runs nothing
    if event.state in ("starting", "restarting", "dead") or event.reason:
        data.kernel.reason = event.reason
    if event.state in ("starting", "restarting", "dead"):
        w.disconnect(data.widgets, data.all_outputs())  # the tabs show them disconnected on this status
    actions: list[a.Action] = []
    if data.kernel.status != previous or event.reason:
        actions.append(_kernel_info(data))
    if event.state in ("dead", "restarting"):
        actions += _clear_queue(data)
    elif event.state in USABLE_KERNEL:
        actions += _run_after_restart(data) or _advance(data)
    return actions


def _run_after_restart(data: NotebookData) -> list[a.Action]:
    """restart_and_run_all: the new kernel is up, run every cell (only once it went down and came back:
    the old kernel's last statuses must not start the cells on it)."""
    if data.run_after_restart != "down":
        return []
    data.run_after_restart = None
    return _enqueue(data, list(data.cells))


def _sync_busy(data: NotebookData) -> list[a.Action]:
    """Report busy while a cell runs, idle otherwise (only while the kernel is up)."""
    if data.kernel.status not in USABLE_KERNEL:
        return []
    shown = "busy" if data.running is not None else "idle"
    if shown == data.kernel.status:
        return []
    data.kernel.status = shown
    return [_kernel_info(data)]
