"""Per-session completion: request → gate → context → prompt ids and decode plan → cache → backend
stream (the decoding runs in the backend's worker) → filters → emit. Settings and model status live
in `controls.SettingsController`.

One `CompletionService` per notebook session. Each request runs as its own task so the websocket loop
is never held; a newer request from the same client cancels the one in flight, and nothing more is
sent for a ref that is no longer current. The model itself is shared server-wide (`ModelRegistry`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ghostbook import protocol as p
from ghostbook.completion import coldstart, filters, gate
from ghostbook.completion.cache import SuggestionCache
from ghostbook.completion.candidates import completes_key
from ghostbook.completion.confidence import Evidence, confidence_model
from ghostbook.completion.context import CellText, Context, ContextBuilder, ContextProvider, namespace_block
from ghostbook.completion.controls import Broadcast, Send, SettingsController
from ghostbook.completion.file_paths import only_file, path_rests
from ghostbook.completion.kernel_attributes import owner_at_cursor
from ghostbook.completion.line_memory import line_memory
from ghostbook.completion.passed_over import PassedOver
from ghostbook.completion.prompt import Prompt, around_line, candidate_lines, make_prompt, suffix_share
from ghostbook.completion.settings import CompletionSettings, SettingsStore, shared_store
from ghostbook.completion.stable import StableText
from ghostbook.completion.stats import CompletionStats
from ghostbook.completion.telemetry import shared_telemetry
from ghostbook.decoding.paths import path_at
from ghostbook.decoding.plan import Trace
from ghostbook.decoding.reading import next_lines
from ghostbook.models.backend import Backend, GenStats, ModelStatus
from ghostbook.models.loader import ModelRegistry, shared_registry
from ghostbook.models.remote import RemoteBackend, TextRequest
from ghostbook.models.templates import TemplateError

log = logging.getLogger(__name__)

# A forced request whose time-budgeted search found nothing, or in a function's body only a line of the
# model's own (`HELD`: the beam's, or one it ran out of time on; not a copy of the notebook's lines: in
# a notebook's top-level code the whole search is no more often right, docs/benchmarks.md), searches
# again; the user asked and waits, and the held line is never shown first. In a function's body
# (`AGAIN_IN_FUNCTION`): the whole search with the read check (the prompt is read by then; the
# budgeted search's own lines are rarely right there: HumanEval through the editor's path), then
# greedy; only where code follows the cursor for the read check to read: at the end of a notebook being
# written the whole search was never right, and it made the slowest first texts (docs/benchmarks.md).
# Elsewhere (`AGAIN`): greedy, which does not start with the token the first search started with (its
# line is rarely right and would fail again): the prompt is read, so a line costs a few ms, where a
# beam's search took as long again as the first search; then, only while the request is under 40 ms
# old, greedy once more (fewer empty answers, without the p95 of a cold start: docs/benchmarks.md,
# "Cold first text"). Where none finds a line that fits, the notebook's likeliest line that does. Each
# greedy try starts with none of the tokens the searches before it that found nothing started with.


@dataclass(frozen=True)
class Retry:
    """One more search: the settings it changes, and `within_ms`: only while the request is younger
    than this (0: always)."""

    changes: Mapping[str, object]
    within_ms: float = 0


Again = tuple[Retry, ...]
AGAIN: Again = (Retry({"beam_width": 1}), Retry({"beam_width": 1}, within_ms=40))
AGAIN_IN_FUNCTION: Again = (Retry({"search_ms": 0, "read_check": True}), Retry({"beam_width": 1}))
HELD = ("beam", "cut")


class CellLike(Protocol):
    id: str
    cell_type: str
    source: str


@dataclass(frozen=True)
class _Made:
    """A generation's final text, the confidence of its first line and where that line came from."""

    text: str
    confidence: float
    origin: str
    evidence: Evidence | None = None
    first: int | None = None  # the first token the model wrote (None: none, or a server's text)


@dataclass
class _Inflight:
    ref: str
    cancel: threading.Event
    task: asyncio.Task[None] | None = None
    start: float = dataclasses.field(default_factory=time.perf_counter)  # when the request came
    head: str = ""  # the cursor's line up to the cursor


