"""Where a task's answer comes from: the Ask panel's own service (`asking.service.AskService`: its prompt,
the model's stream, the plan parsed from the answer) on the task's notebook as session cells, or a fixed
answer (`reference`: the task's correct plan, every check must pass; `original`: no answer, every check must
fail)."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ghostbook import protocol as p
from ghostbook.asking.plan import Plan, parse_plan
from ghostbook.asking.service import AskService
from ghostbook.completion.settings import SettingsStore
from ghostbook.eval.notebook_ai.tasks import NotebookAiTask
from ghostbook.models.loader import ModelRegistry, chat_server, edit_factory
from ghostbook.session.state import Cell

BUILTIN = ("reference", "original")


@dataclass
class Answer:
    text: str
    plan: Plan
    stats: dict[str, int] = field(default_factory=dict)  # calls, tokens, prompt_tokens
    error: str | None = None


class Answerer(Protocol):
    label: str

    async def answer(self, task: NotebookAiTask, cells: Sequence[Cell], selected: list[str],
                     namespace: list[str]) -> Answer: ...

    async def close(self) -> None: ...


class FixedAnswerer:
    def __init__(self, which: str) -> None:
        self.label = which

    async def answer(self, task: NotebookAiTask, cells: Sequence[Cell], selected: list[str],
                     namespace: list[str]) -> Answer:
        text = task.reference if self.label == "reference" else ""
        return Answer(text, parse_plan(text, [cell.id for cell in cells]))

    async def close(self) -> None:
        return None


class _Namespace:
    """The kernel's names as the completion's provider gives them to Ask (gathered after the notebook ran)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def namespace_lines(self) -> list[str]:
        return self.lines

    async def settled(self) -> None:
        return None

    async def attributes(self, owner: str) -> tuple[str, ...] | None:
        return None  # Ask's prompt reads the namespace's lines, not objects' attributes

    async def files(self) -> tuple[str, ...] | None:
        return None  # Ask's prompt names no files


class ServiceAnswerer:
    """The editor's Ask service with the edit model `spec` (the settings' spec: a .gguf, hf:..., openai:URL,
    llamacpp:URL), loaded once into the service's registry."""

    def __init__(self, spec: str, registry: ModelRegistry, store: SettingsStore) -> None:
        self.label = spec
        self.registry = registry
        self.store = store

    async def answer(self, task: NotebookAiTask, cells: Sequence[Cell], selected: list[str],
                     namespace: list[str]) -> Answer:
        service = AskService(lambda: cells, lambda *_: None, lambda *_a, **_k: None, _Namespace(namespace),
                             self.registry, self.store)
        running = service.ask("eval", p.AskQuestion(type="ask_question", ref="eval", question=task.instruction,
                                                    cell_ids=selected))
        if running is not None:
            await running
        turn = service.conversation.turns[-1] if service.conversation.turns else None
        if turn is None:
            return Answer("", Plan(), error="not asked")
        stats = service.model.stats() if service.model is not None else {}
        return Answer(turn.answer, turn.plan, stats, turn.error)

    async def close(self) -> None:
        await self.registry.close()


async def make_answerer(spec: str, api_key: str = "", speculative: bool = True) -> Answerer:
    if spec in BUILTIN:
        return FixedAnswerer(spec)
    registry = ModelRegistry(edit_factory, remote=chat_server)  # as the editor's edit registry
    settings = Path(tempfile.mkdtemp(prefix="ghostbook-nbai-")) / "settings.json"
    store = SettingsStore(settings)
    store.update({"edit_model": spec, "api_key": api_key, "speculative": speculative})
    registry.configure_remote(api_key, "")
    if await registry.ensure(spec) is None:
        await registry.close()
        raise RuntimeError(f"cannot load edit model {spec!r}: {registry.status.message}")
    return ServiceAnswerer(spec, registry, store)
