"""`ghostbook bench completion --cold`: the notebook benchmark's tasks as cold requests, variants side by side.

Each task of a stored notebook split (`eval.notebook_tasks`; every `--stride`-th) is asked of the real
`CompletionService` once per variant, the variants in turn (the order rotates from task to task, so a
busy spell of this shared machine falls on all of them alike). Before each request the KV cache and the
backend's remembered tokenizations are dropped, so the prompt is not in the cache: a paste then
Ctrl+Space, or a notebook opened and asked at once. `--debounced` asks as the notebook benchmark's
default does instead: the cursor's last keystroke sent as an edit first and its prompt read before the
request (what a user meets after the debounce; the quality of longer contexts is measured so).

Per variant: the server's time to the first text (the first message with text; requests that show
none, an empty suggestion, are left out), to the whole answer (all requests), the prompt tokens the
request itself read, how often a forced request searched a second time, and the quality of the same
tasks (exact first line, empty, character similarity; `eval.notebook_bench.score`), with ratios
against the first variant (the baseline). Results: docs/benchmarks.md, "Cold first text".
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from ghostbook import protocol as p
from ghostbook.completion import coldstart
from ghostbook.completion.line_memory import line_memory
from ghostbook.completion.service import AGAIN, AGAIN_IN_FUNCTION, Again, CompletionService, Retry
from ghostbook.completion.settings import CompletionSettings, SettingsStore
from ghostbook.eval.notebook_bench import NotebookResult, score
from ghostbook.eval.notebook_data import load_notebooks, packaged_split
from ghostbook.eval.notebook_tasks import NotebookTask, notebook_tasks
from ghostbook.models.llama_seqs import Sequences, make_context
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.loader import ModelRegistry, default_factory


@dataclass(frozen=True)
class Variant:
    """A way to answer: the service's cold start, settings changed from the defaults, the model's
    context (`n_ctx`; None: what it was trained on; more: positions past its training), and how a
    forced request outside a function searches again where its first search found nothing (`again`)."""

    cold: coldstart.ColdStart = coldstart.ColdStart()
    settings: dict[str, Any] = field(default_factory=dict)
    n_ctx: int | None = None
    again: Again = AGAIN


BASELINE = "default"  # the service's own cold start and the default settings
VARIANTS: dict[str, Variant] = {
    BASELINE: Variant(),
    "cold 256": Variant(coldstart.ColdStart(256)),  # before #30
    "cold 192": Variant(coldstart.ColdStart(192)),
    "cold 128": Variant(coldstart.ColdStart(128)),
    "cold 96": Variant(coldstart.ColdStart(96)),
    "cold 128, beam 4": Variant(coldstart.ColdStart(128), {"beam_width": 4}),
    "cold 128, greedy": Variant(coldstart.ColdStart(128), {"beam_width": 1, "search_ms": 0}),
    "cold 128, search 30 ms": Variant(coldstart.ColdStart(128), {"search_ms": 30}),
    "cold 128, search 45 ms": Variant(coldstart.ColdStart(128), {"search_ms": 45}),
    "again: the whole search": Variant(again=AGAIN_IN_FUNCTION),  # what every second search was before
    "again: a beam two wide, then greedy": Variant(again=(Retry({"search_ms": 0, "read_check": False, "beam_width": 2}),
                                                          Retry({"beam_width": 1}))),  # until 2026-12-03 night
    "again: greedy once": Variant(again=(Retry({"beam_width": 1}),)),
    "again: greedy twice": Variant(again=(Retry({"beam_width": 1}),) * 2),
    "again: greedy three times": Variant(again=(Retry({"beam_width": 1}),) * 3),
    "again: greedy, then greedy within 50 ms": Variant(again=(Retry({"beam_width": 1}), Retry({"beam_width": 1}, 50))),
    "again: nothing": Variant(again=()),  # only the notebook's likeliest line that fits
    "cell first 256": Variant(coldstart.ColdStart(256, cell_only=True)),
    "cell first 128": Variant(coldstart.ColdStart(128, cell_only=True)),
    "whole (no cold start)": Variant(coldstart.ColdStart(100_000)),
    "n_ctx 2048, context 1024": Variant(settings={"context_tokens": 1024}, n_ctx=2048),
    "n_ctx 2048, context 448": Variant(settings={"context_tokens": 448}, n_ctx=2048),
    "context 320": Variant(settings={"context_tokens": 320}),
}


@dataclass
class Cell:
    id: str
    cell_type: str
    source: str


class Outbox:
    """When each request's first text was sent, and its last answer."""

    def __init__(self) -> None:
        self.done: dict[str, dict[str, object]] = {}
        self.first_text: dict[str, float] = {}

    def send(self, client: str, event: p.ServerEvent) -> None:
        message = event.model_dump()
        if message["type"] != "suggestion":
            return
        ref = str(message["ref"])
        if message.get("text") and ref not in self.first_text:
            self.first_text[ref] = time.perf_counter()
        if message["done"]:
            self.done[ref] = message


