"""Training sequences: documents windowed, FIM-transformed, tokenised part by part and packed; batches
by step, drawn in process or by worker processes."""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from tokenizers import Tokenizer

from ghostbook.training.fim import SPAN_WEIGHTS, fit, psm, random_split, spm
from ghostbook.training.tokenizer import special_ids


@dataclass(frozen=True)
class FimConfig:
    """How often and how documents are turned into FIM examples."""

    fim_rate: float = 0.9
    spm_rate: float = 0.2
    chars_per_token: float = 3.5
    weights: tuple[tuple[str, float], ...] = tuple(SPAN_WEIGHTS.items())
    code_lines: bool = False  # line-shaped spans start at code lines
    # the span weights of notebook documents (None: `weights`); the sampler is told which they are
    notebook_weights: tuple[tuple[str, float], ...] | None = None


class SequenceSampler:
    """Draws packed token sequences of `seq_len + 1` ids from weighted documents."""

    def __init__(self, texts: list[str], tok: Tokenizer, seq_len: int, fim: FimConfig, seed: int,
                 alt_texts: list[str] | None = None, notebooks: Sequence[bool] | None = None) -> None:
        """`notebooks[i]`: `texts[i]` is a notebook (its spans drawn with `fim.notebook_weights`)."""
        flags = list(notebooks) if notebooks is not None else [False] * len(texts)
        if len(flags) != len(texts):
            raise ValueError(f"{len(flags)} notebook flags for {len(texts)} documents")
        kept = [i for i, t in enumerate(texts) if t.strip()]
        self.texts = [texts[i] for i in kept]
        self.notebooks = [flags[i] for i in kept]
        # A second pool (e.g. function-level documents) drawn with probability `alt_prob`.
        self.alt_texts = [t for t in alt_texts or [] if t.strip()]
        self.alt_prob = 0.0
        if not self.texts:
            raise ValueError("no documents")
        self.tok = tok
        self.seq_len = seq_len
        self.fim = fim
        self.rng = random.Random(seed)
        self.ids = self.fim_ids(tok)
        self.cum = np.cumsum([len(t) for t in self.texts]).tolist()
        self.weights = dict(fim.weights)
        self.notebook_weights = dict(fim.notebook_weights) if fim.notebook_weights is not None else self.weights

    def fim_ids(self, tok: Tokenizer) -> dict[str, int]:
        """Ids of the special tokens `example` uses (a sampler for another FIM template overrides it)."""
        return special_ids(tok)

    def _doc(self) -> str:
        return self._pick()[0]

    def _pick(self) -> tuple[str, bool]:
        """A document, drawn by size (or from the second pool), and whether it is a notebook."""
        if self.alt_texts and self.alt_prob > 0 and self.rng.random() < self.alt_prob:
            return self.rng.choice(self.alt_texts), False
        i = min(bisect.bisect_right(self.cum, self.rng.random() * self.cum[-1]), len(self.texts) - 1)
        return self.texts[i], self.notebooks[i]

    def _window(self, text: str) -> str:
        """A line-aligned window of about 0.3–1.0 context lengths, often starting at a top-level line."""
        max_chars = int(self.seq_len * self.fim.chars_per_token * self.rng.uniform(0.3, 1.0))
        if len(text) <= max_chars:
            return text
        start = self.rng.randint(0, len(text) - max_chars)
        nl = text.rfind("\n", 0, start)
        start = nl + 1 if nl >= 0 else 0
        if self.rng.random() < 0.5:
            top = text.find("\n", start)
            while top >= 0 and top + 1 < len(text) and text[top + 1] in " \t\n#)]}":
                top = text.find("\n", top + 1)
            if 0 <= top < len(text) - max_chars // 2:
                start = top + 1
        end = text.rfind("\n", start, start + max_chars)
        return text[start : end + 1 if end > start else start + max_chars]

    def encode(self, text: str) -> list[int]:
        return self.tok.encode(text, add_special_tokens=False).ids if text else []

    def example(self, text: str, notebook: bool = False) -> list[int]:
        """One document as token ids ending in `<|endoftext|>`, FIM-transformed with `fim_rate` (a
        `notebook`'s spans drawn with the notebook weights)."""
        eot = self.ids["<|endoftext|>"]
        if self.rng.random() >= self.fim.fim_rate:
            return self.encode(text) + [eot]
        split = random_split(text, self.rng, self.notebook_weights if notebook else self.weights, self.fim.code_lines)
        middle = self.encode(split.middle)
        budget = self.seq_len - len(middle) - 4
        prefix, suffix = fit(self.encode(split.prefix), self.encode(split.suffix), budget)
        # a writing span is always SPM, the editor's layout for this model (models/default/fim.json): with
        # nothing after the cursor, that prompt is what it will be asked
        layout = spm if split.kind == "writing" or self.rng.random() < self.fim.spm_rate else psm
        head = layout(self.ids["<fim_prefix>"], self.ids["<fim_suffix>"], self.ids["<fim_middle>"], prefix, suffix)
        return head + middle + [eot]

    def sequence(self) -> list[int]:
        out: list[int] = []
        while len(out) < self.seq_len + 1:
            text, notebook = self._pick()
            out.extend(self.example(self._window(text), notebook))
        return out[: self.seq_len + 1]

    def batch(self, size: int) -> np.ndarray:
        return np.array([self.sequence() for _ in range(size)], dtype=np.int64)


def draw_batch(sampler: SequenceSampler, step: int, batch_size: int, seed: int, anneal_from: int,
               anneal_share: float, stable_share: float = 0.0) -> np.ndarray:
    """The batch of `step`: the same ids whoever draws it, so a resumed run sees the data it would have.
    A share of documents comes from the second pool: `anneal_share` from `anneal_from` on, else `stable_share`."""
    sampler.rng.seed(seed * 1_000_003 + step)
    sampler.alt_prob = anneal_share if step >= anneal_from else stable_share
    return sampler.batch(batch_size)


class StepBatches(torch.utils.data.IterableDataset):
    """(step, batch) for steps `start` to `end`; a DataLoader worker k of n draws steps start+k,
    start+k+n, ... and the loader hands them out in step order."""

    def __init__(self, sampler: SequenceSampler, start: int, end: int, batch_size: int, seed: int, anneal_from: int,
                 anneal_share: float, stable_share: float = 0.0) -> None:
        self.sampler, self.start, self.end = sampler, start, end
        self.args = (batch_size, seed, anneal_from, anneal_share, stable_share)

    def __iter__(self) -> Iterator[tuple[int, np.ndarray]]:
        info = torch.utils.data.get_worker_info()
        k, n = (info.id, info.num_workers) if info else (0, 1)
        for step in range(self.start + k, self.end, n):
            yield step, draw_batch(self.sampler, step, *self.args)


class BatchStream:
    """Batches by step, drawn in this process (`workers` 0) or ahead by worker processes (a GPU
    outruns one Python process tokenising and cutting FIM examples)."""

    def __init__(self, batches: StepBatches, workers: int = 0) -> None:
        self._loader: Any = None
        if workers > 0:
            self._loader = torch.utils.data.DataLoader(batches, batch_size=None, num_workers=workers,
                                                       prefetch_factor=4)
            self._it: Iterator[Any] = iter(self._loader)
        else:
            self._it = iter(batches)

    def next(self) -> tuple[int, torch.Tensor]:
        step, batch = next(self._it)
        return int(step), torch.as_tensor(batch)

    def close(self) -> None:
        shutdown = getattr(self._it, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()
