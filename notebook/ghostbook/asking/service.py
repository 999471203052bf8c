"""Per-session Ask the notebook: answers `ask_question` with turns streamed to every tab (`ask_turn`),
keeps the notebook's conversation (`get_conversation`, cleared by `ask_clear`) and stops an answer on
`ask_stop`.

One answer is written at a time: a new question stops the one being answered. A model that fails, before
or in the middle of its answer, ends the turn with an error and the conversation goes on. Nothing here
changes the document: the browser inserts a code block as an ordinary `insert_cell`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ghostbook import protocol as p
from ghostbook.asking import prompt
from ghostbook.asking.answering import answer_texts
from ghostbook.asking.conversation import Conversation, Turn
from ghostbook.asking.models import AskModel, ask_model
from ghostbook.asking.plan import drop_unchanged, parse_plan
from ghostbook.completion.context import CellText, ContextProvider
from ghostbook.completion.controls import Send
from ghostbook.completion.settings import SettingsStore, shared_store
from ghostbook.editing.service import CellWithOutputs, error_info
from ghostbook.models.loader import ModelRegistry, shared_edit_registry

log = logging.getLogger(__name__)

STREAM_EVERY_S = 0.05  # a growing answer goes to the tabs at most this often (its last state always)
NO_MODEL = "Choose an edit model in the settings: a chat or instruct model answers questions about the notebook."


class Broadcast(Protocol):
    def __call__(self, message: p.ServerEvent, key: str | None = None) -> None: ...


@dataclass
class _Answering:
    turn: Turn
    cancel: threading.Event
    task: asyncio.Task[None] | None = None


class AskService:
    def __init__(self, cells: Callable[[], Sequence[CellWithOutputs]], send: Send, broadcast: Broadcast,
                 provider: ContextProvider | None = None, registry: ModelRegistry | None = None,
                 store: SettingsStore | None = None) -> None:
        self._cells = cells
        self._send = send
        self._broadcast = broadcast
        self._provider = provider
        self.registry = registry or shared_edit_registry()
        self.store = store or shared_store()
        self.conversation = Conversation()
        self._answering: _Answering | None = None
        self.model: AskModel | None = None  # the last answer's (its `stats()`)

    async def handle(self, client_id: str, message: p.ClientMessage) -> None:
        match message:
            case p.AskQuestion():
                self.ask(client_id, message)
            case p.AskStop():
                if self._answering is not None and self._answering.turn.id == message.turn_id:
                    self.stop()
            case p.AskClear():
                self.stop()
                self.conversation.clear()
                self._broadcast(p.AskConversation.model_construct(ref=None, turns=[]))
            case p.GetConversation():
                self._send(client_id, p.AskConversation.model_construct(ref=message.ref,
                                                                        turns=self.conversation.to_wire()))

    def ask(self, client_id: str, message: p.AskQuestion) -> asyncio.Task[None] | None:
        """Start answering `message` (stopping the answer being written); returns the task, or None when
        the question is not asked (the asking tab is told why)."""
        question = message.question.strip()
        if not question:
            self._send(client_id, p.AskError.model_construct(ref=message.ref, reason="empty",
                                                             message="Type a question first."))
            return None
        if not self.store.current.edit_model:
            self._send(client_id, p.AskError.model_construct(ref=message.ref, reason="no_model", message=NO_MODEL))
            return None
        self.stop()
        turn = self.conversation.ask(question, list(message.cell_ids))
        answering = self._answering = _Answering(turn, threading.Event())
        self._publish(turn)
        answering.task = asyncio.get_running_loop().create_task(self._answer(answering))
        return answering.task

    def stop(self) -> None:
        """Stop the answer being written; what it has so far stays, marked stopped."""
        answering, self._answering = self._answering, None
        if answering is None:
            return
        answering.cancel.set()
        if answering.task is not None:
            answering.task.cancel()
        if answering.turn.answering:
            answering.turn.state = "stopped"
            self._publish(answering.turn)

    async def close(self) -> None:
        self.stop()

    # ---- one answer -----------------------------------------------------------------------------

    async def _answer(self, answering: _Answering) -> None:
        turn = answering.turn
        try:
            if self._provider is not None:
                await self._provider.settled()  # the last run's names
            model = await self._model()
            last_sent = time.monotonic()
            code_cells = [(cell.id, cell.source) for cell in self._cells() if cell.cell_type == "code"]
            texts = answer_texts(model, self._context(turn), code_cells, answering.cancel)
            async with contextlib.aclosing(texts) as stream:
                async for text in stream:
                    if not turn.answering:
                        break
                    turn.answer = text
                    if time.monotonic() - last_sent >= STREAM_EVERY_S:
                        self._publish(turn)
                        last_sent = time.monotonic()
            if turn.answering:
                cells = list(self._cells())
                turn.plan = drop_unchanged(parse_plan(turn.answer, [cell.id for cell in cells]),
                                           {cell.id: cell.source for cell in cells})
                turn.state = "done"
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("ask %s failed: %s", turn.id, exc)
            if turn.answering:
                turn.state, turn.error = "error", f"The model failed: {exc}"
        finally:
            if self._answering is answering:
                self._answering = None
        self._publish(turn)

    def _context(self, turn: Turn) -> prompt.AskContext:
        cells = list(self._cells())
        wanted = set(turn.cell_ids)
        selected = [i for i, cell in enumerate(cells) if cell.id in wanted]
        errors = {}
        for index in selected:
            error = error_info(cells[index].outputs.to_json()) if cells[index].cell_type == "code" else None
            if error is not None:
                errors[index] = error.text()
        return prompt.AskContext(
            cells=[CellText(cell.cell_type, cell.source) for cell in cells], ids=[cell.id for cell in cells],
            question=turn.question,
            selected=selected, errors=errors,
            namespace_lines=self._provider.namespace_lines() if self._provider is not None else [],
            history=[(t.question, t.answer) for t in self.conversation.before(turn)])

    async def _model(self) -> AskModel:
        """The edit model, loaded (RuntimeError when it cannot be)."""
        setting = self.store.current.edit_model
        if not setting:
            raise RuntimeError("no edit model is chosen")
        self.registry.configure_remote(self.store.current.api_key, "")
        loaded = await self.registry.for_request(setting)  # while another loads, the one serving
        if loaded is None:
            status = self.registry.status
            raise RuntimeError(f"the edit model is not ready: {status.message or status.state}")
        self.model = ask_model(loaded, self.store.current.speculative)
        return self.model

    def _publish(self, turn: Turn) -> None:
        self._broadcast(p.AskTurnEvent.model_construct(turn=turn.to_wire()), key=f"ask_turn:{turn.id}")
