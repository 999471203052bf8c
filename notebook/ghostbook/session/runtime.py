"""A live notebook session: applies operations through the reducer and performs the actions.

One `NotebookSession` per open notebook, shared by all its tabs. Everything runs on the event loop;
operations are applied in arrival order, so all tabs see one history.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from ghostbook import protocol as p
from ghostbook.collab.shared_text import UpdateError
from ghostbook.documents.ipynb_file import NotebookFormatError, read_notebook
from ghostbook.documents.stamp import FileStamp
from ghostbook.kernel.events import ExecutionFinished, KernelEvent, StatusChanged
from ghostbook.session import actions as a
from ghostbook.session import reducer
from ghostbook.session import widgets as w
from ghostbook.session.autosave import Autosaver
from ghostbook.session.collaboration import Collaboration
from ghostbook.session.full_outputs import FullOutputs
from ghostbook.session.install import PackageInstaller, installer_for
from ghostbook.session.ops import ExecutionFailedToSend, ExecutionSent, FromClient, FromKernel, Operation
from ghostbook.session.output_throttle import OutputThrottle
from ghostbook.session.outputs import CellOutputs
from ghostbook.session.reload import carry_over
from ghostbook.session.state import NotebookData
from ghostbook.session.variables import KernelVariables

if TYPE_CHECKING:
    from ghostbook.asking.service import AskService
    from ghostbook.completion.namespace_provider import KernelNamespace
    from ghostbook.completion.service import CompletionService
    from ghostbook.completion.silent_runner import SilentRunner
    from ghostbook.editing.service import EditService

log = logging.getLogger(__name__)
# After a run, the namespace summary is refreshed (a silent run in the kernel) and the model prewarmed only
# once the kernel has had nothing to run for this long: a queue of cells, or cells run in quick succession,
# never wait behind that work in the kernel.
AFTER_RUN_QUIET = 0.25


class Client(Protocol):
    """One connected tab. `send` must not block (it queues); a `key` lets a newer message replace
    a queued, unsent one with the same key (a slow tab then gets only the latest)."""

    id: str

    def send(self, text: str | bytes, key: str | None = None) -> None: ...  # bytes: a binary frame


class Kernel(Protocol):
    """What the session needs of a kernel adapter (ghostbook.kernel.adapter.KernelAdapter)."""

    kernel_name: str
    display_name: str

    async def start(self) -> None: ...
    def execute(self, code: str) -> str: ...
    async def interrupt(self) -> None: ...
    async def restart(self) -> None: ...
    async def shutdown(self) -> None: ...
    async def complete(self, code: str, cursor_pos: int) -> dict[str, Any]: ...
    async def inspect(self, code: str, cursor_pos: int, detail_level: int = 0) -> dict[str, Any]: ...
    def send_stdin(self, value: str) -> None: ...
    def send_comm(self, msg_type: str, content: dict[str, Any], *, msg_id: str,
                  metadata: dict[str, Any] | None = None, buffers: Sequence[bytes] = ()) -> None: ...
    async def comm_info(self, target_name: str | None = None) -> dict[str, Any]: ...


KernelFactory = Callable[[Callable[[KernelEvent], None], str, str], Kernel]


class NotebookSession:
    def __init__(self, data: NotebookData, file_path: Path, kernel_factory: KernelFactory,
                 default_kernel: str = "python3", stamp: FileStamp | None = None) -> None:
        self.data = data
        self.data.keep_full_outputs = True  # long streams keep their whole text, in files (full_outputs)
        self.full_outputs = FullOutputs()
        self.file_path = file_path
        self.clients: dict[str, Client] = {}
        self._kernel_factory = kernel_factory
        self._default_kernel = default_kernel
        self.kernel: Kernel | None = None
        self._kernel_generation = 0  # events of a replaced kernel are dropped
        self._tasks: set[asyncio.Task[Any]] = set()
        # stamp: the file as it was read (documents/stamp.py); a change made to it outside is not saved over
        self.autosaver = Autosaver(file_path, lambda: self.data.to_nbformat(), self._on_save_status, stamp=stamp)
        self._kernelspecs: list[dict[str, Any]] = []
        self._throttle = OutputThrottle(self._send_outputs)
        self._sent_outputs: dict[str, tuple[weakref.ref[CellOutputs], int]] = {}  # cell id -> outputs last sent
        self._after_run: asyncio.TimerHandle | None = None  # the namespace refresh, once the kernel is quiet
        self._widget_throttle = OutputThrottle(self._send_widget_outputs)  # Output widgets' captured outputs
        self.closed = False
        self._completion: CompletionService | None = None  # created at the first completion message
        self._editing: EditService | None = None  # created at the first edit or settings message
        self._asking: AskService | None = None  # the Ask panel's conversation: created at its first message
        self._namespace: KernelNamespace | None = None
        self.installer = PackageInstaller(self.broadcast)  # missing packages, one click
        self.collaboration = Collaboration(data.cells, self.broadcast)  # cell texts as a CRDT, presence
        self.variables = KernelVariables(self._silent_runner, self._send_to,  # the Variables panel
                                         lambda: self.data.running is not None or bool(self.data.queue))

    # ---- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the notebook's kernel in the background (and the completion model, shared, if not loaded)."""
        self._spawn(self._start_kernel(self.data.kernel.name or self._default_kernel))
        self._spawn(self.autosaver.watch())  # the file changed on disk: every tab hears of it
        _ = self.completion

    async def close(self) -> None:
        """Save, stop the kernel, and drop all clients."""
        self.closed = True
        self._throttle.cancel()
        if self._after_run is not None:
            self._after_run.cancel()
        self._widget_throttle.cancel()
        await self.installer.close()
        await self.variables.close()
        if self._completion is not None:
            await self._completion.close()
        if self._editing is not None:
            await self._editing.close()
        if self._asking is not None:
            await self._asking.close()
        await self.autosaver.flush()
        if self.kernel is not None:
            await self.kernel.shutdown()
        for task in list(self._tasks):
            task.cancel()
        self.full_outputs.close()

    def discard(self) -> None:
        """The file is gone (deleted): stop saving and tell the tabs (they keep the text for copying)."""
        self.autosaver.disable()
        self.broadcast(p.NotebookDeleted.model_construct(path=self.data.path))

    def moved(self, path: str, file_path: Path) -> None:
        """The notebook was renamed or moved to `path`: save there, and let every tab follow."""
        self.data.path = path
        self.file_path = self.autosaver.path = file_path
        self.broadcast(p.NotebookRenamed.model_construct(path=path))

    def add_client(self, client: Client, kernelspecs: list[dict[str, Any]]) -> None:
        self.clients[client.id] = client
        self._kernelspecs = kernelspecs
        self._send_snapshot(client)

    def _send_snapshot(self, client: Client, **extra: Any) -> None:
        # a tab that reads the texts from `text` does not get them twice (a 1 MB cell)
        shared = getattr(client, "texts_shared", False)
        snapshot = self.data.snapshot(with_sources=not shared)
        kernelspecs = [p.KernelSpecInfo.model_construct(**spec) for spec in self._kernelspecs]
        text, state = self.collaboration.snapshot(binary=shared)
        client.send(p.encode(p.Snapshot.model_construct(
            client_id=client.id, kernelspecs=kernelspecs, save=p.SaveInfo.model_construct(**self.autosaver.status),
            text=text, **snapshot, **extra)))
        if state is not None:
            client.send(state)  # the texts' state as the next frame, bytes: no base64 to encode, inflate, decode
        for message in self.collaboration.presence_messages(client.id):
            client.send(p.encode(message))

    async def reload_from_disk(self) -> None:
        """Revert: the notebook as its file has it now (cells, metadata), built as opening builds it, in place
        of the session's; the kernel runs on (session/reload.py). Every tab gets a fresh snapshot. Raises
        OSError or NotebookFormatError (nothing changed then)."""
        notebook = await self.autosaver.revert(read_notebook)
        self.data = carry_over(self.data, NotebookData.from_nbformat(self.data.path, notebook))
        self.collaboration.reset(self.data.cells)  # a new document: the tabs bind to it afresh
        self.resend_snapshots()

    def resend_snapshots(self) -> None:
        """The document was replaced as a whole (a Revert): every tab starts again from a snapshot, as a
        reconnect would, but the snapshot's text wins over its own unacknowledged edits."""
        for client in list(self.clients.values()):
            self._send_snapshot(client, reloaded=True)

    async def _resolve_file_change(self, client: Client, message: p.ResolveFileChange) -> None:
        if not self.autosaver.conflict:
            return  # another tab chose first
        if message.choice == "overwrite":
            if not await self.autosaver.overwrite():
                self._reply(client, p.error_message(f"overwrite failed: {self.autosaver.error}", message.ref))
            return
        try:
            await self.reload_from_disk()
        except (OSError, NotebookFormatError) as exc:
            self._reply(client, p.error_message(f"cannot revert to the file on disk: {exc}", message.ref))

    def remove_client(self, client_id: str) -> None:
        self.clients.pop(client_id, None)
        self.variables.forget(client_id)
        self.collaboration.left(client_id)
        if self._editing is not None:
            self._editing.cancel(client_id)  # its review is gone with it; the cell was never changed

    # ---- incoming -------------------------------------------------------------------------------

    async def handle(self, client: Client, message: p.ClientMessage) -> None:
        """Apply one validated client message; answer requests that carry a `ref`."""
        match message:
            case p.Ping():
                self._reply(client, p.Pong.model_construct(ref=message.ref))
            case p.TextUpdate():
                self._text_update(client, message)
            case p.Presence():
                self.collaboration.presence(client.id, message)
            case p.Save():
                ok = await self.autosaver.save()
                if not ok:
                    self._reply(client, p.error_message(f"save failed: {self.autosaver.status['message']}",
                                                        message.ref))
            case p.ResolveFileChange():
                await self._resolve_file_change(client, message)
            case p.Complete() | p.Inspect():  # the kernel may take a while: the tab's typing goes on meanwhile
                self._spawn(self._intellisense(client, message))
            case (p.Suggest() | p.SuggestCancel() | p.SuggestFeedback() | p.GetSettings() | p.UpdateSettings()
                  | p.GetCatalogue() | p.CancelDownload() | p.GetTelemetry() | p.ResetTelemetry()):
                await self.completion.handle(client.id, message)
                if isinstance(message, p.GetSettings | p.UpdateSettings):  # the edit model's setting and status
                    await self.editing.handle(client.id, message)
            case p.EditRequest() | p.EditCancel():
                await self.editing.handle(client.id, message)
            case p.AskQuestion() | p.AskStop() | p.AskClear() | p.GetConversation():
                await self.asking.handle(client.id, message)
            case p.CommInfoRequest():
                await self._comm_info(client, message)
            case p.GetVariables() | p.UnwatchVariables() | p.GetDataPage():  # a sort may take seconds: the
                self._spawn(self.variables.handle(client.id, message))  # tab's other messages go on meanwhile
            case p.InstallPackage():
                self.installer.install(message.ref, message.cell_id, message.package,
                                       lambda reply: self._reply(client, reply), self._after_install)
            case _:
                edited = self.data.find(message.cell_id) if isinstance(message, p.SetSource) else None
                before = edited.source if edited is not None else None
                try:
                    self.apply(FromClient(client.id, message))
                except reducer.OperationError as exc:
                    self._reply(client, p.error_message(str(exc), message.ref))
                    return
                if before is not None and self._completion is not None and isinstance(message, p.SetSource):
                    self._completion.edited(message.cell_id, before, message.cursor)  # read the prompt now

    def apply(self, op: Operation) -> None:
        by_kernel = isinstance(op, FromKernel)  # outputs and execution state: saved on a slower schedule
        actions = reducer.apply(self.data, op)
        if not by_kernel:  # texts first: a new cell's text reaches the tabs before the cell does
            self.collaboration.sync(self.data.cells)
        # The kernel gets its request first, and the tabs' messages are serialised while it works; a request
        # that cannot go is reported after the messages that tell of its start.
        failed = [failure for action in actions if isinstance(action, a.ExecuteCode)
                  and (failure := self._execute(action.cell_id, action.code)) is not None]
        for action in actions:
            self._perform(action, by_kernel)
        for failure in failed:
            self.apply(failure)

    def _text_update(self, client: Client, message: p.TextUpdate) -> None:
        """A tab's typing: merged into the shared texts, passed to the other tabs, saved soon."""
        try:
            changes = self.collaboration.text_update(client.id, message, self.data.find)
        except UpdateError as exc:
            self._reply(client, p.error_message(str(exc), message.ref))
            return
        if self.collaboration.needs_sync:
            self.collaboration.sync(self.data.cells)
        if changes:
            self._perform(a.DocumentChanged())
        typed = next((change for change in changes if change.cell_id == message.cell_id), None)
        if typed is not None and self._completion is not None:
            self._completion.edited(typed.cell_id, typed.before, message.cursor)  # read the prompt now

    def _on_kernel_event(self, event: KernelEvent) -> None:
        if not self.closed:
            ran = self.data.msg_cells.get(event.msg_id) if isinstance(event, ExecutionFinished) else None
            self.apply(FromKernel(event))
            self.variables.kernel_event(event)  # after apply: the next queued cell, if any, has been sent
            if self._namespace is not None:  # keep the completion context's namespace summary fresh
                if isinstance(event, ExecutionFinished) and event.status in ("ok", "error"):
                    self._namespace.outdated()
                    self._after_run_when_quiet(ran)
                elif isinstance(event, StatusChanged) and event.state in ("restarting", "dead"):
                    self._namespace.clear()

    def _after_run_when_quiet(self, cell_id: str | None) -> None:
        """Schedule `_after_execution` for when the kernel has been free for AFTER_RUN_QUIET; a later run's
        end schedules it afresh."""
        if self._after_run is not None:
            self._after_run.cancel()

        def quiet() -> None:
            self._after_run = None
            if not self.closed and self.data.running is None and not self.data.queue:
                self._spawn(self._after_execution(cell_id))

        self._after_run = asyncio.get_running_loop().call_later(AFTER_RUN_QUIET, quiet)

    async def _after_execution(self, cell_id: str | None) -> None:
        """Refresh the namespace summary; when nothing else is queued, warm the model up for the next cell."""
        assert self._namespace is not None and self._completion is not None
        await self._namespace.refresh()
        if cell_id is not None and not self.data.queue:
            await self._completion.prewarm_after(cell_id)

    @property
    def completion(self) -> CompletionService:
        """The session's ghost-text completion service (the model itself is shared server-wide)."""
        if self._completion is None:
            from ghostbook.completion.namespace_provider import KernelNamespace
            from ghostbook.completion.service import CompletionService

            self._namespace = KernelNamespace(self._silent_runner)
            self._completion = CompletionService(lambda: self.data.cells, self._send_to, self.broadcast,
                                                 self._namespace)
            if self.data.kernel.status in ("idle", "busy"):
                self._spawn(self._namespace.refresh())
        return self._completion

    def _silent_runner(self) -> SilentRunner | None:
        return cast("SilentRunner | None", self.kernel if hasattr(self.kernel, "run_silent") else None)

    @property
    def editing(self) -> EditService:
        """The session's Edit with AI service (the edit model is shared server-wide); it reads the kernel's
        namespace through the completion's provider."""
        if self._editing is None:
            from ghostbook.editing.service import EditService

            _ = self.completion
            self._editing = EditService(lambda: self.data.cells, self._send_to, self.broadcast, self._namespace,
                                        kernel=self._silent_runner)
        return self._editing

    @property
    def asking(self) -> AskService:
        """The session's Ask the notebook service: the notebook's conversation with the edit model (kept here,
        in memory, for every tab; never in the file). It reads the kernel's namespace as editing does."""
        if self._asking is None:
            from ghostbook.asking.service import AskService

            _ = self.completion
            self._asking = AskService(lambda: self.data.cells, self._send_to, self.broadcast, self._namespace)
        return self._asking

    # ---- actions --------------------------------------------------------------------------------

    def _perform(self, action: a.Action, by_kernel: bool = False) -> None:
        match action:
            case a.Broadcast():
                self.broadcast(action.message, skip=action.skip)
            case a.OutputsChanged():
                cell = self.data.find(action.cell_id)
                if cell is not None:
                    self.full_outputs.collect(cell)
                self._throttle.changed(action.cell_id, action.urgent)
            case a.ExecuteCode():
                pass  # sent by `apply` before the other actions
            case a.DocumentChanged():
                self.autosaver.mark_dirty(by_kernel or action.minor)
            case a.InterruptKernel():
                self._spawn(self._interrupt_kernel())
            case a.RestartKernel():
                self._spawn(self._restart_kernel())
            case a.StartKernel():
                self._spawn(self._start_kernel(action.name, by_user=True))
            case a.SendStdin():
                if self.kernel is not None:
                    self.kernel.send_stdin(action.value)
            case a.SendComm():
                self._send_comm(action)
            case a.WidgetOutputsChanged():
                self._widget_throttle.changed(action.model_id, action.urgent)

    def _send_comm(self, action: a.SendComm) -> None:
        """A widget's message for the kernel; one that cannot go (no kernel, dead) is dropped: its widgets
        show as disconnected already."""
        try:
            if self.kernel is None:
                raise RuntimeError("the kernel is not running")
            self.kernel.send_comm(action.msg_type, action.content, msg_id=action.msg_id,
                                  metadata=action.metadata, buffers=action.buffers)
        except Exception as exc:
            log.info("comm message not sent: %s", exc)

    async def _comm_info(self, client: Client, message: p.CommInfoRequest) -> None:
        try:
            if self.kernel is None or self.data.kernel.status not in ("idle", "busy"):
                raise RuntimeError("the kernel is not running")
            reply = await self.kernel.comm_info(message.target_name)
        except Exception as exc:
            self._reply(client, p.error_message(f"no comm info from the kernel: {exc}", message.ref))
            return
        found = reply.get("comms")
        comms = {str(comm_id): p.CommTarget.model_construct(target_name=str(info.get("target_name", "")))
                 for comm_id, info in (found.items() if isinstance(found, dict) else ()) if isinstance(info, dict)}
        self._reply(client, p.CommInfoReply.model_construct(ref=message.ref, comms=comms))

    def _execute(self, cell_id: str, code: str) -> ExecutionFailedToSend | None:
        """Send `code` to the kernel; the failure to report when it cannot go."""
        if self.kernel is None:
            return ExecutionFailedToSend(cell_id, "the kernel is not running")
        try:
            msg_id = self.kernel.execute(code)
        except Exception as exc:  # the adapter refuses when its kernel is dead
            return ExecutionFailedToSend(cell_id, f"cannot run the cell: {exc}")
        self.apply(ExecutionSent(cell_id, msg_id))
        return None

    async def _start_kernel(self, name: str, by_user: bool = False) -> None:
        from ghostbook.session.ops import KernelChosen

        self._kernel_generation += 1
        generation = self._kernel_generation
        if self.kernel is not None:
            old, self.kernel = self.kernel, None
            await old.shutdown()  # its events no longer reach the session (older generation)
        if generation != self._kernel_generation:
            return  # another switch started meanwhile
        cwd = str(self.file_path.parent)

        def on_event(event: KernelEvent) -> None:
            if generation == self._kernel_generation:
                self._on_kernel_event(event)

        kernel = self._kernel_factory(on_event, name, cwd)
        self.kernel = kernel
        installer = asyncio.get_running_loop().create_task(installer_for(kernel))  # meanwhile: pip or uv?
        try:
            await kernel.start()
        except Exception as exc:
            installer.cancel()
            log.warning("kernel %s failed to start: %s", name, exc)
            if self.kernel is kernel:
                self.apply(FromKernel(StatusChanged("dead", f"the kernel could not start: {exc}")))
            return
        command = await installer
        if self.kernel is kernel:
            self.installer.command = command
            self.apply(KernelChosen(kernel.kernel_name, kernel.display_name, by_user, can_install=command is not None))

    async def _after_install(self) -> None:
        """A package was installed: the kernel forgets what it found missing (its import caches)."""
        runner = self._silent_runner()
        if runner is not None:
            await runner.run_silent("import importlib as _i; _i.invalidate_caches(); del _i")

    async def _interrupt_kernel(self) -> None:
        """Interrupt; the reducer lets only a ready kernel through, but it may die or restart meanwhile."""
        try:
            if self.kernel is None:
                raise RuntimeError("the kernel is not running")
            await self.kernel.interrupt()
        except Exception as exc:
            log.info("interrupt refused: %s", exc)
            self.broadcast(p.error_message(f"cannot interrupt: {exc}"))

    async def _restart_kernel(self) -> None:
        if self.kernel is None:
            await self._start_kernel(self.data.kernel.name or self._default_kernel)
            return
        try:
            await self.kernel.restart()
        except Exception as exc:
            log.warning("restart failed: %s", exc)
            self.apply(FromKernel(StatusChanged("dead", f"restart failed: {exc}")))

    async def _intellisense(self, client: Client, message: p.Complete | p.Inspect) -> None:
        cell = self.data.find(message.cell_id)
        if cell is None:
            self._reply(client, p.error_message(f"no cell with id {message.cell_id}", message.ref))
            return
        cursor = min(message.cursor, len(cell.source))
        if self.kernel is None or self.data.kernel.status not in ("idle", "busy"):
            reply: dict[str, Any] = {"matches": [], "cursor_start": cursor, "cursor_end": cursor,
                                     "metadata": {}, "found": False, "data": {}}
        else:
            try:
                if isinstance(message, p.Complete):
                    reply = await self.kernel.complete(cell.source, cursor)
                else:
                    reply = await self.kernel.inspect(cell.source, cursor, message.detail_level)
            except Exception as exc:
                self._reply(client, p.error_message(f"the kernel did not answer: {exc}", message.ref))
                return
        if isinstance(message, p.Complete):
            matches = list(reply.get("matches", []))
            self._reply(client, p.CompleteReply.model_construct(
                ref=message.ref, matches=matches, cursor_start=reply.get("cursor_start", cursor),
                cursor_end=reply.get("cursor_end", cursor), types=completion_types(reply, matches)))
        else:
            self._reply(client, p.InspectReply.model_construct(ref=message.ref, found=bool(reply.get("found")),
                                                               data=reply.get("data", {})))

    # ---- outgoing -------------------------------------------------------------------------------

    def broadcast(self, message: p.ServerEvent, key: str | None = None, skip: str | None = None) -> None:
        text = p.encode(message)  # once, whatever the number of tabs
        for client in list(self.clients.values()):
            if client.id != skip:
                client.send(text, key)

    def _reply(self, client: Client, message: p.ServerEvent) -> None:
        client.send(p.encode(message))

    def _send_to(self, client_id: str, message: p.ServerEvent) -> None:
        client = self.clients.get(client_id)
        if client is not None:
            client.send(p.encode(message))

    def _send_outputs(self, cell_id: str) -> None:
        cell = self.data.find(cell_id)
        if cell is not None and self._outputs_unsent(cell.id, cell.outputs):
            self.broadcast(p.CellOutputs.model_construct(revision=self.data.revision, cell_id=cell_id,
                                                         outputs=cell.outputs.to_wire()), key=f"cell_outputs:{cell_id}")

    def _outputs_unsent(self, cell_id: str, outputs: CellOutputs) -> bool:
        """False when every tab has these outputs at this version already (a run's end flushes the outputs,
        mostly with nothing new; a run clears outputs that may be empty); else remember them as sent. Tabs
        have what was last sent, or version 0 of outputs never sent (as read or made: in their snapshots)."""
        sent = self._sent_outputs.get(cell_id)
        have = sent[1] if sent is not None and sent[0]() is outputs else 0
        if outputs.version == have:
            return False
        self._sent_outputs[cell_id] = (weakref.ref(outputs), outputs.version)
        return True

    def _send_widget_outputs(self, model_id: str) -> None:
        model = self.data.widgets.models.get(model_id)
        if model is not None:
            self.broadcast(w.outputs_update(model_id, model), key=f"widget_outputs:{model_id}")

    def _on_save_status(self, status: dict[str, Any]) -> None:
        self.broadcast(p.SaveStatusEvent.model_construct(save=p.SaveInfo.model_construct(**status)))
        if status["status"] == "conflict":
            self.broadcast(p.FileChangedOnDisk.model_construct(path=self.data.path))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("session task failed", exc_info=task.exception())


def completion_types(reply: dict[str, Any], matches: list[str]) -> list[str | None]:
    """Each match's type from the kernel's `_jupyter_types_experimental` metadata (matched by text, as
    the entries may be fewer or in another order); None where the kernel does not know it."""
    entries = (reply.get("metadata") or {}).get("_jupyter_types_experimental") or []
    by_text: dict[str, str] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            kind = entry.get("type")
            if isinstance(kind, str) and kind and kind != "<unknown>":
                by_text.setdefault(entry["text"], kind)
    return [by_text.get(match) for match in matches]
