"""llama.cpp in-process through llama-cpp-python.

One `Llama` instance is reused for every request: before evaluating a prompt the backend keeps the
KV cache for the longest token prefix it shares with what was evaluated last, and evaluates only the
rest. The context holds several KV-cache sequences (`llama_seqs`), so a beam step evaluates all its
hypotheses in one `llama_decode`. Then a `Search` (the decoding, `ghostbook.decoding`) runs against an
`Evaluation` of that prompt, in a worker thread (the event loop never blocks), checking the cancel flag
between model calls.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ghostbook.models.backend import (
    BackendInfo,
    Drafts,
    Emit,
    GenStats,
    ModelLoadError,
    Reader,
    Search,
    Vocab,
    common_prefix,
)
from ghostbook.models.catalog import completion_family, detect_family
from ghostbook.models.gguf_meta import trained_context
from ghostbook.models.llama_seqs import N_SEQ, Sequences, make_context
from ghostbook.models.worker import ThreadedGeneration, counted

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
PROMPT_CHUNK = 16  # prompt tokens evaluated between two looks at the cancel flag (~5 ms on a small CPU)


def check_gguf(path: Path) -> None:
    """Raise ModelLoadError with a clear message for a missing, unreadable or non-GGUF file."""
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
    except FileNotFoundError:
        raise ModelLoadError(f"model file not found: {path}") from None
    except OSError as exc:
        raise ModelLoadError(f"cannot read model file {path}: {exc.strerror or exc}") from None
    if magic != GGUF_MAGIC:
        raise ModelLoadError(f"not a GGUF model file (bad header): {path}")


@contextlib.contextmanager
def load_progress(report: Callable[[float], None] | None) -> Iterator[None]:
    """While a `Llama` loads, llama.cpp's own progress callback (`llama_model_params.progress_callback`,
    the low-level API) reports 0..1 to `report`. `Llama` builds its params from
    `llama_model_default_params()`, so that function hands out params with the callback meanwhile."""
    if report is None:
        yield
        return
    import llama_cpp.llama_cpp as lib

    def on_progress(progress: float, _data: object) -> bool:
        try:
            report(float(progress))
        except Exception:  # a listener's bug must not abort the load
            log.exception("load progress listener failed")
        return True  # go on loading

    callback = lib.llama_progress_callback(on_progress)  # kept alive until the load is done
    original = lib.llama_model_default_params

    def params() -> Any:
        made = original()
        made.progress_callback = callback
        return made

    with _PROGRESS_LOCK:
        lib.llama_model_default_params = params
        try:
            yield
        finally:
            lib.llama_model_default_params = original


_PROGRESS_LOCK = threading.Lock()
# Greedy with prompt-lookup drafts (`decoding.speculative`): off for eval and benchmarks that open a model
# themselves; the editor's `speculative` setting (on: `ghostbook bench speculative`, 1.2x) sets it.
SPECULATIVE = False
TOKENIZED = 256  # texts whose token ids `tokenize` remembers
READER_CTX = 1024  # the read check's context: READ_CONTEXT tokens above, a line and the next lines


class LlamaReader:
    """The read check's `Reader` (`decoding.reading`) on its own llama.cpp context, so the generating
    context keeps its FIM prompt's KV cache (the weights are memory-mapped once). It keeps the KV cache
    of what consecutive readings share and takes logits only where it scores."""

    def __init__(self, path: Path, threads: int, n_ctx: int = READER_CTX) -> None:
        import llama_cpp

        self._llama_cpp = llama_cpp
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_batch=512, n_threads=threads,
                                   n_threads_batch=threads, logits_all=False, verbose=False)
        self.n_ctx = min(n_ctx, self.llm.n_ctx())  # llama.cpp may round its context up
        make_context(self.llm, self.n_ctx)  # candidates read together, one KV-cache sequence each
        self._memory = llama_cpp.llama_get_memory(self.llm._ctx.ctx)

    def tokenize(self, text: str) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)) if text else []

    def logprobs(self, ids: Sequence[int], start: int) -> np.ndarray:
        ids = list(ids)
        over = len(ids) - self.n_ctx
        if over > 0:  # a very long line: drop context first, then the end of what is scored
            cut = min(over, start - 1)
            ids, start = ids[cut:][: self.n_ctx], start - cut
        llm = self.llm
        keep = min(common_prefix(llm.input_ids[: llm.n_tokens].tolist(), ids), start - 1)
        llm.n_tokens = keep
        llm._ctx.kv_cache_seq_rm(-1, keep, -1)
        rows: list[np.ndarray] = []
        todo = ids[keep:-1]  # logits at position p score ids[p + 1]
        n_vocab = llm.n_vocab()
        for at in range(0, len(todo), llm.n_batch):
            chunk = todo[at : at + llm.n_batch]
            llm._batch.set_batch(batch=chunk, n_past=llm.n_tokens, logits_all=False)
            first = max(0, start - 1 - llm.n_tokens)  # the first position of this chunk that is scored
            for i in range(len(chunk)):
                llm._batch.batch.logits[i] = i >= first or i == len(chunk) - 1
            llm._ctx.decode(llm._batch)
            for i in range(first, len(chunk)):
                ptr = self._llama_cpp.llama_get_logits_ith(llm._ctx.ctx, i)
                rows.append(np.ctypeslib.as_array(ptr, shape=(n_vocab,)).copy())
            llm.input_ids[llm.n_tokens : llm.n_tokens + len(chunk)] = chunk
            llm.n_tokens += len(chunk)
        return _scored(rows, ids[start:])

    def logprobs_many(self, items: Sequence[tuple[list[int], int]]) -> list[np.ndarray]:
        """`logprobs` of each item from one `llama_decode` where they fit a batch: the text they share
        stays in sequence 0, each item's own tokens go to a sequence of its own that starts as a copy."""
        llm, lib = self.llm, self._llama_cpp
        n = len(items)
        if n < 2 or n >= N_SEQ or any(len(ids) > self.n_ctx for ids, _ in items):
            return [self.logprobs(ids, start) for ids, start in items]
        base = min(min(common_prefix(items[0][0], ids) for ids, _ in items), *(start - 1 for _, start in items))
        ids0 = items[0][0]
        keep = min(common_prefix(llm.input_ids[: llm.n_tokens].tolist(), ids0), base)
        llm.n_tokens = keep
        lib.llama_memory_seq_rm(self._memory, 0, keep, -1)
        if base > keep:
            llm.eval(ids0[keep:base])  # sequence 0 now holds the shared text
        batch, used, wanted = llm._batch.batch, 0, []  # wanted: (item, batch index) per scored position
        todo = [ids[base:-1] for ids, _ in items]  # logits at position p score ids[p + 1]
        if sum(map(len, todo)) > llm.n_batch:
            return [self.logprobs(ids, start) for ids, start in items]
        for seq in range(1, n + 1):
            lib.llama_memory_seq_rm(self._memory, seq, 0, -1)
            lib.llama_memory_seq_cp(self._memory, 0, seq, 0, base)
        for k, ((_, start), tokens) in enumerate(zip(items, todo, strict=True)):
            for j, token in enumerate(tokens):
                pos = base + j
                batch.token[used], batch.pos[used], batch.n_seq_id[used] = token, pos, 1
                batch.seq_id[used][0] = k + 1
                batch.logits[used] = pos >= start - 1
                if pos >= start - 1:
                    wanted.append((k, used))
                used += 1
        batch.n_tokens = used
        if used and lib.llama_decode(llm._ctx.ctx, batch) != 0:
            return [self.logprobs(ids, start) for ids, start in items]
        rows: list[list[np.ndarray]] = [[] for _ in items]
        n_vocab = llm.n_vocab()
        for k, at in wanted:
            ptr = lib.llama_get_logits_ith(llm._ctx.ctx, at)
            rows[k].append(np.ctypeslib.as_array(ptr, shape=(n_vocab,)).copy())
        for seq in range(1, n + 1):
            lib.llama_memory_seq_rm(self._memory, seq, 0, -1)
        return [_scored(r, ids[start:]) for r, (ids, start) in zip(rows, items, strict=True)]

    def close(self) -> None:
        self.llm.close()


