"""The notebook benchmark: notebook tasks answered by the editor's own completion path.

Each task is asked of a `CompletionService` (the object the websocket's `suggest` messages reach)
with the task's notebook as its cell list, so cross-cell context, token healing, decoding and filters
are the editor's. No kernel runs here: the prompt has a namespace summary only where `namespaces` gives
one. Requests are `forced` (as Ctrl+Space), so the gate's rule for empty cells does not hide the `cell`
kind.

`debounce` (the default) asks as a user meets it: the editor sends each edit at once and asks only
after the user pauses (the debounce, 500 ms by default), and meanwhile the server reads the prompt at
the cursor (`CompletionService.edited`). So before each request the service gets the cursor's last
keystroke as an edit and the benchmark waits until that reading is done (a user who typed the line
paused for longer). Without it each request reads its own prompt (cold, as Ctrl+Space at once after a
jump); latency is the request's either way.

`automatic`: before the forced request, an automatic one at the same place (after the debounce, through
the gate and the confidence threshold, as the editor asks when the user pauses); its cache entry is
dropped before the forced request. `namespaces`: each task's kernel namespace summary (writing mode,
`eval.writing`), which the service reads as it reads the live kernel's (and `attributes`, its answers
for the object whose attribute the cursor takes).
"""

from __future__ import annotations

import asyncio
import difflib
import functools
import statistics
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from tqdm import tqdm

from ghostbook import protocol as p
from ghostbook.completion.garbage import garbage_reason
from ghostbook.completion.gate import skip_reason
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import CompletionSettings, SettingsStore
from ghostbook.eval.notebook_tasks import KINDS, NotebookTask
from ghostbook.models.loader import ModelRegistry


@dataclass(frozen=True)
class _Cell:
    id: str
    cell_type: str
    source: str


@dataclass(frozen=True)
class FixedNamespace:
    """What a task's kernel said, taken earlier (`ContextProvider`): its namespace summary (`lines`),
    its answers for objects' attributes (`attributes_of`: {owner: names}; others unknown) and the
    files in its working folder (`files_there`; None: unknown)."""

    lines: tuple[str, ...] = ()
    attributes_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    files_there: tuple[str, ...] | None = None

    def namespace_lines(self) -> list[str]:
        return list(self.lines)

    async def settled(self) -> None:
        return None

    async def attributes(self, owner: str) -> tuple[str, ...] | None:
        return self.attributes_of.get(owner)

    async def files(self) -> tuple[str, ...] | None:
        return self.files_there


@dataclass(frozen=True)
class NotebookResult:
    task_id: str
    kind: str
    expected: str
    completion: str  # the suggestion's first line
    exact: bool
    similarity: float
    empty: bool
    garbage: str | None
    ms: float
    read: int = 0  # prompt tokens the request itself read (not in the KV cache when it came)
    # an automatic request at the same cursor: its text is the first search's (a forced request searches
    # again where that found nothing or ran out of time); whether the gate's rules skip it (`completion.
    # gate`), whether its first line is exact, the confidence it is judged by and that confidence's inputs
    searched_again: bool = False
    auto_skip: str | None = None
    auto_exact: bool = False
    auto_empty: bool = True
    confidence: float | None = None
    features: dict[str, float] | None = None
    first_ms: float | None = None  # to the first non-empty text (None: none came)
    # the real automatic request (`automatic`): the text it showed (None: none was asked), when it came
    shown_auto: str | None = None
    auto_first_ms: float | None = None
    auto_garbage: str | None = None


