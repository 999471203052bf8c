"""Where a task's proposal comes from: the editor's `EditEngine` (an edit model, or `rules`: the offline
fixes alone), or the hand-written answers (`reference`: every check must pass; `original`: the cell
unchanged, every check must fail).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ghostbook.eval.edits.tasks import EditTask

BUILTIN = ("reference", "original", "rules")


@dataclass(frozen=True)
class TaskState:
    """What the editor knows when the user asks: the cells, the kernel state, the error output."""

    cells: Sequence[str]  # the prefix cells and the task's cell, last
    namespace: Sequence[str]
    error: dict[str, Any] | None  # the cell's error output (nbformat), fix tasks
    kernel: Any = None  # the task's kernel (a `SilentRunner`): Fix asks it what objects have, as the editor does


@dataclass(frozen=True)
class Proposal:
    """The new cell text (None: nothing proposed; `failure` says why), with its cost."""

    text: str | None
    ms: float = 0.0
    calls: int = 0
    tokens: int = 0
    source: str = ""  # model | rules | reference | original
    warning: str | None = None
    description: str | None = None
    failure: str | None = None


class Proposer(Protocol):
    label: str

    async def propose(self, task: EditTask, state: TaskState) -> Proposal: ...

    async def close(self) -> None: ...


class FixedProposer:
    """The task's reference answer, or its cell unchanged."""

    def __init__(self, which: str) -> None:
        assert which in ("reference", "original")
        self.label = which

    async def propose(self, task: EditTask, state: TaskState) -> Proposal:
        return Proposal(task.reference if self.label == "reference" else task.cell, source=self.label)

    async def close(self) -> None:
        return None


class EngineProposer:
    """The editor's own path: an `EditRequest` to `EditEngine` (model None: the offline fixes alone)."""

    def __init__(self, label: str, model: Any = None, registry: Any = None) -> None:
        from ghostbook.editing.engine import EditEngine

        self.label = label
        self.engine = EditEngine(model)
        self._registry = registry

    async def propose(self, task: EditTask, state: TaskState) -> Proposal:
        from ghostbook.completion.context import CellText
        from ghostbook.editing.engine import EditError, EditRequest
        from ghostbook.editing.fixes import ErrorInfo

        error = state.error
        info = ErrorInfo(str(error.get("ename", "")), str(error.get("evalue", "")),
                         [str(line) for line in error.get("traceback") or []]) if error is not None else None
        request = EditRequest([CellText("code", c) for c in state.cells], len(state.cells) - 1, task.instruction,
                              None, task.kind, list(state.namespace), info)
        from ghostbook.editing.kernel_attributes import with_kernel_attributes

        began = time.perf_counter()
        request = await with_kernel_attributes(request, state.kernel)
        last = None
        try:
            async for proposal in self.engine.propose(request, threading.Event()):
                last = proposal
        except EditError as exc:
            return Proposal(None, _ms(began), failure=f"{exc.reason}: {exc}")
        except Exception as exc:  # the model failed: a failed task, not a failed run
            return Proposal(None, _ms(began), failure=f"model: {type(exc).__name__}: {exc}")
        ms = _ms(began)
        if last is None:
            return Proposal(None, ms, failure="empty: no proposal")
        source = request.source
        text = source[: last.range[0]] + last.text + source[last.range[1]:]
        stats = last.stats
        return Proposal(text, ms, stats.calls if stats else 0, stats.tokens if stats else 0, last.source,
                        last.warning, last.description)

    async def close(self) -> None:
        if self._registry is not None:
            await self._registry.close()


def _ms(began: float) -> float:
    return (time.perf_counter() - began) * 1000


async def make_proposer(spec: str, api_key: str = "", speculative: bool = True) -> Proposer:
    """`reference`, `original`, `rules`, or an edit-model spec (a .gguf path, hf:..., openai:URL,
    llamacpp:URL; `default` is the shipped completion model, which has no chat template)."""
    if spec in ("reference", "original"):
        return FixedProposer(spec)
    if spec == "rules":
        return EngineProposer("rules")
    from ghostbook.editing.models import edit_model
    from ghostbook.models.loader import ModelRegistry, chat_server, edit_factory

    registry = ModelRegistry(edit_factory, remote=chat_server)  # as the editor's edit registry
    registry.configure_remote(api_key, "")
    loaded = await registry.ensure(spec)
    if loaded is None:
        await registry.close()
        raise RuntimeError(f"cannot load edit model {spec!r}: {registry.status.message}")
    return EngineProposer(spec, edit_model(loaded, speculative), registry)
