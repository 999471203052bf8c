"""One edit request → a stream of proposals (DESIGN §3b): the editor's service and `eval edits` share it.

A fix the notebook can prove (`fixes`) comes first and needs no model; otherwise the edit model's chat
answer is streamed and rendered (`render`) into the new text of the cell's target range.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ghostbook.completion.context import CellText
from ghostbook.editing import fixes, prompt, render
from ghostbook.editing.errors_text import ErrorInfo
from ghostbook.editing.models import EditModel

Trigger = Literal["edit", "fix"]
Reason = Literal["no_model", "empty", "no_code", "model", "cell_gone", "no_fix"]
FIX_INSTRUCTION = "fix this error"


class EditError(RuntimeError):
    """An edit that cannot be proposed; `reason` tells the browser what to offer (protocol `edit_error`)."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = reason


@dataclass(frozen=True)
class EditRequest:
    """What to rewrite: cell `index` of `cells` (or its `selection`'s lines) as `instruction` says; `cause`:
    the accepted change that made the cell what it is (its Fix tells the model)."""

    cells: Sequence[CellText]
    index: int
    instruction: str
    selection: tuple[int, int] | None = None
    trigger: Trigger = "edit"
    namespace: Sequence[str] = ()
    error: ErrorInfo | None = None
    previous: str | None = None
    attributes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # the kernel's dir() of names
    cause: prompt.ChangeCause | None = None

    @property
    def source(self) -> str:
        return self.cells[self.index].source


@dataclass(frozen=True)
class EditStats:
    calls: int  # target model evaluations (in-process) or 0 for a server
    tokens: int
    ms: float
    speculative: bool

    def to_json(self) -> dict[str, Any]:
        return {"calls": self.calls, "tokens": self.tokens, "ms": round(self.ms, 1), "speculative": self.speculative}


@dataclass(frozen=True)
class Proposal:
    """The new text of the cell's `range` so far (`done`: the whole of it)."""

    range: tuple[int, int]
    text: str
    done: bool
    source: Literal["model", "rules"]
    warning: str | None = None
    description: str | None = None
    stats: EditStats | None = None
    answer: str = field(default="", repr=False)  # the model's raw answer (eval, logs)

    def to_json(self) -> dict[str, Any]:
        return {"range": list(self.range), "text": self.text, "done": self.done, "source": self.source,
                "warning": self.warning, "description": self.description,
                "stats": self.stats.to_json() if self.stats else None}


class EditEngine:
    """Proposals for edit requests with `model` (None: only the fixes the notebook can prove)."""

    def __init__(self, model: EditModel | None, budget: int = 1536) -> None:
        self.model = model
        # tokens of notebook context around the cell, within a quarter of the model's context (the rest is
        # the cell, its rewrite and the instructions)
        self.budget = min(budget, model.context // 4) if model is not None and model.context else budget

    async def propose(self, request: EditRequest, cancel: threading.Event) -> AsyncIterator[Proposal]:
        """Stream proposals; the last has done=True. Raises EditError when there is nothing to propose."""
        instruction = request.instruction.strip() or (FIX_INSTRUCTION if request.trigger == "fix" else "")
        if not instruction:
            raise EditError("empty", "Say what to change: the instruction is empty.")
        start, end = prompt.target_range(request.source, request.selection)
        if request.trigger == "fix":
            if request.error is None:
                raise EditError("no_fix", "This cell has no error to fix: run it first.")
            fix = rule_fix(request)
            if fix is not None:
                yield Proposal((0, len(request.source)), fix.source, True, "rules", syntax_warning(fix.source),
                               fix.description)
                return
        if self.model is None and request.trigger == "fix" and request.error is not None \
                and request.error.ename == "ModuleNotFoundError":
            raise EditError("no_fix", "The package is not installed: the Install button on the error installs it "
                            "into the kernel's environment (the code needs no change).")
        if self.model is None:
            raise EditError("no_model", "No fix the notebook can prove for this error; choose an edit model in the "
                            "settings to ask a model." if request.trigger == "fix" else
                            "Choose an edit model in the settings: a chat or instruct model rewrites the cell.")
        async for proposal in self._model_proposals(request, instruction, (start, end), cancel):
            yield proposal

    async def _model_proposals(self, request: EditRequest, instruction: str, span: tuple[int, int],
                               cancel: threading.Event) -> AsyncIterator[Proposal]:
        assert self.model is not None
        original = request.source[span[0]:span[1]]
        around = (request.source[:span[0]], request.source[span[1]:])  # the parse check reads the whole cell
        context = prompt.EditContext(cells=list(request.cells), index=request.index, selection=request.selection,
                                     instruction=instruction, namespace_lines=list(request.namespace),
                                     error=request.error.text() if request.error is not None else None,
                                     cause=request.cause, previous=request.previous)
        messages = prompt.build_messages(context, self.model.count_tokens, self.budget)
        draft = prompt.draft_answer(request.previous if request.previous is not None else original)
        began = time.perf_counter()
        answer = ""
        shown = ""
        stream = self.model.stream(messages, draft, cancel, max_tokens(self.model, draft))
        async with contextlib.aclosing(stream):  # closed at the fence: an in-process model stops at once
            async for delta in stream:
                answer += delta
                if render.answer_whole(answer):
                    break  # the answer's code is whole: what follows is prose
                partial = render.render(answer, original, final=False, around=around)
                if partial.found and partial.text != shown:
                    shown = partial.text
                    yield Proposal(span, _keep_newline(shown, original), False, "model", answer=answer)
        if cancel.is_set():
            return
        final = render.render(answer, original, final=True, around=around)
        if not final.found:
            raise EditError("no_code", "The model answered without code: " + _gist(answer))
        stats = self.model.stats()
        warning = "; ".join(w for w in (final.warning, self.model.caveat) if w) or None
        yield Proposal(span, _keep_newline(final.text, original), True, "model", warning, None,
                       EditStats(stats.get("calls", 0), stats.get("tokens", 0), (time.perf_counter() - began) * 1000,
                                 bool(stats.get("speculative", False))), answer)


def rule_fix(request: EditRequest) -> fixes.Fix | None:
    """The fix the notebook can prove for the request's error, or None."""
    if request.error is None:
        return None
    facts = fixes.NamespaceFacts.from_lines(request.namespace)
    if request.attributes:
        facts = dataclasses.replace(facts, attributes={**facts.attributes, **request.attributes})
    cells = [cell.source for cell in request.cells if cell.cell_type == "code"]
    return fixes.propose_fix(request.source, request.error, cells, facts)


def syntax_warning(text: str) -> str | None:
    return None if render.parses(text) else render.PARSE_WARNING


def max_tokens(model: EditModel, draft: str) -> int:
    """Room for the rewrite: twice the draft and some, capped."""
    return min(4096, 2 * model.count_tokens(draft) + 256)


def _keep_newline(text: str, original: str) -> str:
    """A range of whole lines keeps its final newline (a code block has none)."""
    if original.endswith("\n") and text and not text.endswith("\n"):
        return text + "\n"
    return text


def _gist(answer: str, limit: int = 160) -> str:
    text = " ".join(answer.split())
    return (text[:limit] + "…") if len(text) > limit else (text or "(nothing)")
