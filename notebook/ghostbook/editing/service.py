"""Per-session Edit with AI: answers `edit_request` with `edit_proposal`s (or an `edit_error`) for the tab
that asked, and keeps the tabs told of the edit model's status (protocol).

Nothing here changes the document: the browser reviews the proposal and sends an ordinary `set_source`
on Accept. A newer request from a tab cancels its older one, and so does its disconnect.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ghostbook import protocol as p
from ghostbook.completion.context import CellText, ContextProvider
from ghostbook.completion.controls import Broadcast, Send, wire_status
from ghostbook.completion.settings import SettingsStore, shared_store
from ghostbook.completion.silent_runner import SilentRunner
from ghostbook.editing.engine import EditEngine, EditError, EditRequest, Proposal
from ghostbook.editing.errors_text import ErrorInfo
from ghostbook.editing.kernel_attributes import with_kernel_attributes
from ghostbook.editing.models import EditModel, edit_model
from ghostbook.editing.prompt import ChangeCause
from ghostbook.models.backend import ModelStatus
from ghostbook.models.loader import ModelRegistry, shared_edit_registry

log = logging.getLogger(__name__)

STREAM_EVERY_S = 0.05  # a streamed proposal is sent at most this often (the last one always)


class CellWithOutputs(Protocol):
    id: str
    cell_type: str
    source: str

    @property
    def outputs(self) -> Any: ...


@dataclass
class _Inflight:
    ref: str
    cancel: threading.Event
    task: asyncio.Task[None] | None = None


class EditService:
    def __init__(self, cells: Callable[[], Sequence[CellWithOutputs]], send: Send, broadcast: Broadcast,
                 provider: ContextProvider | None = None, registry: ModelRegistry | None = None,
                 store: SettingsStore | None = None, kernel: Callable[[], SilentRunner | None] = lambda: None) -> None:
        self._cells = cells
        self._kernel = kernel  # asked for the attributes of the objects an AttributeError names
        self._send = send
        self._broadcast = broadcast
        self._provider = provider
        self.registry = registry or shared_edit_registry()
        self.store = store or shared_store()
        self._inflight: dict[str, _Inflight] = {}
        self._unsubscribe = self.registry.subscribe(self._on_status)

    # ---- messages -------------------------------------------------------------------------------

    async def handle(self, client_id: str, message: p.ClientMessage) -> None:
        match message:
            case p.EditRequest():
                self.request(client_id, message)
            case p.EditCancel():
                current = self._inflight.get(client_id)
                if current is not None and current.ref == message.ref:
                    self.cancel(client_id)
            case p.GetSettings():
                self._send(client_id, self.status_message())
            case p.UpdateSettings():
                await self.settings_changed()
                self._send(client_id, self.status_message())

    def request(self, client_id: str, message: p.EditRequest) -> asyncio.Task[None]:
        """Start answering `message` (cancelling this client's previous edit); returns the task."""
        self.cancel(client_id)
        inflight = _Inflight(message.ref, threading.Event())
        self._inflight[client_id] = inflight
        inflight.task = asyncio.get_running_loop().create_task(self._run(client_id, message, inflight))
        return inflight.task

    def cancel(self, client_id: str) -> None:
        """Stop this client's edit in flight (a newer request, Reject, or the tab went away)."""
        inflight = self._inflight.pop(client_id, None)
        if inflight is not None:
            inflight.cancel.set()
            if inflight.task is not None:
                inflight.task.cancel()

    async def settings_changed(self) -> None:
        """Load the edit model the settings now name (or unload it when none is named)."""
        setting = self.store.current.edit_model
        if not setting:
            if self.registry.setting is not None:
                await self.registry.clear()
        else:
            self.registry.configure_remote(self.store.current.api_key, "")
            self.registry.start(setting, force=True)

    def status(self) -> ModelStatus:
        if not self.store.current.edit_model:
            return ModelStatus("off", "", None, None, "no edit model chosen")
        return self.registry.status

    def status_message(self) -> p.EditModelStatusEvent:
        return p.EditModelStatusEvent.model_construct(model=wire_status(self.status()))

    async def close(self) -> None:
        self._unsubscribe()
        for client_id in list(self._inflight):
            self.cancel(client_id)

    # ---- one request ----------------------------------------------------------------------------

    async def _run(self, client_id: str, message: p.EditRequest, inflight: _Inflight) -> None:
        try:
            if self._provider is not None:
                await self._provider.settled()  # the last run's names (a fix: the failed run's)
            request = await with_kernel_attributes(self._request(message), self._kernel())
            model = await self._model(message)
            engine = EditEngine(model, self.store.current.context_tokens)
            last_sent = 0.0
            pending: Proposal | None = None
            async for proposal in engine.propose(request, inflight.cancel):
                pending = proposal
                now = time.monotonic()
                if proposal.done or now - last_sent >= STREAM_EVERY_S:
                    self._propose(client_id, inflight, message, proposal)
                    last_sent, pending = now, None
            if pending is not None and not inflight.cancel.is_set():
                self._propose(client_id, inflight, message, pending)
            if self._cell(message.cell_id) is None:
                raise EditError("cell_gone", "The cell was deleted while the edit was being written.")
        except asyncio.CancelledError:
            raise
        except EditError as exc:
            self._error(client_id, inflight, exc.reason, str(exc))
        except Exception as exc:
            log.exception("edit %s failed", message.ref)
            self._error(client_id, inflight, "model", f"The edit model failed: {exc}")
        finally:
            if self._inflight.get(client_id) is inflight:
                del self._inflight[client_id]

    def _request(self, message: p.EditRequest) -> EditRequest:
        cells = list(self._cells())
        index = next((i for i, cell in enumerate(cells) if cell.id == message.cell_id), None)
        if index is None:
            raise EditError("cell_gone", "That cell no longer exists.")
        cell = cells[index]
        if cell.cell_type != "code":
            raise EditError("no_code", "Edit with AI rewrites code cells.")
        selection = message.selection
        if selection is not None:
            start, end = sorted(selection)
            if end > len(cell.source):
                raise EditError("empty", "The selection lies outside the cell (it changed): select again.")
            selection = (start, end) if end > start else None
        error = error_info(cell.outputs.to_json()) if message.trigger == "fix" else None
        cause = None if message.cause is None else ChangeCause(message.cause.before, message.cause.instruction)
        return EditRequest([CellText(c.cell_type, c.source) for c in cells], index, message.instruction,
                           selection, message.trigger,
                           self._provider.namespace_lines() if self._provider is not None else [],
                           error, message.previous, cause=cause)

    async def _model(self, message: p.EditRequest) -> EditModel | None:
        """The edit engine's model, or None when none is chosen (the engine then says what to do);
        EditError when the chosen one cannot be loaded."""
        setting = self.store.current.edit_model
        if not setting:
            return None
        self.registry.configure_remote(self.store.current.api_key, "")
        loaded = await self.registry.for_request(setting)  # while another loads, the one serving
        if loaded is None:
            status = self.registry.status
            raise EditError("model", f"The edit model is not ready: {status.message or status.state}")
        return edit_model(loaded, self.store.current.speculative)

    def _cell(self, cell_id: str) -> CellWithOutputs | None:
        return next((cell for cell in self._cells() if cell.id == cell_id), None)

    # ---- replies --------------------------------------------------------------------------------

    def _current(self, client_id: str, inflight: _Inflight) -> bool:
        return self._inflight.get(client_id) is inflight and not inflight.cancel.is_set()

    def _propose(self, client_id: str, inflight: _Inflight, message: p.EditRequest, proposal: Proposal) -> None:
        if self._current(client_id, inflight):
            stats = None if proposal.stats is None else p.EditStats.model_construct(**proposal.stats.to_json())
            self._send(client_id, p.EditProposal.model_construct(
                ref=message.ref, cell_id=message.cell_id, range=proposal.range, text=proposal.text, done=proposal.done,
                source=proposal.source, warning=proposal.warning, description=proposal.description, stats=stats))

    def _error(self, client_id: str, inflight: _Inflight, reason: str, text: str) -> None:
        if self._current(client_id, inflight):
            self._send(client_id, p.EditError.model_construct(ref=inflight.ref, message=text, reason=reason))

    def _on_status(self, status: ModelStatus) -> None:
        failed = self.registry.fell_back
        if failed is not None and status.state == "ready" and self.store.current.edit_model == failed[0]:
            self.store.update({"edit_model": failed[1]})  # the chosen one failed: the one before serves on
        self._broadcast(self.status_message())


def error_info(outputs: list[dict[str, Any]]) -> ErrorInfo | None:
    """The cell's last error output (nbformat), if its run ended in one."""
    for output in reversed(outputs):
        if output.get("output_type") == "error":
            return ErrorInfo.from_output(output)
    return None
