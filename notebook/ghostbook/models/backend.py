"""The small interface every completion backend implements (DESIGN §3).

A backend is loaded once (blocking; the loader runs it in a worker thread), then evaluates a prompt
given as token ids and hands a `Search` (the decoding, `ghostbook.decoding`) an `Evaluation`: the one
way decoding reaches a model (next-token logits for several continuations of the prompt at once, the
KV cache kept for what they share, and a plain-code `Reader` for log-probabilities). Errors and
progress travel as data (`ModelStatus`), never as crashes of the server.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

State = Literal["off", "downloading", "loading", "ready", "error"]


@dataclass(frozen=True)
class ModelStatus:
    """What the settings panel shows about the model (protocol `ModelStatus`)."""

    state: State
    name: str = ""
    path: str | None = None
    progress: float | None = None  # 0..1 while downloading or loading
    message: str | None = None
    bytes_done: int | None = None  # while downloading
    bytes_total: int | None = None
    # the setting of the model answering requests now, and its name: while another downloads or loads,
    # and after one failed, the one that served before (`loader.ModelRegistry`); None when none serves
    serving: str | None = None
    serving_name: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "name": self.name, "path": self.path, "progress": self.progress,
                "message": self.message, "bytes_done": self.bytes_done, "bytes_total": self.bytes_total,
                "serving": self.serving, "serving_name": self.serving_name}


@dataclass(frozen=True)
class TokenOut:
    id: int
    piece: bytes


@dataclass
class GenStats:
    """Counts and timings of one `stream` call (prompt tokens reused from the KV cache vs evaluated)."""

    prompt_tokens: int = 0
    reused_tokens: int = 0
    generated: int = 0
    prompt_ms: float = 0.0
    total_ms: float = 0.0
    cancelled: bool = False


@dataclass(frozen=True)
class BackendInfo:
    name: str
    path: str
    family: str
    n_ctx: int
    n_vocab: int
    extra: dict[str, Any] = field(default_factory=dict)


Emit = Callable[[TokenOut], None]


class Reader(Protocol):
    """Plain code read left to right (no FIM tokens): the read check's view of a model."""

    def tokenize(self, text: str) -> list[int]: ...

    def logprobs(self, ids: Sequence[int], start: int) -> np.ndarray:
        """log P(ids[i] | ids[:i]) for i >= start (0 < start < len(ids)), with no special tokens around."""

    def logprobs_many(self, items: Sequence[tuple[list[int], int]]) -> list[np.ndarray]:
        """`logprobs(ids, start)` of each item, evaluated together where the runtime can."""


class Evaluation(Protocol):
    """A prompt evaluated in a backend's context: what a search sees of the model."""

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        """Next-token logits after the prompt followed by each branch (token ids), one row per branch.
        The KV cache keeps what the branches share with each other and with earlier calls."""

    def reader(self) -> Reader | None:
        """The read check's reader (its own context, made at first use), or None if there is none."""

    def logits_along(self, branch: Sequence[int], n: int) -> np.ndarray:
        """`n` + 1 rows in one evaluation: the next-token logits after the prompt followed by
        `branch[:len(branch) - n + i]` for i in 0..n (a speculative draft's check, `decoding.speculative`)."""

    def drafts(self) -> Drafts | None:
        """What speculative decoding may draft from, or None where the backend's setting leaves it off."""


@dataclass(frozen=True, eq=False)
class Drafts:
    """For speculative decoding: the `prompt`'s token ids (prompt lookup drafts from them) and a small
    model's `Evaluation` of the same prompt (`model`, a draft model for transformers targets), if any."""

    prompt: Sequence[int]
    model: Evaluation | None = None


class Search(Protocol):
    """What runs once the prompt is evaluated (`ghostbook.decoding.DecodePlan`): it emits at most
    `max_new_tokens` tokens and stops between model calls once `cancelled()`."""

    @property
    def max_new_tokens(self) -> int: ...

    def run(self, model: Evaluation, vocab: Vocab, cancelled: Callable[[], bool], emit: Emit) -> None: ...


@dataclass(frozen=True, eq=False)
class Vocab:
    """Every token's bytes (special tokens: b"") and the special (control, end-of-generation) ids."""

    pieces: list[bytes]
    special: frozenset[int]


def common_prefix(cached: Sequence[int], wanted: Sequence[int]) -> int:
    """How many leading tokens two sequences share (at most len(wanted) - 1: the last is always run).
    Slices are compared (in C), halving the range where they differ: a prompt of hundreds of tokens
    is compared in microseconds, as often as a beam asks."""
    a = cached if isinstance(cached, list) else list(cached)
    b = wanted if isinstance(wanted, list) else list(wanted)
    n = min(len(a), len(b))
    if a[:n] != b[:n]:
        lo, hi = 0, n  # a[:lo] == b[:lo], a[:hi] != b[:hi]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if a[lo:mid] == b[lo:mid]:
                lo = mid
            else:
                hi = mid
        n = lo
    return min(n, len(b) - 1)


class Backend(Protocol):
    info: BackendInfo
    last_stats: GenStats
    vocab: Vocab

    def load(self) -> None:
        """Blocking: read the model. Raises ModelLoadError with a message for the user."""

    def unload(self) -> None: ...

    def forget(self) -> None:
        """Drop the KV cache, so the next prompt is evaluated from scratch (cold; for benchmarks)."""

    def tokenize(self, text: str) -> list[int]: ...

    def cached(self, prompt_ids: Sequence[int]) -> int:
        """How many leading tokens of `prompt_ids` the KV cache holds now (what `generate` would not
        evaluate again); 0 for a backend that keeps none."""

    def lookup(self, token_text: str) -> int | None:
        """The id of a vocabulary entry by its exact text (special tokens), or None."""

    def piece(self, token: int) -> bytes: ...

    def generate(self, prompt_ids: Sequence[int], search: Search, cancelled: Callable[[], bool],
                 emit: Emit) -> GenStats:
        """Blocking: evaluate the prompt (reusing the KV cache's common prefix), then run `search`."""

    def stream(self, prompt_ids: Sequence[int], search: Search,
               cancel: threading.Event) -> AsyncGenerator[TokenOut, None]:
        """`generate` in the backend's worker thread; stops between model calls once `cancel` is set."""


class ModelLoadError(RuntimeError):
    """A model could not be loaded; the message is meant for the user."""
