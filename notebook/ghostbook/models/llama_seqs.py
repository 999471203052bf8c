"""Several token sequences in one llama.cpp context, evaluated together.

A beam step asks for the next-token logits of every live hypothesis; each hypothesis lives in a KV-cache
sequence of its own (`llama_memory_seq_*`), all of them share the prompt's cells (a unified cache: a
copied prefix costs no new cells), and one `llama_decode` evaluates the new tokens of all of them, one
sequence id per hypothesis. A sequence is reused where it already holds a branch's start (the common
prefix stays), or copied from the one that holds the most of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ghostbook.models.backend import common_prefix

N_SEQ = 32  # sequences one context holds (a beam of 8 keeps at most 8 live and 8 it left)
SPARE_CELLS = 64 * N_SEQ  # KV cells beyond the trained context, for the tokens hypotheses do not share


def make_context(llm: Any, n_ctx: int) -> Any:
    """Swap `llm`'s context for one that holds `N_SEQ` sequences in a unified cache of `n_ctx` +
    `SPARE_CELLS` cells (positions stay below `n_ctx`); returns the new `LlamaContext`."""
    from llama_cpp import _internals

    params = llm.context_params
    params.n_ctx = n_ctx + SPARE_CELLS
    params.n_seq_max = N_SEQ
    params.kv_unified = True
    old = llm._ctx
    # llama.cpp counts the cache's cells as one sequence's context and warns of a "training context
    # overflow" where they pass the trained length; the positions do not (the backend keeps them below)
    lib_log = logging.getLogger("llama-cpp-python")
    level = lib_log.level
    lib_log.setLevel(logging.CRITICAL)
    try:
        llm._ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
    finally:
        lib_log.setLevel(level)
    old.close()
    return llm._ctx


class Sequences:
    """What each sequence of a context holds (token ids from position 0), with the logits after its last
    token where they are known, and `evaluate` for many branches at once."""

    def __init__(self, llm: Any, n_batch: int = 512) -> None:
        import llama_cpp
        from llama_cpp import _internals

        self._lib, self._llm = llama_cpp, llm
        self._ctx = llm._ctx
        self._memory = llama_cpp.llama_get_memory(self._ctx.ctx)
        self._n_vocab = llm.n_vocab()
        self._n_batch = n_batch
        self._batch = _internals.LlamaBatch(n_tokens=n_batch, embd=0, n_seq_max=1, verbose=False)
        self.held: list[list[int]] = [[] for _ in range(N_SEQ)]
        self._last: list[np.ndarray | None] = [None] * N_SEQ
        self.decodes = 0  # llama_decode calls so far

    def close(self) -> None:
        self._batch.close()

    def clear(self) -> None:
        self._lib.llama_memory_clear(self._memory, True)
        self.held = [[] for _ in range(N_SEQ)]
        self._last = [None] * N_SEQ

    def shared(self, prompt: Sequence[int]) -> int:
        """The most leading tokens of `prompt` one sequence holds."""
        return max((common_prefix(held, prompt) for held in self.held if held), default=0) if prompt else 0

    def keep_best(self, prompt: Sequence[int]) -> int:
        """Keep only the sequence that shares most with `prompt` (its cells hold the prompt's start),
        dropping the others; returns how many tokens it shares."""
        shared = [common_prefix(held, prompt) if prompt else 0 for held in self.held]
        best = max(range(N_SEQ), key=lambda s: shared[s])
        for seq in range(N_SEQ):
            if seq != best and self.held[seq]:
                self._rm(seq, 0)
        return shared[best]

    def _rm(self, seq: int, start: int) -> None:
        self._lib.llama_memory_seq_rm(self._memory, seq, start, -1)
        del self.held[seq][start:]
        self._last[seq] = None

    def evaluate(self, branches: Sequence[Sequence[int]], cancelled: Callable[[], bool] = lambda: False,
                 chunk: int | None = None, base: int = 0) -> np.ndarray | None:
        """The next-token logits after each branch (full token lists from position 0), one row each, from
        as few `llama_decode` calls as the batch size allows; None if `cancelled` between two calls.
        `base`: the branches all start with the same this many tokens (a prompt), compared once."""
        targets, starts = self._place([list(b) for b in branches], base)
        rows: list[np.ndarray | None] = [None] * len(branches)
        work: list[tuple[int, int, int]] = []  # (branch, sequence, first position to evaluate)
        for i, (seq, start) in enumerate(zip(targets, starts, strict=True)):
            if start == len(branches[i]):  # the sequence holds the branch and its logits are known
                rows[i] = self._last[seq]
            else:
                work.append((i, seq, start))
        limit, first = chunk or self._n_batch, True
        while work:
            if not first and cancelled():
                return None
            first = False
            batch, used, done = self._batch.batch, 0, []
            while work and used < limit:
                i, seq, start = work[0]
                take = list(branches[i][start : start + limit - used])
                for k, token in enumerate(take):
                    batch.token[used + k] = token
                    batch.pos[used + k] = start + k
                    batch.seq_id[used + k][0] = seq
                    batch.n_seq_id[used + k] = 1
                    batch.logits[used + k] = False
                used += len(take)
                self.held[seq].extend(take)
                if start + len(take) == len(branches[i]):  # this branch is complete: its logits are wanted
                    batch.logits[used - 1] = True
                    done.append((i, seq, used - 1))
                    work.pop(0)
                else:
                    work[0] = (i, seq, start + len(take))
            batch.n_tokens = used
            self.decodes += 1
            if self._lib.llama_decode(self._ctx.ctx, batch) != 0:
                raise RuntimeError("llama_decode failed (the KV cache is full)")
            for i, seq, at in done:
                ptr = self._lib.llama_get_logits_ith(self._ctx.ctx, at)
                rows[i] = self._last[seq] = np.ctypeslib.as_array(ptr, shape=(self._n_vocab,)).copy()
        return np.stack([r for r in rows if r is not None])

    def evaluate_along(self, branch: Sequence[int], n: int, base: int = 0) -> np.ndarray:
        """The logits after each of `branch`'s last `n` + 1 prefixes (`branch[:len - n + i]`), one row
        each, from as few `llama_decode` calls as the batch size allows (a speculative draft's check)."""
        full = list(branch)
        (seq,), _ = self._place([full], base)
        want = len(full) - 1 - n  # the first position whose logits are wanted
        if len(self.held[seq]) > want:  # evaluate that position again: its logits were not kept
            self._rm(seq, max(want, 0))
        rows: list[np.ndarray] = []
        while len(self.held[seq]) < len(full):
            at = len(self.held[seq])
            take = full[at : at + self._n_batch]
            batch = self._batch.batch
            for k, token in enumerate(take):
                batch.token[k], batch.pos[k], batch.n_seq_id[k] = token, at + k, 1
                batch.seq_id[k][0] = seq
                batch.logits[k] = at + k >= want
            batch.n_tokens = len(take)
            self.decodes += 1
            if self._lib.llama_decode(self._ctx.ctx, batch) != 0:
                raise RuntimeError("llama_decode failed (the KV cache is full)")
            self.held[seq].extend(take)
            for k in range(len(take)):
                if at + k >= want:
                    ptr = self._lib.llama_get_logits_ith(self._ctx.ctx, k)
                    rows.append(np.ctypeslib.as_array(ptr, shape=(self._n_vocab,)).copy())
        self._last[seq] = rows[-1]
        return np.stack(rows)

    def _place(self, branches: list[list[int]], base: int) -> tuple[list[int], list[int]]:
        """A sequence for each branch and the position from which it must be evaluated there. A sequence
        that holds a branch's start keeps it (several branches with one parent: the first extends it,
        the others get a copy of the shared part in a sequence no branch uses); none is taken twice."""
        # sequences that hold something, and one empty one (as good as any other empty one)
        seqs = [s for s in range(N_SEQ) if self.held[s]]
        seqs += [s for s in range(N_SEQ) if not self.held[s]][:1]
        prefix = branches[0][:base]
        based = {s for s in seqs if base and self.held[s][:base] == prefix}
        shared = [dict.fromkeys(range(N_SEQ), 0) | {s: self._shared(s, b, base if s in based else 0) for s in seqs}
                  for b in branches]
        most = [_best(seqs, shared[i]) for i in range(len(branches))]
        targets: list[int | None] = [None] * len(branches)
        taken: set[int] = set()
        order = sorted(range(len(branches)), key=lambda i: -max(shared[i].values()))
        for i in order:  # in place where a branch extends (or is) what a sequence holds
            best = _best([s for s in seqs if s not in taken], shared[i])
            if best is not None and shared[i][best] == len(self.held[best]) == max(shared[i].values()):
                targets[i] = best  # no other sequence holds more of it
                taken.add(best)
        sources = {most[i] for i in range(len(branches)) if targets[i] is None}
        free = [s for s in sorted(range(N_SEQ), key=lambda s: len(self.held[s])) if s not in taken and s not in sources]
        starts = [0] * len(branches)
        for i in order:
            if targets[i] is None:  # copy the longest shared start into a free sequence
                src = most[i]
                assert src is not None
                seq = free.pop(0) if free else next(s for s in range(N_SEQ) if s not in taken)
                n = shared[i][src]
                self._rm(seq, 0)
                if n and src != seq:
                    self._lib.llama_memory_seq_cp(self._memory, src, seq, 0, n)
                    self.held[seq] = self.held[src][:n]
                targets[i] = seq
                taken.add(seq)
        placed = [t for t in targets if t is not None]
        for i, seq in enumerate(placed):
            n = self._shared(seq, branches[i], base if seq in based else 0)
            if len(self.held[seq]) > n:
                self._rm(seq, n)
            starts[i] = n
        return placed, starts

    def _shared(self, seq: int, branch: list[int], base: int = 0) -> int:
        """Tokens of `branch` the sequence holds from its start (`base`: its first this many are known to
        be held); all of them only where its logits are known (else the last one is evaluated again)."""
        held = self.held[seq]
        if not held or not branch:
            return 0
        n = base + common_prefix(held[base:], branch[base:]) if base else common_prefix(held, branch)
        if n == len(branch) - 1 and len(held) == len(branch) and held[-1] == branch[-1] and \
                self._last[seq] is not None:
            return len(branch)
        return n


def _best(seqs: list[int], shared: dict[int, int]) -> int | None:
    """The sequence that holds the most of a branch (the first of those that hold as much)."""
    best: int | None = None
    for s in seqs:
        if best is None or shared[s] > shared[best]:
            best = s
    return best