@dataclass
class Sample:
    result: NotebookResult
    first_ms: float | None  # None: no text was shown
    done_ms: float
    read: int  # prompt tokens the request read itself
    prompt: int  # prompt tokens in all
    again: bool = False  # a forced request searched a second time (its first search found no whole line)


class PastTraining(LlamaCppBackend):
    """The model with `n_ctx` positions even past what it was trained on (an experiment: does a longer
    prompt help the model or hurt it?)."""

    def load(self) -> None:
        super().load()
        if self._n_ctx > self.info.n_ctx:
            make_context(self._llm, self._n_ctx)
            self._seqs.close()
            self._seqs = Sequences(self._llm)
            self.info = dataclasses.replace(self.info, n_ctx=self._n_ctx)


def _factory(n_ctx: int) -> Any:
    def make(path: Path, family: str | None, name: str) -> Any:
        if path.suffix != ".gguf":
            return default_factory(path, family, name)
        return PastTraining(path, family=family, name=name, n_ctx=n_ctx)
    return make


async def ask(registry: ModelRegistry, store: SettingsStore, variant: Variant, task: NotebookTask, ref: str,
              debounced: bool, trigger: Literal["auto", "forced"] = "forced") -> Sample:
    """`task` asked once, cold (or after the debounce's reading): times, prompt tokens, the scored answer."""
    backend = registry.backend
    assert backend is not None
    cells = [Cell(f"c{i}", "code", src) for i, src in enumerate(task.cells)]
    outbox = Outbox()
    service = CompletionService(functools.partial(list, cells), outbox.send, lambda m: None, None, registry, store)
    service.cold, service.again = variant.cold, variant.again
    backend.forget()
    if isinstance(backend, LlamaCppBackend):
        backend._tokenized.clear()  # a notebook just opened or pasted: its cells never tokenized
    if debounced:  # what the editor does before an automatic request (`eval.notebook_bench`)
        source, cursor = task.cells[task.index], task.cursor
        service.edited(f"c{task.index}", source[: cursor - 1] + source[cursor:] if cursor else source + " ", cursor)
        await service.idle()
    start = time.perf_counter()
    await service.suggest("bench", p.Suggest(type="suggest", ref=ref, cell_id=f"c{task.index}", cursor=task.cursor,
                                             trigger=trigger))
    done = time.perf_counter()
    gen = service.last_gen
    await service.idle()  # the whole prompt read after a cold start: not on the next variant's time
    await service.close()
    text = str(outbox.done.get(ref, {}).get("text", ""))
    first = outbox.first_text.get(ref)
    read = gen.prompt_tokens - gen.reused_tokens if gen is not None else 0
    return Sample(score(task, text, (done - start) * 1000, read), None if first is None else (first - start) * 1000,
                  (done - start) * 1000, read, gen.prompt_tokens if gen is not None else 0,
                  bool(getattr(service, "last_searched_again", False)))