def score(task: NotebookTask, text: str, ms: float, read: int = 0,
          service: CompletionService | None = None, first_ms: float | None = None,
          shown_auto: str | None = None, auto_first_ms: float | None = None) -> NotebookResult:
    """Exact match and character similarity of the first line (whitespace around it ignored); with the
    `service` that answered, its confidence and what it read."""
    first = text.split("\n", 1)[0].strip()
    want = task.expected.strip()
    cell = task.cells[task.index]
    line_before = cell[: task.cursor].rsplit("\n", 1)[-1]
    garbage, auto_garbage = (garbage_reason(t, line_before, task.line_above, cell_before=cell[: task.cursor],
                                            cell_after=cell[task.cursor :]) if t else None
                             for t in (text, shown_auto))
    auto = service.last_first if service is not None else None
    auto_text = auto.text if auto is not None else text
    return NotebookResult(task.task_id, task.kind, want, first, first == want,
                          difflib.SequenceMatcher(None, first, want, autojunk=False).ratio(), not text.strip(),
                          garbage, ms, read, service is not None and service.last_searched_again,
                          skip_reason(cell, task.cursor, "auto"), auto_text.split("\n", 1)[0].strip() == want,
                          not auto_text.strip(), auto.confidence if auto is not None else None,
                          auto.evidence.features() if auto is not None and auto.evidence is not None else None,
                          first_ms, shown_auto, auto_first_ms, auto_garbage)


def _ignore(message: p.ServerEvent) -> None:
    """Broadcasts (model status) have no reader here."""


class _Outbox:
    def __init__(self) -> None:
        self.done: dict[str, str] = {}
        self.errors: dict[str, str] = {}
        self.first: dict[str, float] = {}  # when each request's first non-empty text came (perf_counter)

    def send(self, client: str, event: p.ServerEvent) -> None:
        message = event.model_dump()
        if message.get("type") == "suggestion" and message.get("text"):
            self.first.setdefault(str(message["ref"]), time.perf_counter())
        if message.get("type") == "suggestion" and message.get("done"):
            self.done[str(message["ref"])] = str(message["text"])
        elif message.get("type") == "suggestion_error":
            self.errors[str(message["ref"])] = str(message["message"])


async def run_tasks(tasks: Sequence[NotebookTask], model: str = "default",
                    settings: CompletionSettings | None = None, progress: bool = True,
                    registry: ModelRegistry | None = None, debounce: bool = True, automatic: bool = False,
                    kernels: Sequence[FixedNamespace] | None = None,
                    desc: str = "eval notebook") -> list[NotebookResult]:
    """Ask the completion service for every task (`debounce`: after the edit's prompt reading, as the
    editor's debounce lets it; `automatic`: an automatic request first; `kernels`: what each task's
    kernel says, else none is asked); raise if the model cannot load."""
    settings = settings or CompletionSettings()
    own = registry is None
    registry = registry or ModelRegistry()
    with tempfile.TemporaryDirectory() as tmp:
        store = SettingsStore(Path(tmp) / "settings.json")
        store.current = CompletionSettings(**{**settings.to_json(), "model": model, "enabled": True})
        if await registry.ensure(model) is None:
            raise RuntimeError(f"cannot load model {model!r}: {registry.status.message}")
        results = []
        try:
            for k, task in enumerate(tqdm(tasks, desc=desc, unit="task", disable=not progress)):
                cells = [_Cell(f"c{i}", "code", src) for i, src in enumerate(task.cells)]
                outbox = _Outbox()
                provider = kernels[k] if kernels is not None else None
                service = CompletionService(functools.partial(list, cells), outbox.send, _ignore, provider,
                                            registry, store)
                if debounce:
                    await _debounce(service, task)
                shown_auto, auto_first = None, None
                if automatic:
                    shown_auto, _, auto_first = await _ask(service, outbox, task, f"a{k}", "auto")
                    service.cache.clear()  # the forced request searches for itself
                text, ms, first = await _ask(service, outbox, task, f"n{k}", "forced")
                await service.close()
                gen = service.last_gen
                results.append(score(task, text, ms, gen.prompt_tokens - gen.reused_tokens if gen is not None else 0,
                                     service, first, shown_auto, auto_first))
        finally:
            if own:
                await registry.close()
    return results