def _scored(rows: list[np.ndarray], targets: Sequence[int]) -> np.ndarray:
    """log P(target) at each row of logits (one log-softmax over all of them)."""
    logits = np.stack(rows).astype(np.float64)
    top = logits.max(axis=1, keepdims=True)
    norm = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
    return logits[np.arange(len(rows)), list(targets)] - norm


class LlamaCppBackend(ThreadedGeneration):
    def __init__(self, path: Path, family: str | None = None, n_ctx: int = 2048, threads: int | None = None,
                 name: str | None = None) -> None:
        self.path = Path(path)
        self._family = family
        self._n_ctx = n_ctx
        # llama.cpp threads spin: on a small busy machine one thread beats two
        self._threads = threads or max(1, min(4, (os.cpu_count() or 2) // 2))
        self.info = BackendInfo(name or self.path.name, str(self.path), family or "", n_ctx, 0)
        self.last_stats = GenStats()
        self.last_prompt: list[int] = []
        self._llm: Any = None
        self.needs_fim = True  # a completion model without FIM tokens gets the `plain` family; an edit model none
        self._vocab: dict[str, int] = {}
        self.vocab = Vocab([], frozenset())
        self._lock = threading.Lock()  # one generation at a time on the one context
        self._reader: LlamaReader | None = None  # made at the first read check
        self._no_reader = False  # it could not be made
        self.on_progress: Callable[[float], None] | None = None  # load progress 0..1 (the loader's status)
        self.speculative = SPECULATIVE  # greedy by prompt lookup (`decoding.speculative`)
        self._tokenized: dict[str, tuple[int, ...]] = {}  # text -> ids, least recently used first

    # ---- lifecycle ------------------------------------------------------------------------------

    def load(self) -> None:
        check_gguf(self.path)
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelLoadError(f"llama-cpp-python is not installed: {exc}") from None
        trained = trained_context(self.path)  # never run past what the model was trained on
        try:
            with load_progress(self.on_progress):
                llm = llama_cpp.Llama(model_path=str(self.path), n_ctx=min(self._n_ctx, trained or self._n_ctx),
                                      n_batch=512, n_threads=self._threads, n_threads_batch=self._threads,
                                      logits_all=False, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelLoadError(f"cannot load {self.path}: the file is corrupt or not a supported model "
                                 f"({exc})") from None
        n_train = llm._model.n_ctx_train()
        if n_train < llm.n_ctx():  # a header this reader did not know
            llm.close()
            llm = llama_cpp.Llama(model_path=str(self.path), n_ctx=n_train, n_batch=512,
                                  n_threads=self._threads, n_threads_batch=self._threads, logits_all=False,
                                  verbose=False)
        n_ctx = min(llm.n_ctx(), n_train)  # llama.cpp may round its context up past what was asked
        make_context(llm, n_ctx)  # several sequences (a beam's hypotheses) in one KV cache
        model = llm._model
        vocab: dict[str, int] = {}
        pieces: list[bytes] = []
        special: set[int] = set()
        for i in range(llm.n_vocab()):
            try:
                vocab.setdefault(model.token_get_text(i), i)
            except UnicodeDecodeError:
                pass
            if llama_cpp.llama_vocab_is_control(model.vocab, i) or llama_cpp.llama_vocab_is_eog(model.vocab, i):
                special.add(i)
            pieces.append(b"" if i in special else llm.detokenize([i]))
        self._llm, self._vocab = llm, vocab
        self._seqs = Sequences(llm)
        self.vocab = Vocab(pieces, frozenset(special))
        name = llm.metadata.get("general.name", "")
        family = completion_family(self._family or detect_family(self.lookup, name) or "", self.needs_fim, self.path)
        self.info = BackendInfo(self.info.name, str(self.path), family, n_ctx, llm.n_vocab(),
                                {"general.name": name, "size": os.path.getsize(self.path)})

    def unload(self) -> None:
        with self._lock:
            if self._llm is not None:
                self._seqs.close()
                self._llm.close()
            if self._reader is not None:
                self._reader.close()
            self._llm, self._reader = None, None

    def forget(self) -> None:
        """Drop the KV cache state, so the next prompt is evaluated from scratch (cold; for benchmarks)."""
        with self._lock:
            self._require().reset()
            self._seqs.clear()
            if self._reader is not None:
                self._reader.llm.reset()

    def _read_context(self, llm: Any) -> LlamaReader | None:
        """The read check's context, made at first use; None (no read check) if it cannot be made."""
        if self._reader is None and not self._no_reader:
            try:
                self._reader = LlamaReader(self.path, self._threads, min(READER_CTX, self.info.n_ctx))
            except (ValueError, RuntimeError, OSError) as exc:
                log.warning("no read check for %s: %s", self.path, exc)
                self._no_reader = True
        return self._reader

    # ---- vocabulary -----------------------------------------------------------------------------

    def tokenize(self, text: str) -> list[int]:
        """Token ids of `text`; the last `TOKENIZED` texts are remembered (a request tokenizes the cells
        and the context it builds from them, most of them unchanged since the last keystroke)."""
        if not text:
            return []
        ids = self._tokenized.pop(text, None)
        if ids is None:
            ids = tuple(self._require().tokenize(text.encode("utf-8"), add_bos=False, special=False))
            if len(self._tokenized) >= TOKENIZED:
                del self._tokenized[next(iter(self._tokenized))]
        self._tokenized[text] = ids  # the most recent last
        return list(ids)

    def cached(self, prompt_ids: Sequence[int]) -> int:
        return self._seqs.shared(list(prompt_ids)) if self._llm is not None else 0

    @property
    def metadata(self) -> dict[str, str]:
        """The GGUF's metadata, key -> value as text (its chat template: `models.chat_template`)."""
        return dict(self._require().metadata)

    def token_text(self, token: int) -> str:
        """A vocabulary entry's text, special tokens too (`<|im_end|>`); "" for none (-1)."""
        return self._require()._model.token_get_text(token) if token >= 0 else ""

    def tokenize_special(self, text: str) -> list[int]:
        """Token ids of `text` with the special tokens written in it as their ids (a rendered chat
        template), no BOS added."""
        return list(self._require().tokenize(text.encode("utf-8"), add_bos=False, special=True)) if text else []

    def lookup(self, token_text: str) -> int | None:
        return self._vocab.get(token_text)

    def piece(self, token: int) -> bytes:
        return self.vocab.pieces[token]

    def _require(self) -> Any:
        if self._llm is None:
            raise ModelLoadError("the model is not loaded")
        return self._llm

    # ---- generation -----------------------------------------------------------------------------

    def generate(self, prompt_ids: Sequence[int], search: Search, cancelled: Callable[[], bool],
                 emit: Emit) -> GenStats:
        """Blocking: evaluate the prompt, reusing the KV cache's common prefix, then run `search`; `emit`
        gets each token."""
        with self._lock:
            llm = self._require()
            if cancelled():  # superseded while waiting for the model: don't touch the KV cache
                return GenStats(len(prompt_ids), cancelled=True)
            prompt = list(prompt_ids)
            if not prompt or len(prompt) + search.max_new_tokens > self.info.n_ctx:
                raise ValueError(f"prompt of {len(prompt)} tokens does not fit the context of {self.info.n_ctx}")
            self.last_prompt = prompt
            start = time.perf_counter()
            seqs = self._seqs
            stats = GenStats(len(prompt), seqs.keep_best(prompt))
            # a newer request need not wait for a long prompt: the cancel flag is read between chunks
            if seqs.evaluate([prompt], cancelled, PROMPT_CHUNK) is None:
                stats.cancelled = True
                stats.total_ms = stats.prompt_ms = (time.perf_counter() - start) * 1000
                return stats
            stats.prompt_ms = (time.perf_counter() - start) * 1000
            search.run(LlamaEvaluation(seqs, prompt, lambda: self._read_context(llm), self.speculative), self.vocab,
                       cancelled, counted(emit, stats))
            stats.cancelled = cancelled()
            stats.total_ms = (time.perf_counter() - start) * 1000
            return stats


class LlamaEvaluation:
    """The `Evaluation` of a prompt in a llama.cpp context: the branches of one call are evaluated together,
    each in a KV-cache sequence of its own that keeps what it shares with the others (`Sequences`)."""

    def __init__(self, seqs: Sequences, prompt: list[int], reader: Callable[[], Reader | None],
                 speculative: bool = False) -> None:
        self._seqs, self._prompt, self._reader = seqs, prompt, reader
        self.speculative = speculative  # greedy drafts by prompt lookup (`decoding.speculative`)

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        rows = self._seqs.evaluate([[*self._prompt, *branch] for branch in branches], base=len(self._prompt))
        assert rows is not None
        return rows

    def reader(self) -> Reader | None:
        return self._reader()

    def logits_along(self, branch: Sequence[int], n: int) -> np.ndarray:
        return self._seqs.evaluate_along([*self._prompt, *branch], n, base=len(self._prompt))

    def drafts(self) -> Drafts | None:
        return Drafts(self._prompt) if self.speculative else None