class CompletionService:
    def __init__(self, cells: Callable[[], Sequence[CellLike]], send: Send, broadcast: Broadcast,
                 provider: ContextProvider | None = None, registry: ModelRegistry | None = None,
                 store: SettingsStore | None = None) -> None:
        self._cells = cells
        self._send = send
        self._broadcast = broadcast
        self._provider = provider
        self.registry = registry or shared_registry()
        self.store = store or shared_store()
        self.cache = SuggestionCache()
        self.cold = coldstart.ColdStart()  # what a cold request reads first (`coldstart`)
        self.again = AGAIN  # how a forced request outside a function searches again (benchmarks vary it)
        self.stats = CompletionStats()
        self.telemetry = shared_telemetry()  # the user's own statistics, server-wide
        self.last_gen: GenStats | None = None
        self.last_prompt: list[int] = []  # the last request's prompt ids (benchmarks)
        # the last suggestion's confidence, whether it took a forced request's second search, and what
        # its first search made (what an automatic request shows, or holds back) (benchmarks)
        self.last_confidence: float | None = None
        self.last_searched_again = False
        self.last_first: _Made | None = None
        self.confidence = confidence_model()
        self.passed = PassedOver()  # lines each user dismissed, per cell (`completion.passed_over`)
        self._inflight: dict[str, _Inflight] = {}
        self._builder: tuple[Backend, ContextBuilder] | None = None
        self.prewarms = 0
        self._prefills: set[asyncio.Task[bool]] = set()  # whole prompts read after a cold start (`coldstart`)
        self._reading: set[threading.Event] = set()  # cancel flags of this service's prefills and prewarms
        self.controls = SettingsController(self.store, self.registry, send, broadcast, self.cache.clear)
        with contextlib.suppress(RuntimeError):  # no loop (a benchmark's first request reads it instead)
            asyncio.get_running_loop().run_in_executor(None, line_memory)  # ~0.3 s, off the event loop

    # ---- messages -------------------------------------------------------------------------------

    async def handle(self, client_id: str, message: p.ClientMessage) -> None:
        match message:
            case p.Suggest():
                self.suggest(client_id, message)
            case p.SuggestCancel():
                current = self._inflight.get(client_id)
                if current is not None and current.ref == message.ref:
                    self._cancel(client_id)
            case p.SuggestFeedback():
                if message.event == "dismissed":
                    self.passed.dismissed(message.ref)
                self.stats.feedback(message.event, message.latency_ms)
                self.telemetry.feedback(message, self.registry.status.name or self.store.current.model)
                self._send_stats(client_id)
            case p.GetTelemetry() | p.ResetTelemetry():
                self._send(client_id, await self.telemetry.answer(message))
            case p.GetSettings():
                self._send(client_id, self.controls.settings_message(message.ref))
                self._send_stats(client_id)
            case p.UpdateSettings():
                await self.controls.update(client_id, message)
            case p.GetCatalogue():
                self._send(client_id, await self.controls.catalogue_message(message.ref))
            case p.CancelDownload():
                self.controls.cancel_download()

    def suggest(self, client_id: str, message: p.Suggest) -> asyncio.Task[None]:
        """Start answering `message` (cancelling this client's previous request); returns the task."""
        self._cancel(client_id)
        self.registry.cancel_prewarms()
        inflight = _Inflight(message.ref, threading.Event())
        self._inflight[client_id] = inflight
        inflight.task = asyncio.get_running_loop().create_task(self._run(client_id, message, inflight))
        return inflight.task

    async def close(self) -> None:
        self.controls.close()
        for cancel in list(self._reading):
            cancel.set()
        for client_id in list(self._inflight):
            self._cancel(client_id)

    # ---- the pipeline ---------------------------------------------------------------------------

    async def _run(self, client_id: str, msg: p.Suggest, inflight: _Inflight) -> None:
        start = time.perf_counter()
        self.stats.requests += 1
        try:
            await self._pipeline(client_id, msg, inflight, start)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("suggestion %s failed", msg.ref)
            self._emit_error(client_id, inflight, f"completion failed: {exc}")
        finally:
            if self._inflight.get(client_id) is inflight:
                del self._inflight[client_id]

    async def _pipeline(self, client_id: str, msg: p.Suggest, inflight: _Inflight, start: float) -> None:
        settings = self.store.current
        if not settings.enabled:
            return self._emit_error(client_id, inflight, "completion is turned off")
        cells = list(self._cells())
        index = next((i for i, c in enumerate(cells) if c.id == msg.cell_id), None)
        if index is None:
            return self._emit_error(client_id, inflight, f"no cell with id {msg.cell_id}")
        source, cursor = cells[index].source, min(msg.cursor, len(cells[index].source))
        inflight.head = source[:cursor].rsplit("\n", 1)[-1]
        if cells[index].cell_type != "code" or gate.skip_reason(source, cursor, msg.trigger):
            self._emit(client_id, inflight, msg, cursor, "", True, "model")
            return
        attributes = files = None
        if self._provider is not None:
            await self._provider.settled()  # just after a run: its names, not the summary before it
            owner = owner_at_cursor(source[:cursor])
            attributes = await self._provider.attributes(owner) if owner is not None else None
            files = await self._provider.files() if path_at(source[:cursor].rsplit("\n", 1)[-1]) else None
        backend = await self.registry.for_request(settings.model)  # while another loads: the one serving
        if backend is None:
            status = self.registry.status
            return self._emit_error(client_id, inflight, status.message or f"the model is {status.state}")
        if gate.skip_reason(source, cursor, msg.trigger, code_only=bool(backend.info.extra.get("code_only")),
                            known_key=lambda: settings.notebook_candidates and _known_key(
                                cells, index, cursor, self._provider.namespace_lines() if self._provider else ())):
            self._emit(client_id, inflight, msg, cursor, "", True, "model")
            return
        ctx = self._context(backend, cells, index, cursor, settings, attributes=attributes, files=files)
        hit = self.cache.get(ctx.prefix, ctx.suffix)
        if hit is not None and (hit.text or msg.trigger == "auto"):  # asked where nothing came: try again
            self.stats.cache_hits += 1
            self.stats.server_ms.append((time.perf_counter() - start) * 1000)
            self.last_confidence = hit.confidence
            self._emit(client_id, inflight, msg, cursor,
                       hit.text if self._shows(client_id, inflight, msg, hit.confidence, hit.text) else "", True,
                       hit.source, hit.confidence)
            return
        full, later = ctx, None
        if not isinstance(backend, RemoteBackend):  # a cold prompt: read a shorter one now, the whole one after
            ctx, later = coldstart.choose(
                backend, ctx, lambda: self._context(backend, cells, index, cursor, settings, cold=True,
                                                    attributes=attributes, files=files),
                settings.max_new_tokens)
        again = msg.trigger == "forced" and settings.search_ms > 0 and not isinstance(backend, RemoteBackend)
        # general Python: the whole search pays there, where its read check has lines after the cursor to read
        hold = again and in_function_body(ctx.cell_prefix) and bool(next_lines(full.suffix).strip())
        made = await self._generate(client_id, msg, inflight, cursor, backend, ctx, settings, hold=hold)
        self.last_searched_again, self.last_first = False, made
        if again and made is not None and (not made.text or (hold and made.origin in HELD)):
            # asked, and within the time budget no line fitted, or only the model's own line did (held
            # back, not shown): search again (the prompt is read by now)
            self.last_searched_again = True
            tried = {made.first}  # greedy does not start again where a search found nothing
            for retry in AGAIN_IN_FUNCTION if hold else self.again:
                if retry.within_ms and (time.perf_counter() - inflight.start) * 1000 >= retry.within_ms:
                    continue
                again_made = await self._generate(client_id, msg, inflight, cursor, backend, ctx,
                                                  dataclasses.replace(settings, **retry.changes),  # type: ignore[arg-type]
                                                  first_not=frozenset(t for t in tried if t is not None))
                if again_made is None or again_made.text:
                    made = again_made
                    break
                tried.add(again_made.first)
            else:  # the model writes nothing that fits: the notebook's likeliest line that does
                made = (self._candidate(ctx) if settings.notebook_candidates else None) or made
        if made is None:  # cancelled
            return
        self.cache.put(full.prefix, full.suffix, made.text, made.confidence)
        self.stats.server_ms.append((time.perf_counter() - start) * 1000)
        self.last_confidence = made.confidence
        self._emit(client_id, inflight, msg, cursor,
                   made.text if self._shows(client_id, inflight, msg, made.confidence, made.text) else "", True,
                   "model", made.confidence)
        if later is not None and self._current(client_id, inflight):
            self._prefill_soon(backend, later)

    async def _generate(self, client_id: str, msg: p.Suggest, inflight: _Inflight, cursor: int,
                        backend: Backend, ctx: Context, settings: CompletionSettings,
                        hold: bool = False, first_not: frozenset[int] = frozenset()) -> _Made | None:
        """Stream the model's middle through the filters (an automatic request's only once its first line
        is confident enough; with `hold`, nothing of a line of `HELD` origin; greedy starting with none
        of `first_not`); the final text and its confidence, or None if cancelled."""
        max_new = settings.max_new_tokens
        trace = Trace("remote")
        if not self._current(client_id, inflight):
            return None
        inflight.cancel.clear()  # the request is current: a stop is the last generation's, which ended early
        if isinstance(backend, RemoteBackend):  # a server takes the whole prompt's text (DESIGN §3)
            removed = b""
            stream = backend.stream_text(TextRequest(ctx.prefix, ctx.suffix, ctx.cell_prefix, ctx.cell_suffix,
                                                     max_new), inflight.cancel)
        else:
            try:
                prompt = make_prompt(backend, ctx, max_new, settings.beam_width, settings.read_check,
                                     search_ms=settings.search_ms, copies=settings.notebook_candidates)
            except TemplateError as exc:
                self._emit_error(client_id, inflight, str(exc))
                return None
            removed, self.last_prompt = prompt.plan.heal, prompt.ids
            # the first line's search time counts from the request's arrival: the user waits from then
            plan = dataclasses.replace(prompt.plan, made=min(prompt.plan.made, inflight.start), first_not=first_not)
            stream, trace = backend.stream(prompt.ids, plan, inflight.cancel), plan.trace
        _, above, below = around_line(ctx)
        stable = StableText(ctx.cell_prefix, ctx.cell_suffix, above)  # shows only what no rule can take back
        notebook = above + below  # the notebook's text but the cursor's line
        confidence: float | None = None  # of the first line, once it is known
        raw, first = b"", None
        self.stats.model_calls += 1
        async with contextlib.aclosing(stream):
            async for token in stream:
                if stable.final is not None:
                    continue  # drain: the worker stops at its next check and reports its stats
                raw += token.piece
                first = token.id if first is None else first
                if len(raw) < len(removed):
                    continue
                text = stable.update(_strip(raw, removed))
                if text is not None and confidence is None:
                    confidence = self._confidence(text, trace, ctx, notebook)
                if stable.final is not None:
                    inflight.cancel.set()  # the rest would be cut anyway
                elif text is not None and self._shows(client_id, inflight, msg, confidence, text) \
                        and not (hold and trace.origin in HELD) \
                        and not self._emit(
                        client_id, inflight, msg, cursor, text, False, "model", confidence):
                    return None
        shown = stable.finish(_strip(raw, removed), backend.last_stats.generated >= max_new)
        self.last_gen = backend.last_stats
        if inflight.cancel.is_set() and self._inflight.get(client_id) is not inflight:
            return None
        evidence = _evidence(shown, trace, ctx, notebook)
        return _Made(shown, self._judged(shown, ctx, evidence) if confidence is None else confidence,
                     trace.origin, evidence, None if isinstance(backend, RemoteBackend) else first)

    def _candidate(self, ctx: Context) -> _Made | None:
        """The first line copied from the notebook (`completion.candidates`) that the final filters pass."""
        _, above, below = around_line(ctx)
        for rank, line in enumerate(candidate_lines(ctx)):
            text, _ = filters.run(line, filters.FilterContext(ctx.cell_prefix, ctx.cell_suffix, above=above))
            if text:
                trace = Trace("copy", rank)
                return _Made(text, self._confidence(text, trace, ctx, above + below), "copy",
                             _evidence(text, trace, ctx, above + below))
        return None

    def _confidence(self, text: str, trace: Trace, ctx: Context, notebook: str) -> float:
        """P(the user types `text`'s first line exactly) (`_judged`)."""
        return self._judged(text, ctx, _evidence(text, trace, ctx, notebook))

    def _judged(self, text: str, ctx: Context, evidence: Evidence) -> float:
        """P(the user types `text`'s first line exactly), by `completion.confidence` on `evidence`; 1 where
        the kernel's folder settles it (`file_paths.only_file`: the one file of its kind at `pd.read_csv(`)."""
        head, above, _ = around_line(ctx)
        if (only := only_file(head, ctx.files)) is not None and text.partition("\n")[0] in path_rests(
                head, [only], above, ctx.cell_suffix.partition("\n")[0]):
            return 1.0
        return self.confidence.probability(evidence)

    def _shows(self, client_id: str, inflight: _Inflight, msg: p.Suggest, confidence: float | None,
               text: str) -> bool:
        """Whether `text`, of this `confidence`, may show: a forced suggestion always; an automatic one not
        where it makes a line the user passed over in the cell (`passed_over`), and of the model the
        confidence was fitted on only at the threshold of the "Suggest" setting."""
        settings = self.store.current
        if msg.trigger == "forced":
            return True
        if self.passed.holds(client_id, msg.cell_id, inflight.head, text):
            return False
        return not self.confidence.judges(settings.model) or (
            confidence is not None and confidence >= self.confidence.threshold(settings.suggest))

    def _context(self, backend: Backend, cells: Sequence[CellLike], index: int, cursor: int,
                 settings: CompletionSettings, cold: bool = False,
                 attributes: tuple[str, ...] | None = None, files: tuple[str, ...] | None = None) -> Context:
        """The context for `cursor`; `cold`: as `self.cold` says (its own sticky cells above);
        `attributes`: what the kernel's object at the cursor has, `files` the kernel's folder's
        (`Context`)."""
        budget = max(32, min(settings.context_tokens, backend.info.n_ctx - settings.max_new_tokens - 8))
        if cold:
            budget = min(budget, self.cold.budget)
        ctx = self._builder_for(backend).build(
            [CellText(c.cell_type, c.source) for c in cells], index, cursor, budget,
            self._provider.namespace_lines() if self._provider else (),
            suffix_share(backend), key=cells[index].id + ("\0cold" if cold else ""),
            neighbours=not (cold and self.cold.cell_only))
        if attributes is None and files is None:
            return ctx
        return dataclasses.replace(ctx, attributes=attributes, files=files)

    def _prefill_soon(self, backend: Backend, ctx: Context) -> None:
        """Read `ctx`'s whole prompt into the KV cache in the background (any request stops it)."""
        settings = self.store.current
        try:
            prompt = make_prompt(backend, ctx, settings.max_new_tokens)
        except TemplateError:
            return
        task = asyncio.get_running_loop().create_task(self._prefill(backend, prompt))
        self._prefills.add(task)
        task.add_done_callback(self._prefills.discard)

    async def idle(self) -> None:
        """Wait for background prompt reading to end (benchmarks: a user types for longer than it takes)."""
        while self._prefills:
            await asyncio.gather(*self._prefills, return_exceptions=True)

    async def _prefill(self, backend: Backend, prompt: Prompt) -> bool:
        """Evaluate `prompt` (and one token) while no request waits; False if a request stopped it."""
        if self._inflight:
            return False
        cancel = threading.Event()
        self.registry.prewarms.add(cancel)
        self._reading.add(cancel)
        try:
            stream = backend.stream(prompt.ids, dataclasses.replace(prompt.plan, max_new_tokens=1), cancel)
            async with contextlib.aclosing(stream):
                async for _ in stream:
                    pass
        finally:
            self.registry.prewarms.discard(cancel)
            self._reading.discard(cancel)
        return not cancel.is_set()

    def edited(self, cell_id: str, before: str, cursor: int | None = None) -> None:
        """A client changed `cell_id`'s text from `before`: while the editor's debounce runs, read the
        prompt for its `cursor` (where the editor said, else where the change ended), so the request that
        follows finds it in the KV cache. A newer edit or any request stops it."""
        settings, backend = self.store.current, self.registry.backend
        if (not settings.enabled or backend is None or isinstance(backend, RemoteBackend)
                or self.registry.status.state != "ready" or self._inflight):
            return
        cells = list(self._cells())
        index = next((i for i, c in enumerate(cells) if c.id == cell_id), None)
        if index is None or cells[index].cell_type != "code":
            return
        source = cells[index].source  # (no gate: Ctrl+Space may follow where it would skip)
        cursor = min(cursor, len(source)) if cursor is not None else coldstart.edit_end(before, source)
        for cancel in list(self._reading):  # the last edit's reading is for a cursor that moved on
            cancel.set()
        self._prefill_soon(backend, self._context(backend, cells, index, cursor, settings))

    async def prewarm_after(self, cell_id: str) -> None:
        """`cell_id` just ran: prewarm the next code cell below it (the user's likely next place), or
        that cell itself when it is the last."""
        cells = list(self._cells())
        index = next((i for i, c in enumerate(cells) if c.id == cell_id), None)
        if index is not None:
            below = [c.id for c in cells[index + 1 :] if c.cell_type == "code"]
            await self.prewarm(below[0] if below else cell_id)

    async def prewarm(self, cell_id: str) -> None:
        """Evaluate the prompt for the end of `cell_id` while no request waits (after running a cell the
        user usually types in the next one), so that the first real request finds it in the KV cache.
        Any request cancels it."""
        settings, backend = self.store.current, self.registry.backend
        if not settings.enabled or backend is None or self.registry.status.state != "ready" or self._inflight:
            return
        cells = list(self._cells())
        index = next((i for i, c in enumerate(cells) if c.id == cell_id), None)
        if index is None or cells[index].cell_type != "code":
            return
        try:
            prompt = make_prompt(backend, self._context(backend, cells, index, len(cells[index].source), settings),
                                 settings.max_new_tokens)
        except TemplateError:
            return
        self.prewarms += await self._prefill(backend, prompt)

    def _builder_for(self, backend: Backend) -> ContextBuilder:
        if self._builder is None or self._builder[0] is not backend:
            self._builder = (backend, ContextBuilder(lambda text: len(backend.tokenize(text))))
            self.cache.clear()
        return self._builder[1]

    # ---- replies --------------------------------------------------------------------------------

    def _current(self, client_id: str, inflight: _Inflight) -> bool:
        return self._inflight.get(client_id) is inflight

    def _emit(self, client_id: str, inflight: _Inflight, msg: p.Suggest, cursor: int, text: str, done: bool,
              source: str, confidence: float | None = None) -> bool:
        """Send one `suggestion` message unless the request is stale; False if it is."""
        if not self._current(client_id, inflight):
            return False
        self._send(client_id, p.Suggestion.model_construct(
            ref=msg.ref, cell_id=msg.cell_id, cursor=cursor, text=text, done=done, source=source,
            confidence=None if confidence is None else round(confidence, 3)))
        if done:
            self.passed.sent(msg.ref, client_id, msg.cell_id, inflight.head, text)
            self._send_stats(client_id)
        return True

    def _emit_error(self, client_id: str, inflight: _Inflight, message: str) -> None:
        if self._current(client_id, inflight):
            self._send(client_id, p.SuggestionError.model_construct(ref=inflight.ref, message=message))

    def _cancel(self, client_id: str) -> None:
        inflight = self._inflight.pop(client_id, None)
        if inflight is not None:
            inflight.cancel.set()
            if inflight.task is not None:
                inflight.task.cancel()

    def _send_stats(self, client_id: str) -> None:
        stats = p.SuggestionStats.model_construct(**self.stats.to_json())
        self._send(client_id, p.CompletionStats.model_construct(stats=stats))

    def model_status(self) -> ModelStatus:
        return self.controls.model_status()


