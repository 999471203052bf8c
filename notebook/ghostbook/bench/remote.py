"""`ghostbook bench completion --remote`: the same requests through the in-process llama.cpp backend
and through an `openai:` server running the same GGUF (llama-cpp-python's `llama_cpp.server`, started
here on loopback unless `--remote-url` names one), both greedy, same context and token limit. Prints
request time (p50/p95), time to the first text, and ms per streamed token, with the remote/in-process
ratios: what a shared server costs over HTTP on one machine (on a real network, add its round trip).
"""

from __future__ import annotations

import asyncio
import functools
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from ghostbook import protocol as p
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.models.loader import ModelRegistry


class Outbox:
    """When each request's first text and its end were sent."""

    def __init__(self) -> None:
        self.first_text: dict[str, float] = {}

    def send(self, client: str, event: p.ServerEvent) -> None:
        message = event.model_dump()
        if message["type"] == "suggestion" and message.get("text") and message["ref"] not in self.first_text:
            self.first_text[str(message["ref"])] = time.perf_counter()


async def timed(service: CompletionService, ref: str, cell: str, cursor: int) -> float:
    start = time.perf_counter()
    await service.suggest("bench", p.Suggest(type="suggest", ref=ref, cell_id=cell, cursor=cursor, trigger="forced"))
    return (time.perf_counter() - start) * 1000


def _p50_p95(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def llama_server(model: Path, n_ctx: int, threads: int) -> Iterator[str]:
    """`python -m llama_cpp.server` with `model` on a free loopback port (its URL)."""
    port = _free_port()
    log = tempfile.TemporaryFile()  # not a pipe: a full pipe would stop the server mid-request
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
                                "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
                                "--n_threads_batch", str(threads)], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                err = log.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"llama_cpp.server did not start (needs llama-cpp-python[server]):\n{err}")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


async def _requests(setting: str, family: str, cases: list, max_new: int, context: int) -> dict[str, list[float]]:
    """Each case asked twice (cold, then again with the suggestion cache cleared: the KV prefix warm)."""
    with tempfile.TemporaryDirectory() as tmp:
        store = SettingsStore(Path(tmp) / "settings.json")
        store.update({"model": setting, "max_new_tokens": max_new, "context_tokens": context, "beam_width": 1,
                      "read_check": False, "remote_fim": family or "suffix"})
        registry = ModelRegistry()
        registry.configure_remote(store.current.api_key, store.current.remote_fim)
        if await registry.ensure(setting) is None:
            raise RuntimeError(f"cannot load {setting}: {registry.status.message}")
        out: dict[str, list[float]] = {"total": [], "first": [], "per_token": []}
        for k, (cells, index, cursor, _) in enumerate(cases):
            outbox = Outbox()
            service = CompletionService(functools.partial(list, cells), outbox.send, lambda m: None, None, registry,
                                        store)
            for r in range(2):
                service.cache.clear()
                ref = f"{k}-{r}"
                start = time.perf_counter()
                took = await timed(service, ref, cells[index].id, cursor)
                out["total"].append(took)
                if ref in outbox.first_text:
                    out["first"].append((outbox.first_text[ref] - start) * 1000)
                gen = service.last_gen
                if gen is not None and gen.generated:
                    out["per_token"].append(gen.total_ms / gen.generated)
            await service.close()
        await registry.close()
        return out


async def compare(model: str, cases: list, max_new: int, context: int, url: str | None) -> int:
    registry = ModelRegistry()
    backend = await registry.ensure(model)
    if backend is None:
        print(f"cannot load the model: {registry.status.message}")
        return 1
    path, family, n_ctx = Path(backend.info.path), backend.info.family, backend.info.n_ctx
    await registry.close()
    context = min(context, n_ctx - max_new - 8)  # the server gets the model's context too: same prompts
    threads = max(1, min(4, (os.cpu_count() or 2) // 2))
    local = await _requests(model, family, cases, max_new, context)
    if url is None:
        with llama_server(path, n_ctx, threads) as started:
            remote = await _requests(f"openai:{started}", family, cases, max_new, context)
            where = f"llama_cpp.server on loopback ({started})"
    else:
        remote = await _requests(f"openai:{url}", family, cases, max_new, context)
        where = url
    print(f"\nremote (openai: {where}, FIM template '{family}') vs in-process llama.cpp, same GGUF, greedy, "
          f"{len(cases)} cases x 2 requests")
    print(f"{'':<26} {'in-process p50/p95':>20} {'remote p50/p95':>20} {'ratio p50':>10}")
    for key, label in (("total", "request (ms)"), ("first", "first text (ms)"), ("per_token", "ms per token")):
        if local[key] and remote[key]:
            lp, remote_p = _p50_p95(local[key]), _p50_p95(remote[key])
            print(f"{label:<26} {lp[0]:>9.1f} / {lp[1]:>8.1f} {remote_p[0]:>9.1f} / {remote_p[1]:>8.1f} "
                  f"{remote_p[0] / max(1e-9, lp[0]):>9.2f}x")
    return 0


def main(model: str, cases: list, max_new: int, context: int, url: str | None) -> int:
    """`cases`: (cells, cursor's cell, cursor, ...) as `bench.completion.notebook_cases` makes them."""
    return asyncio.run(compare(model, cases, max_new, context, url))
