"""`ghostbook bench completion`: the completion server path against a bare llama-cpp-python call.

On the same prompts, in one run: a cold request (empty KV cache), the request after adding one line
(KV prefix reuse), a typed-through request (expects 0 model calls), and the server's overhead over a
bare `Llama.generate` of the same prompt ids for the same number of tokens (all greedy). Then the
default decoding (the settings' defaults) against greedy and the widest search (beam + read check, no
time limit), side by side, cold and warm: time to the first text and to the whole suggestion, how soon a
keystroke frees the model, and with `--humaneval`, exact match through the service. Prints tables and
ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import statistics
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ghostbook import protocol as p
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import CompletionSettings, SettingsStore
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.loader import ModelRegistry

FILES = ["textwrap.py", "string.py", "fnmatch.py", "bisect.py", "heapq.py", "shlex.py", "glob.py", "calendar.py",
         "difflib.py", "colorsys.py", "csv.py", "json/encoder.py", "json/decoder.py", "base64.py"]


@dataclass
class Cell:
    id: str
    cell_type: str
    source: str


def notebook_cases(n: int) -> list[tuple[list[Cell], int, int, str]]:
    """(cells, index of the cursor's cell, cursor, the rest of the cursor's line, cut away) from stdlib
    files cut into cells at top-level statements."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    cases: list[tuple[list[Cell], int, int, str]] = []
    for k, name in enumerate(FILES * 3):
        if len(cases) >= n:
            break
        text = (stdlib / name).read_text()
        chunks: list[str] = []
        current: list[str] = []
        for line in text.splitlines():
            if line and not line[0].isspace() and current and not current[-1].strip() and len(current) > 6:
                chunks.append("\n".join(current).strip("\n"))
                current = []
            current.append(line)
        chunks = [c for c in chunks if c.count("\n") >= 4][: 8 + k % 5]
        if len(chunks) < 4:
            continue
        index = len(chunks) - 2 - (k % 2)
        lines = chunks[index].split("\n")
        row = min(len(lines) - 1, 2 + k % max(1, len(lines) - 2))
        line = lines[row]
        indent = len(line) - len(line.lstrip())
        col = indent + (len(line.strip()) // 2 if k % 3 else 0)
        cursor = sum(len(x) + 1 for x in lines[:row]) + col
        cells = [Cell(f"c{i}", "code", c) for i, c in enumerate(chunks)]
        cells[index] = Cell(f"c{index}", "code", chunks[index][:cursor] + "\n" + chunks[index][cursor:].split(
            "\n", 1)[-1] if "\n" in chunks[index][cursor:] else chunks[index][:cursor])
        cases.append((cells, index, cursor, chunks[index][cursor:].split("\n", 1)[0]))
    return cases


class Outbox:
    def __init__(self) -> None:
        self.done: dict[str, dict[str, object]] = {}
        self.first_text: dict[str, float] = {}  # when each request's first text (or its empty answer) was sent

    def send(self, client: str, event: p.ServerEvent) -> None:
        message = event.model_dump()
        if message["type"] != "suggestion":
            return
        ref = str(message["ref"])
        if (message.get("text") or message["done"]) and ref not in self.first_text:
            self.first_text[ref] = time.perf_counter()
        if message["done"]:
            self.done[ref] = message


async def timed(service: CompletionService, ref: str, cell: str, cursor: int,
                trigger: Literal["auto", "forced"] = "forced") -> float:
    start = time.perf_counter()
    await service.suggest("bench", p.Suggest(type="suggest", ref=ref, cell_id=cell, cursor=cursor, trigger=trigger))
    return (time.perf_counter() - start) * 1000


async def typing_session(service: CompletionService, outbox: Outbox, cell: Cell, cursor: int, future: str,
                         latencies: list[float]) -> tuple[int, int, int, int]:
    """Type `future` at `cursor` one character at a time, like a user: an automatic request after a
    pause (here: every third character, or after a space or punctuation); typed characters that match
    the ghost text consume it without a request.
    Returns (characters typed, characters the ghost text predicted, requests, model calls)."""
    ghost, since, predicted = "", 0, 0
    requests, calls = service.stats.requests, service.stats.model_calls
    for i, ch in enumerate(future):
        cell.source = cell.source[:cursor + i] + ch + cell.source[cursor + i:]
        if ghost.startswith(ch):
            ghost, predicted = ghost[1:], predicted + 1
            continue
        ghost, since = "", since + 1
        if since >= 3 or ch in " .(,=[":
            since = 0
            ref = f"t{id(cell)}-{i}"
            latencies.append(await timed(service, ref, cell.id, cursor + i + 1, "auto"))
            ghost = str(outbox.done.get(ref, {}).get("text", ""))
    return len(future), predicted, service.stats.requests - requests, service.stats.model_calls - calls


def bare(backend: LlamaCppBackend, prompt: list[int], n: int) -> float:
    """A bare llama-cpp-python greedy generate of `n` tokens from `prompt` (cold), in ms."""
    llm = backend._llm
    backend.forget()
    start = time.perf_counter()
    for i, _ in enumerate(llm.generate(prompt, top_k=1, temp=0.0, repeat_penalty=1.0)):
        if i + 1 >= n:
            break
    took = (time.perf_counter() - start) * 1000
    backend.forget()  # the backend's own bookkeeping of its KV-cache sequences knows nothing of this run
    return took


async def humaneval(registry: ModelRegistry, store: SettingsStore, stride: int,
                    warm: bool = False) -> tuple[int, int, list[float]]:
    """HumanEval single-line infilling through the whole completion service (context, healing, filters):
    (tasks, exact first lines, latencies). Each task is a one-cell notebook, cursor at the masked line;
    `warm`: the same request once before (its prompt in the KV cache, as while typing in a cell)."""
    from ghostbook.eval.tasks import humaneval_single_line

    tasks = humaneval_single_line()[::stride]
    exact, latencies = 0, []
    for k, task in enumerate(tasks):
        outbox = Outbox()
        cells = [Cell("c", "code", task.prefix + task.suffix)]
        service = CompletionService(functools.partial(list, cells), outbox.send, lambda m: None, None, registry,
                                    store)
        if warm:
            await timed(service, f"w{k}", "c", len(task.prefix))
            service.cache.clear()
        latencies.append(await timed(service, f"h{k}", "c", len(task.prefix)))
        text = str(outbox.done[f"h{k}"]["text"])
        exact += text.split("\n")[0].strip() == task.middle.strip()
        await service.close()
    return len(tasks), exact, latencies


def row(name: str, values: list[float]) -> str:
    if not values:
        return f"{name:<28} {'n/a':>9}"
    q = statistics.quantiles(values, n=20) if len(values) > 1 else [values[0]] * 19
    return f"{name:<28} {statistics.median(values):9.1f} {q[18]:9.1f} {statistics.fmean(values):9.1f} {len(values):5d}"


async def cold_and_warm(registry: ModelRegistry, store: SettingsStore, cases: list,
                        label: str = "") -> dict[str, list[float]]:
    """Each case with the current settings cold (empty KV cache: a cold start), warm (one more line typed
    above the cursor after the last suggestion: the prompt's start is in the KV cache) and prefilled (empty
    KV cache, then the cursor's last character typed: the server reads the prompt while the editor's
    debounce runs, and the request follows once it is done): ms until the first text and the whole
    suggestion."""
    got: dict[str, list[float]] = {f"{kind}{part}": [] for kind in ("cold", "warm", "prefilled")
                                   for part in (" first", "")}
    for k, (cells, index, cursor, _) in enumerate(cases):
        outbox = Outbox()
        service = CompletionService(functools.partial(list, cells), outbox.send, lambda m: None, None,
                                    registry, store)
        backend = registry.backend
        assert backend is not None
        for kind in ("cold", "warm", "prefilled"):
            cell, src = cells[index], cells[index].source
            at = cursor
            await service.idle()  # what the last request left to read in the background (a user types longer)
            if kind != "warm":
                backend.forget()
            if kind == "prefilled":
                service.edited(cell.id, src[: cursor - 1] + src[cursor:] if cursor else src + " ", cursor)
                await service.idle()
            elif kind == "warm":
                cell.source = src[:cursor] + "x = 1\n" + src[cursor:]
                at = cursor + 6
            ref = f"{k}{kind}{label}"
            start = time.perf_counter()
            got[kind].append(await timed(service, ref, cell.id, at))
            if ref in outbox.first_text:
                got[f"{kind} first"].append((outbox.first_text[ref] - start) * 1000)
            service.cache.clear()
            cell.source = src
        await service.close()
    return got


# Issue #15's server targets: the default's first text, p95 ms (cold: nothing cached; warm: one more line)
TARGETS = {"cold first": 60, "warm first": 25}

# The decode plans `--plans` compares (docs/benchmarks.md, "Decode plans"): settings for each.
PLANS: dict[str, dict[str, object]] = {
    "greedy": {"beam_width": 1, "read_check": False, "search_ms": 0},
    "beam 2": {"beam_width": 2, "read_check": False, "search_ms": 0},
    "beam 4": {"beam_width": 4, "read_check": False, "search_ms": 0},
    "beam 4 + read check": {"beam_width": 4, "read_check": True, "search_ms": 0},
    "beam 8": {"beam_width": 8, "read_check": False, "search_ms": 0},
    "beam 8 + read check": {"beam_width": 8, "read_check": True, "search_ms": 0},
    "beam 4 within 15 ms": {"beam_width": 4, "read_check": False, "search_ms": 15},
    "beam 8 within 15 ms": {"beam_width": 8, "read_check": False, "search_ms": 15},
    "beam 8 within 30 ms": {"beam_width": 8, "read_check": False, "search_ms": 30},
}


async def plans(registry: ModelRegistry, store: SettingsStore, cases: list, humaneval_stride: int) -> None:
    """For each of `PLANS`: server first text p50 / p95 cold and warm and, with `humaneval_stride`,
    HumanEval exact match through the service, cold and warm (a time budget buys more when warm). The
    notebook benchmark's columns come from `ghostbook eval default --tasks notebook --split validation`
    with the same settings."""
    print(f"\n{'plan':<24}{'cold first':>16}{'warm first':>16}{'HumanEval cold':>16}{'warm':>8}")
    for label, settings in PLANS.items():
        store.update(settings)
        got = await cold_and_warm(registry, store, cases, label)
        cols = [_p50_p95(got["cold first"]), _p50_p95(got["warm first"])]
        line = f"{label:<24}" + "".join(f"{p50:8.0f} /{p95:6.0f}" for p50, p95 in cols)
        if humaneval_stride:
            scores = [await humaneval(registry, store, humaneval_stride, warm) for warm in (False, True)]
            line += "".join(f"{exact / max(1, total):>12.1%}" for total, exact, _ in scores)
        print(line, flush=True)


async def beam_versus_greedy(registry: ModelRegistry, store: SettingsStore, cases: list, beam: int,
                             humaneval_stride: int) -> None:
    """The default decoding (the settings' defaults: a beam with its time budget) against greedy and
    against the widest search the settings offer (a beam of `beam` with its read check, no time limit),
    side by side: cold requests (empty KV cache) and warm ones (one more line typed, the KV cache holds
    the rest), until the first text is sent (the first line, streamed the moment it is chosen) and
    until the whole suggestion; then how soon a newer keystroke frees the model (cancel), and with
    `humaneval_stride`, HumanEval exact match too."""
    defaults = CompletionSettings()
    configs = {"greedy": {"beam_width": 1, "read_check": False, "search_ms": 0},
               "wide": {"beam_width": beam, "read_check": True, "search_ms": 0},
               "default": {"beam_width": defaults.beam_width, "read_check": defaults.read_check,
                           "search_ms": defaults.search_ms}}
    rows: dict[str, dict[str, list[float]]] = {}
    scores: dict[str, tuple[int, int]] = {}
    for label, settings in configs.items():
        store.update(settings)
        got = await cold_and_warm(registry, store, cases, label)
        rows[label] = got
        if label != "greedy":
            got["cancel"] = await cancel_latency(registry, store, cases[:10])
        if humaneval_stride:
            total, exact, _ = await humaneval(registry, store, humaneval_stride)
            scores[label] = (exact, total)
    print(f"\ndefault (beam {defaults.beam_width}, read check {'on' if defaults.read_check else 'off'}, search "
          f"{defaults.search_ms} ms) vs greedy vs wide (beam {beam} + read check, no time limit), "
          f"request ms (p50 / p95), {len(cases)} cases")
    print(f"  {'':<30}{'greedy':>17}{'wide':>17}{'default':>17}{'default/greedy':>17}{'target (p95)':>14}")
    for name in ("cold first", "cold", "warm first", "warm", "prefilled first", "prefilled"):
        if not all(rows[c][name] for c in configs):
            continue
        cols = [_p50_p95(rows[c][name]) for c in configs]
        (g50, g95), (d50, d95) = cols[0], cols[2]
        label = {"cold first": "cold, first text", "cold": "cold, whole", "warm first": "warm, first text",
                 "warm": "warm, whole", "prefilled first": "after prefill, first text",
                 "prefilled": "after prefill, whole"}[name]
        target = TARGETS.get(name)
        print(f"  {label:<30}" + "".join(f"{p50:8.1f} /{p95:7.1f}" for p50, p95 in cols) +
              f"{d50 / max(1e-9, g50):9.2f} /{d95 / max(1e-9, g95):5.2f}" +
              (f"{'<= ' + str(target):>9} {'met' if d95 <= target else 'NOT met'}" if target else ""))
    for config in configs:
        cold, warm = statistics.median(rows[config]["cold"]), statistics.median(rows[config]["warm"])
        print(f"  {config:<8} warm / cold (whole, p50) {warm / max(1e-9, cold):.2f}")
    for config in ("wide", "default"):
        if rows[config].get("cancel"):
            c50, c95 = _p50_p95(rows[config]["cancel"])
            print(f"  {config:<8} cancel -> model free (ms) p50 {c50:.1f} / p95 {c95:.1f} / max "
                  f"{max(rows[config]['cancel']):.1f} ({len(rows[config]['cancel'])} keystrokes mid-request)")
    if scores:
        (ge, gt), (be, bt), (re_, rt) = (scores[c] for c in configs)
        print(f"  HumanEval exact match      greedy {ge / max(1, gt):8.1%}   wide {be / max(1, bt):8.1%}   "
              f"default {re_ / max(1, rt):8.1%}   ({ge} -> {be} -> {re_} of {gt})")


async def cancel_latency(registry: ModelRegistry, store: SettingsStore, cases: list,
                         delays: tuple[float, ...] = (0.002, 0.01, 0.03, 0.06)) -> list[float]:
    """How soon a newer keystroke frees the model: a request with the current settings runs in the
    backend's worker; after each of `delays` (s) its cancel flag is set (what a newer request for the
    same editor does), and the time until the worker returns is taken (ms). Cold and warm alike."""
    from ghostbook.completion.context import CellText, ContextBuilder
    from ghostbook.completion.prompt import make_prompt

    backend = registry.backend
    assert backend is not None
    settings = store.current
    builder = ContextBuilder(lambda text: len(backend.tokenize(text)))
    took: list[float] = []
    for k, (cells, index, cursor, _) in enumerate(cases):
        ctx = builder.build([CellText(c.cell_type, c.source) for c in cells], index, cursor,
                            min(settings.context_tokens, backend.info.n_ctx - settings.max_new_tokens - 8))
        prompt = make_prompt(backend, ctx, settings.max_new_tokens, settings.beam_width, settings.read_check,
                             search_ms=settings.search_ms)
        for delay in delays:
            if k % 2:
                backend.forget()
            flag = threading.Event()
            worker = asyncio.get_running_loop().run_in_executor(
                None, backend.generate, prompt.ids, prompt.plan, flag.is_set, lambda token: None)
            await asyncio.sleep(delay)
            start = time.perf_counter()
            flag.set()
            stats = await worker
            if stats.cancelled:  # else it had finished before the keystroke
                took.append((time.perf_counter() - start) * 1000)
    return took


def _p50_p95(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


async def run(model: str, n: int, max_new: int, context: int, repeat: int, layout: str | None,
              humaneval_stride: int, beam: int = 4, decoding_only: bool = False, plans_only: bool = False) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        store = SettingsStore(Path(tmp) / "settings.json")
        store.update({"model": model, "max_new_tokens": max_new, "context_tokens": context, "beam_width": 1})
        registry = ModelRegistry()
        backend = await registry.ensure(model)
        if not isinstance(backend, LlamaCppBackend):
            print(f"cannot load the model: {registry.status.message}")
            return 1
        if layout:
            backend.info = dataclasses.replace(backend.info, extra={**backend.info.extra, "layout": layout})
        info = backend.info
        print(f"model {info.path} ({info.family}, layout {info.extra.get('layout') or 'family default'}, vocab "
              f"{info.n_vocab}, n_ctx {info.n_ctx}); max_new_tokens {max_new}, context_tokens {context}, {n} cases")
        if plans_only:
            await plans(registry, store, notebook_cases(n), humaneval_stride)
            await registry.close()
            return 0
        if decoding_only:
            await beam_versus_greedy(registry, store, notebook_cases(n), beam, humaneval_stride)
            await registry.close()
            return 0
        cold, cold_prompt, bare_ms, line, line_cold, line_prompt, line_cold_prompt = [], [], [], [], [], [], []
        typed: list[float] = []
        typed_calls: list[int] = []
        reused: list[float] = []
        session_ms: list[float] = []
        session = [0, 0, 0, 0]  # characters typed, predicted, requests, model calls
        for k, (cells, index, cursor, future) in enumerate(notebook_cases(n)):
            outbox = Outbox()
            service = CompletionService(functools.partial(list, cells), outbox.send, lambda m: None, None, registry,
                                        store)
            cell = cells[index]
            original = cell.source
            runs: list[tuple[float, float, float]] = []
            for r in range(repeat + (k == 0)):  # the first case once more, as a warm-up
                service.cache.clear()
                await service.idle()
                backend.forget()
                server = await timed(service, f"{k}a{r}", cell.id, cursor)
                gen, prompt = service.last_gen, service.last_prompt
                assert gen is not None
                await service.idle()
                runs.append((server, gen.prompt_ms, bare(backend, prompt, max(1, gen.generated))))
            runs = runs[-repeat:]
            cold.append(min(x[0] for x in runs))  # the best of the runs: this machine may be busy
            cold_prompt.append(min(x[1] for x in runs))
            bare_ms.append(min(x[2] for x in runs))
            service.cache.clear()
            await timed(service, f"{k}w", cell.id, cursor)  # the KV cache now holds this cell's prompt again
            await service.idle()
            service.cache.clear()
            src = cell.source
            indent = src[src.rfind("\n", 0, cursor) + 1 : cursor]
            indent = indent[: len(indent) - len(indent.lstrip())]
            added = "value = compute(value)\n" + indent
            cell.source = src[:cursor] + added + src[cursor:]
            line.append(await timed(service, f"{k}b", cell.id, cursor + len(added)))
            gen = service.last_gen
            assert gen is not None
            line_prompt.append(gen.prompt_ms)
            reused.append(gen.reused_tokens / max(1, gen.prompt_tokens))
            service.cache.clear()
            await service.idle()
            backend.forget()  # the same request, cold (a cold start: a shorter prompt)
            line_cold.append(await timed(service, f"{k}x", cell.id, cursor + len(added)))
            assert service.last_gen is not None
            line_cold_prompt.append(service.last_gen.prompt_ms)
            await service.idle()
            text = str(outbox.done[f"{k}x"]["text"])  # the suggestion shown last (the cache holds it)
            if len(text) >= 2:
                typed_text = text[: max(1, min(3, len(text) - 1))]
                cell.source = cell.source[: cursor + len(added)] + typed_text + cell.source[cursor + len(added):]
                calls = service.stats.model_calls
                typed.append(await timed(service, f"{k}c", cell.id, cursor + len(added) + len(typed_text)))
                typed_calls.append(service.stats.model_calls - calls)
            cell.source = original  # a user typing the rest of the line: realistic, mostly warm requests
            result = await typing_session(service, outbox, cell, cursor, future, session_ms)
            session = [a + b for a, b in zip(session, result, strict=True)]
            await service.close()
        print(f"\n{'request (ms)':<28} {'p50':>9} {'p95':>9} {'mean':>9} {'n':>5}")
        for name, values in (("cold (server)", cold), ("cold (bare llama-cpp)", bare_ms),
                             ("cold prompt eval", cold_prompt), ("+1 line, warm KV (server)", line),
                             ("+1 line, cold KV (server)", line_cold), ("+1 line prompt eval, warm", line_prompt),
                             ("+1 line prompt eval, cold", line_cold_prompt), ("typed-through (server)", typed),
                             ("typing session (server)", session_ms)):
            print(row(name, values))
        print("\nratios")
        print(f"  server overhead (cold server / bare)       {sum(cold) / sum(bare_ms):.3f}x   goal <= 1.10x")
        print(f"  +1 line warm / same request cold (total)   {sum(line) / sum(line_cold):.3f}x   goal <= 0.25x")
        prompt_ratio = sum(line_prompt) / max(1e-9, sum(line_cold_prompt))
        print(f"  +1 line warm / cold (prompt eval only)     {prompt_ratio:.3f}x")
        print(f"  prompt tokens reused after +1 line         {statistics.fmean(reused):.1%}")
        print(f"  typed-through model calls                  {sum(typed_calls)} in {len(typed_calls)} requests"
              "   goal 0")
        print(f"  typing session: {session[0]} characters typed, {session[1]} predicted by ghost text "
              f"({session[1] / max(1, session[0]):.1%}), {session[2]} requests, {session[3]} model calls")
        if humaneval_stride:
            total, exact, latencies = await humaneval(registry, store, humaneval_stride)
            print(f"\nHumanEval single-line through the service (every {humaneval_stride}th task, greedy): exact "
                  f"match {exact / max(1, total):.1%} ({exact}/{total})")
            print(row("humaneval request (ms)", latencies))
        if beam > 1:
            await beam_versus_greedy(registry, store, notebook_cases(n), beam, humaneval_stride)
        await registry.close()
    return 0


def main(argv: list[str]) -> int:
    if "--cold" in argv:  # its own options (`--cold --help`)
        from ghostbook.bench import cold

        return cold.main(argv)
    parser = argparse.ArgumentParser(prog="ghostbook bench completion", description=__doc__)
    parser.add_argument("--model", default="default", help='"default" or a path to a .gguf file')
    parser.add_argument("--cases", type=int, default=12)
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--context-tokens", type=int, default=768)
    parser.add_argument("--layout", choices=["psm", "spm"], help="override the model's FIM layout")
    parser.add_argument("--repeat", type=int, default=5, help="cold runs per case (the fastest is kept)")
    parser.add_argument("--humaneval", type=int, default=0, metavar="STRIDE",
                        help="also score every STRIDE-th HumanEval single-line task through the service")
    parser.add_argument("--beam", type=int, default=8,
                        help="the wide search's beam width, compared with greedy and the default (1: skip)")
    parser.add_argument("--decoding", action="store_true",
                        help="only the default-vs-greedy, cold-vs-warm table")
    parser.add_argument("--plans", action="store_true",
                        help="only the decode plans table: first text cold/warm (and HumanEval) per plan")
    parser.add_argument("--cold", action="store_true",
                        help="only cold requests on the notebook test split, cold-start variants side by side with "
                             "their quality (options: --cold --help)")
    parser.add_argument("--remote", action="store_true",
                        help="only remote vs in-process: the same requests through an openai: server running the "
                             "same GGUF (llama_cpp.server started on loopback, or --remote-url)")
    parser.add_argument("--remote-url", help="an OpenAI-compatible server already running the same model")
    args = parser.parse_args(argv)
    if args.remote or args.remote_url:
        from ghostbook.bench import remote

        return remote.main(args.model, notebook_cases(args.cases), args.max_new_tokens, args.context_tokens,
                           args.remote_url)
    return asyncio.run(run(args.model, args.cases, args.max_new_tokens, args.context_tokens,
                           args.repeat, args.layout, args.humaneval, args.beam, args.decoding, args.plans))
