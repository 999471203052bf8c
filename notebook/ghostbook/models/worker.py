"""What every in-process backend shares: its generation runs in a worker thread and streams tokens to
the event loop."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable, Sequence

from ghostbook.models.backend import Emit, GenStats, Search, TokenOut

WAKE_S = 0.004  # the longest a generated token waits before the event loop hears of it
EAGER = 4  # the first tokens wake it at once (the first text may need a few: a healed or blank start)


async def threaded_stream(generate: Callable[[Callable[[], bool], Emit], GenStats], cancel: threading.Event,
                          on_stats: Callable[[GenStats], None]) -> AsyncGenerator[TokenOut, None]:
    """Run `generate(cancelled, emit)` in a worker thread and yield what it emits.

    Tokens pass through a deque; the worker wakes the event loop for the first `EAGER` tokens, the
    end, and then at most every WAKE_S (each wake-up costs a thread switch on a small, busy CPU). Once
    `cancel` is set, tokens already queued are dropped and the worker stops at its next check.
    """
    loop = asyncio.get_running_loop()
    pending: deque[TokenOut | GenStats | BaseException] = deque()
    ready = asyncio.Event()
    closed = threading.Event()
    last_wake = [0.0]
    eager = [EAGER]

    def emit(item: TokenOut | GenStats | BaseException) -> None:
        pending.append(item)
        now = time.perf_counter()
        eager[0] -= 1
        if not isinstance(item, TokenOut) or eager[0] >= 0 or now - last_wake[0] >= WAKE_S:
            last_wake[0] = now
            try:
                loop.call_soon_threadsafe(ready.set)
            except RuntimeError:  # the loop is gone
                closed.set()

    def work() -> None:
        try:
            emit(generate(lambda: cancel.is_set() or closed.is_set(), emit))
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            emit(exc)

    loop.run_in_executor(None, work)
    try:
        while True:
            await ready.wait()
            ready.clear()
            while pending:
                item = pending.popleft()
                if isinstance(item, GenStats):
                    on_stats(item)
                    return
                if isinstance(item, BaseException):
                    raise item
                if not cancel.is_set():
                    yield item
    finally:
        closed.set()


class ThreadedGeneration:
    """`stream` for a backend whose blocking `generate` runs in a worker thread (see threaded_stream)."""

    last_stats: GenStats

    def generate(self, prompt_ids: Sequence[int], search: Search, cancelled: Callable[[], bool],
                 emit: Emit) -> GenStats:
        raise NotImplementedError

    def stream(self, prompt_ids: Sequence[int], search: Search,
               cancel: threading.Event) -> AsyncGenerator[TokenOut, None]:
        def on_stats(stats: GenStats) -> None:
            self.last_stats = stats

        return threaded_stream(lambda cancelled, emit: self.generate(prompt_ids, search, cancelled, emit), cancel,
                               on_stats)


def counted(emit: Emit, stats: GenStats) -> Emit:
    """`emit` that counts the tokens in `stats.generated`."""

    def emit_counted(token: TokenOut) -> None:
        stats.generated += 1
        emit(token)

    return emit_counted