def _p50_p95(values: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(values) or [0.0]
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _firsts(samples: Sequence[Sample]) -> list[float]:
    return [s.first_ms for s in samples if s.first_ms is not None]


def table(samples: dict[str, list[Sample]], target: float) -> str:
    """Latency and quality per variant, with ratios against the first (the baseline)."""
    base = next(iter(samples.values()))
    b50, b95 = _p50_p95(_firsts(base))
    lines = [f"| variant | first text p50 / p95 ms | ratio p50 / p95 | whole p50 / p95 ms | read p50 / p95 tokens "
             f"| exact | empty | char sim | searched again | first text p50 / p95, one search | p95 <= {target:.0f} |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, got in samples.items():
        f50, f95 = _p50_p95(_firsts(got))
        d50, d95 = _p50_p95([s.done_ms for s in got])
        r50, r95 = _p50_p95([s.read for s in got])
        n = max(1, len(got))
        exact = sum(s.result.exact for s in got) / n
        empty = sum(s.result.empty for s in got) / n
        sim = sum(s.result.similarity for s in got) / n
        again = sum(s.again for s in got) / n
        o50, o95 = _p50_p95(_firsts([s for s in got if not s.again]))
        label = f"default (cold {coldstart.BUDGET})" if name == BASELINE else name
        lines.append(f"| {label} | {f50:.0f} / {f95:.0f} | {f50 / max(1e-9, b50):.2f} / {f95 / max(1e-9, b95):.2f} "
                     f"| {d50:.0f} / {d95:.0f} | {r50:.0f} / {r95:.0f} | {exact:.1%} | {empty:.1%} | {sim:.3f} "
                     f"| {again:.1%} | {o50:.0f} / {o95:.0f} | {'met' if f95 <= target else 'not met'} |")
    return "\n".join(lines)


async def run(names: Sequence[str], split: str, stride: int, limit: int | None, debounced: bool,
              trigger: Literal["auto", "forced"] = "forced", target: float = 60) -> int:
    tasks = notebook_tasks(load_notebooks(packaged_split(split)))[::stride]
    if limit:
        tasks = tasks[:limit]
    variants = {name: VARIANTS[name] for name in names}
    registries: dict[int | None, ModelRegistry] = {}
    stores: dict[str, SettingsStore] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k, (name, variant) in enumerate(variants.items()):
            if variant.n_ctx not in registries:
                registry = registries[variant.n_ctx] = (ModelRegistry() if variant.n_ctx is None
                                                        else ModelRegistry(_factory(variant.n_ctx)))
                if await registry.ensure("default") is None:
                    print(f"cannot load the model: {registry.status.message}")
                    return 1
            store = stores[name] = SettingsStore(Path(tmp) / f"settings-{k}.json")
            store.current = dataclasses.replace(CompletionSettings(), **variant.settings)
        line_memory()  # read once per server, at its start
        some = next(iter(registries.values())).backend
        assert some is not None
        print(f"{date.today()}: {len(tasks)} tasks of the {split} split (every {stride}th), "
              f"{'debounced (prompt read before the request)' if debounced else 'cold (KV cache empty)'}, "
              f"{trigger} requests; model "
              f"{Path(some.info.path).name}, trained n_ctx {some.info.n_ctx}; defaults: context_tokens "
              f"{CompletionSettings().context_tokens}, beam {CompletionSettings().beam_width} within "
              f"{CompletionSettings().search_ms} ms, max_new_tokens {CompletionSettings().max_new_tokens}", flush=True)
        samples: dict[str, list[Sample]] = {name: [] for name in variants}
        order = list(variants)
        await ask(registries[variants[order[0]].n_ctx], stores[order[0]], variants[order[0]], tasks[0], "warm-up",
                  debounced, trigger)
        for k, task in enumerate(tasks):
            for name in order[k % len(order):] + order[: k % len(order)]:
                variant = variants[name]
                samples[name].append(await ask(registries[variant.n_ctx], stores[name], variant, task, f"{k}",
                                               debounced, trigger))
            if (k + 1) % 50 == 0:
                print(f"  {k + 1} / {len(tasks)}", flush=True)
        for registry in registries.values():
            await registry.close()
    print(table(samples, target))
    return 0


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="ghostbook bench completion --cold", description=__doc__)
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--split", choices=["test", "validation", "unseen-test"], default="test")
    parser.add_argument("--stride", type=int, default=2, help="every Nth task")
    parser.add_argument("--limit", type=int, default=None, help="at most N tasks")
    parser.add_argument("--variants", nargs="+", default=[BASELINE, "cold 256", "cell first 128"],
                        choices=list(VARIANTS), metavar="NAME",
                        help=f"the first is the baseline; of: {'; '.join(VARIANTS)}")
    parser.add_argument("--trigger", choices=["forced", "auto"], default="forced",
                        help="forced: as Ctrl+Space (the default); auto: as after a pause in typing")
    parser.add_argument("--debounced", action="store_true",
                        help="each request after the editor's debounce (its prompt read first), not cold")
    args = parser.parse_args(argv)
    return asyncio.run(run(args.variants, args.split, args.stride, args.limit, args.debounced, args.trigger))
