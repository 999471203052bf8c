"""What every in-process backend shares: the greedy loop with the healing constraint, and streaming
its tokens from a worker thread to the event loop."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable, Collection, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ghostbook.completion.healing import TokenIndex
from ghostbook.models.backend import GenParams, GenStats, TokenOut
from ghostbook.models.beam import LEAD, LINE_BUDGET, beam_line, goes_on

if TYPE_CHECKING:
    from ghostbook.completion.reading import ReadCheck, Reader

WAKE_S = 0.004  # the longest a generated token waits before the event loop hears of it

Emit = Callable[[TokenOut], None]


def common_prefix(cached: Sequence[int], wanted: Sequence[int]) -> int:
    """How many leading tokens two sequences share (at most len(wanted) - 1: the last is always run)."""
    n = 0
    for a, b in zip(cached, wanted, strict=False):
        if a != b:
            break
        n += 1
    return min(n, len(wanted) - 1)


def greedy(logits: Callable[[], Any], step: Callable[[int], None], params: GenParams, index: TokenIndex,
           special: Collection[int], cancelled: Callable[[], bool], emit: Emit, stats: GenStats) -> None:
    """Pick the best token (among those spelling `params.heal` while it lasts), emit, feed it back."""
    required = params.heal
    for n in range(params.max_new_tokens):
        if cancelled():
            stats.cancelled = True
            return
        scores = np.asarray(logits())
        allowed = index.allowed(required) if required else []
        if allowed:
            token = allowed[int(np.argmax(scores[allowed]))]
            required = index.advance(required, index.pieces[token])
        else:
            required = b""
            token = int(np.argmax(scores))
        if token in params.stop_ids or token in special:
            return
        stats.generated += 1
        emit(TokenOut(token, index.pieces[token]))
        if n + 1 < params.max_new_tokens and not cancelled():
            step(token)


def beam_first_line(seek: Callable[[Sequence[int]], Any], params: GenParams, index: TokenIndex,
                    special: Collection[int], cancelled: Callable[[], bool], emit: Emit,
                    stats: GenStats, reader: Reader | None = None) -> GenParams | None:
    """Emit the first line a beam of `params.beam` finds (`seek(tokens)`: the logits after the prompt
    and `tokens`; with a `reader` and `params.reading`, its best lines ranked by the read check), and
    with `params.lines` each further line (`beam_lines`). Returns the params for `greedy` to go on
    after that (the model is left just after the emitted tokens), or None when there is nothing more to
    generate (end of text, budget, cancelled)."""
    budget = min(params.max_new_tokens, LINE_BUDGET)
    line = beam_line(seek, index, special, params.beam, budget, params.heal, params.stop_ids,
                     allow_empty=not params.blank_line, avoid=params.avoid, indent=params.indent,
                     fits=params.syntax.fits if params.syntax else None, rank=_ranker(params.reading, reader),
                     cancelled=cancelled)
    if line is None:
        stats.cancelled = True
        return None
    if params.lines is not None and line and _whole_line(line, index, budget) is not None:
        return beam_lines(seek, params, index, special, cancelled, emit, stats, reader, line, budget)
    _emit(line, index, emit, stats)
    text = b"".join(index.pieces[t] for t in line)
    if cancelled() or not goes_on(line, text[len(params.heal):], budget, params.max_new_tokens, False):
        return None
    seek(line)
    return replace(params, max_new_tokens=params.max_new_tokens - len(line), heal=b"", beam=1)


def beam_lines(seek: Callable[[Sequence[int]], Any], params: GenParams, index: TokenIndex,
               special: Collection[int], cancelled: Callable[[], bool], emit: Emit, stats: GenStats,
               reader: Reader | None, line: list[int], budget: int) -> GenParams | None:
    """Line-by-line decoding after the beam's first `line` (found within `budget` tokens): emit a whole
    line without its newline token, then let a beam find what follows it under `params.lines`' rules
    made there: the end (`beam_line`'s `stop`) or a line that starts with a newline, ranked alike;
    repeat. A line the model ended (end of text) goes on the same way: whether more follows is the next
    search's to decide, with the end's cost (`models.beam.END_COST`). Returns params for `greedy` where
    a line was left open by the beam's budget, else None."""
    assert params.lines is not None
    done: list[int] = []  # tokens emitted
    while (head := _whole_line(line, index, budget)) is not None:
        _emit(line[:head], index, emit, stats)
        done += line[:head]
        left = params.max_new_tokens - len(done)
        if left <= 1 or cancelled():
            return None
        rules = params.lines.after(b"".join(index.pieces[t] for t in done))
        budget = min(left, LINE_BUDGET)
        found = beam_line(partial(_after, seek, tuple(done)), index, special, params.beam, budget, LEAD,
                          params.stop_ids, allow_empty=False, avoid=rules.avoid, indent=rules.indent,
                          fits=rules.syntax.fits if rules.syntax else None, rank=_ranker(rules.reading, reader),
                          stop=True, cancelled=cancelled)
        if found is None:
            stats.cancelled = True
            return None
        if not found:  # the end won
            return None
        line = found
    # the budget cut the line open (greedy goes on), or its tokenizer glues text to the newline
    _emit(line, index, emit, stats)
    done += line
    if cancelled() or len(done) >= params.max_new_tokens:
        return None
    seek(done)
    return replace(params, max_new_tokens=params.max_new_tokens - len(done), heal=b"", beam=1)


def _after(seek: Callable[[Sequence[int]], Any], done: Sequence[int], tokens: Sequence[int]) -> Any:
    return seek([*done, *tokens])


def _ranker(reading: ReadCheck | None, reader: Reader | None) -> Callable[[Sequence[bytes]], list[float]] | None:
    if reading is None or reader is None:
        return None
    return lambda lines: reading.scores(reader, lines)


def _whole_line(line: Sequence[int], index: TokenIndex, budget: int) -> int | None:
    """Where a beam's `line` (found within `budget` tokens) ends as a whole line: before its last token
    if that is only a newline and spaces, at its end if the model ended it (no newline, within the
    budget); None if the budget cut it open or its last token glues text to a newline."""
    if not line:
        return None
    piece = index.pieces[line[-1]]
    if b"\n" in piece:
        return len(line) - 1 if not piece.strip() else None
    return len(line) if len(line) < budget else None


def _emit(tokens: Sequence[int], index: TokenIndex, emit: Emit, stats: GenStats) -> None:
    for token in tokens:
        stats.generated += 1
        emit(TokenOut(token, index.pieces[token]))


def decode(seek: Callable[[Sequence[int]], Any], logits: Callable[[], Any], step: Callable[[int], None],
           params: GenParams, index: TokenIndex, special: Collection[int], cancelled: Callable[[], bool],
           emit: Emit, stats: GenStats, reader: Reader | None = None) -> None:
    """What every in-process backend runs after the prompt: with `params.beam` > 1 the first line from
    `beam_first_line` (over `seek`; `reader` for the read check), then `greedy` (over `logits` and
    `step`) for the rest."""
    if params.beam > 1:
        after = beam_first_line(seek, params, index, special, cancelled, emit, stats, reader)
        if after is None:
            return
        params = after
    greedy(logits, step, params, index, special, cancelled, emit, stats)


async def threaded_stream(generate: Callable[[Callable[[], bool], Emit], GenStats], cancel: threading.Event,
                          on_stats: Callable[[GenStats], None]) -> AsyncGenerator[TokenOut, None]:
    """Run `generate(cancelled, emit)` in a worker thread and yield what it emits.

    Tokens pass through a deque; the worker wakes the event loop for the first token, the end, and
    then at most every WAKE_S (each wake-up costs a thread switch on a small, busy CPU). Once `cancel`
    is set, tokens already queued are dropped and the worker stops at its next check.
    """
    loop = asyncio.get_running_loop()
    pending: deque[TokenOut | GenStats | BaseException] = deque()
    ready = asyncio.Event()
    closed = threading.Event()
    last_wake = [0.0]

    def emit(item: TokenOut | GenStats | BaseException) -> None:
        pending.append(item)
        now = time.perf_counter()
        if not isinstance(item, TokenOut) or now - last_wake[0] >= WAKE_S:
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

    def generate(self, prompt_ids: Sequence[int], params: GenParams, cancelled: Callable[[], bool],
                 emit: Emit) -> GenStats:
        raise NotImplementedError

    def stream(self, prompt_ids: Sequence[int], params: GenParams,
               cancel: threading.Event) -> AsyncGenerator[TokenOut, None]:
        def on_stats(stats: GenStats) -> None:
            self.last_stats = stats

        return threaded_stream(lambda cancelled, emit: self.generate(prompt_ids, params, cancelled, emit), cancel,
                               on_stats)