def _known_key(cells: Sequence[CellLike], index: int, cursor: int, namespace: Sequence[str]) -> bool:
    """Whether the cursor is in a subscript key that a key or column of the notebook (or of the kernel's
    namespace summary) completes."""
    source = cells[index].source
    head_start = source.rfind("\n", 0, cursor) + 1
    before = namespace_block(namespace) + "".join(c.source + "\n\n" for c in cells[:index]) + source[:head_start]
    after = source[cursor:] + "".join("\n\n" + c.source for c in cells[index + 1 :])
    return completes_key(source[head_start:cursor], before, after)


def in_function_body(cell_prefix: str) -> bool:
    """Whether the cursor's line (the end of `cell_prefix`) is in the body of a `def`: an enclosing line,
    less indented than it, that defines a function."""
    lines = cell_prefix.split("\n")
    head = lines[-1]
    depth = len(head) - len(head.lstrip()) if head.strip() else len(head)
    for line in reversed(lines[:-1]):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent < depth:
            if line.lstrip().startswith(("def ", "async def ")):
                return True
            depth = indent
            if not depth:
                return False
    return False


def _evidence(text: str, trace: Trace, ctx: Context, notebook: str) -> Evidence:
    """What the confidence of `text` is judged on (`completion.confidence`)."""
    copy = trace.copy
    if copy is None:
        return Evidence(text.split("\n", 1)[0], trace.origin, ctx.cell_prefix, ctx.cell_suffix, notebook)
    return Evidence(text.split("\n", 1)[0], trace.origin, ctx.cell_prefix, ctx.cell_suffix, notebook,
                    trace.copy_rank, copy.agreed, copy.margin, copy.offered, copy.per_token, copy.runner_up)


def _strip(raw: bytes, removed: bytes) -> str:
    """The generated text without the bytes token healing made the model spell again."""
    return (raw[len(removed):] if raw.startswith(removed) else raw).decode("utf-8", "ignore")