async def _ask(service: CompletionService, outbox: _Outbox, task: NotebookTask, ref: str,
               trigger: Literal["auto", "forced"]) -> tuple[str, float, float | None]:
    """One request at the task's cursor: its final text, its time and the time to its first text (ms)."""
    start = time.perf_counter()
    await service.suggest("eval", p.Suggest(type="suggest", ref=ref, cell_id=f"c{task.index}", cursor=task.cursor,
                                            trigger=trigger))
    ms = (time.perf_counter() - start) * 1000
    if ref in outbox.errors:
        raise RuntimeError(f"{task.task_id}: {outbox.errors[ref]}")
    first = outbox.first.get(ref)
    return outbox.done.get(ref, ""), ms, (first - start) * 1000 if first is not None else None


async def _debounce(service: CompletionService, task: NotebookTask) -> None:
    """What the editor does before an automatic request: it sends the edit that put the cursor where it
    is (`set_source` with the cursor: the server reads the prompt there), then waits for the user's pause;
    here, until that reading is done."""
    source, cursor = task.cells[task.index], task.cursor
    before = source[: cursor - 1] + source[cursor:] if cursor else source + " "  # the last keystroke undone
    service.edited(f"c{task.index}", before, cursor)
    await service.idle()


def summarise(results: Sequence[NotebookResult]) -> dict[str, float]:
    """The table row: rates over all tasks, latency percentiles."""
    n = max(1, len(results))
    ms = sorted(r.ms for r in results) or [0.0]
    return {"n": len(results), "exact_match": sum(r.exact for r in results) / n,
            "char_similarity": sum(r.similarity for r in results) / n,
            "empty": sum(r.empty for r in results) / n,
            "garbage": sum(r.garbage is not None for r in results) / n,
            "p50_ms": statistics.median(ms), "p95_ms": ms[min(len(ms) - 1, int(0.95 * len(ms)))]}


def by_kind(results: Sequence[NotebookResult]) -> dict[str, dict[str, float]]:
    out = {}
    for kind in KINDS:
        part = [r for r in results if r.kind == kind]
        if part:
            out[kind] = summarise(part)
    return out


def plot(runs: Sequence[tuple[str, Sequence[NotebookResult]]], path: Path) -> Path:
    """A PNG: exact match by cursor kind (one bar per run) and a latency histogram per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / max(1, len(runs))
    for j, (label, results) in enumerate(runs):
        kinds = by_kind(results)
        xs = [i + j * width for i in range(len(KINDS))]
        left.bar(xs, [100 * float(kinds[k]["exact_match"]) if k in kinds else 0 for k in KINDS], width, label=label)
        right.hist([r.ms for r in results], bins=40, alpha=0.6, label=label)
    left.set_xticks([i + 0.4 - width / 2 for i in range(len(KINDS))], KINDS, rotation=30)
    left.set_ylabel("exact match (%)")
    left.set_title("Notebook tasks: exact match by cursor kind")
    left.legend(fontsize=8)
    right.set_xlabel("request latency (ms)")
    right.set_ylabel("tasks")
    right.set_title("Latency")
    right.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def run(tasks: Sequence[NotebookTask], model: str, settings: CompletionSettings,
        progress: bool = True, debounce: bool = True) -> list[NotebookResult]:
    return asyncio.run(run_tasks(tasks, model, settings, progress, debounce=debounce))


def rows(label: dict[str, object], results: Sequence[NotebookResult]) -> list[dict[str, object]]:
    """The overall row then one per cursor kind, each led by `label`'s columns."""
    out: list[dict[str, object]] = [{**label, "kind": "all", **summarise(results)}]
    out += [{**label, "kind": kind, **row} for kind, row in by_kind(results).items()]
    return out


def details(results: Sequence[NotebookResult]) -> list[dict[str, object]]:
    return [asdict(r) for r in results]
