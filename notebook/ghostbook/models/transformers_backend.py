"""A Hugging Face model folder (config.json, safetensors, tokenizer.json) run by transformers.

For GPUs (`device` auto: CUDA where torch sees it, bfloat16 there; cpu: float32) and for checking
llama.cpp against the reference. Same contract as the llama.cpp backend: a `Search` over an `Evaluation`,
a worker thread, cancel between calls, and the KV cache (a `DynamicCache`, cropped to the shared prefix)
reused across requests. A `draft` model folder (same vocabulary) proposes tokens for speculative greedy
(`decoding.speculative`); without one, greedy drafts by prompt lookup where `speculative` is on.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable, Sequence
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
from ghostbook.models.worker import ThreadedGeneration, counted


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet: printable stand-in character -> byte."""
    bs = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs, strict=True)}


class TorchReader:
    """The read check's `Reader` (`decoding.reading`) for a transformers model: its own KV cache (the
    generating one keeps the FIM prompt), cropped to what consecutive readings share."""

    def __init__(self, model: Any, tokenize: Callable[[str], list[int]], cache_arg: str) -> None:
        self.model, self._tokenize, self._cache_arg = model, tokenize, cache_arg
        self._cache: Any = None
        self._tokens: list[int] = []

    def tokenize(self, text: str) -> list[int]:
        return self._tokenize(text)

    def logprobs(self, ids: Sequence[int], start: int) -> np.ndarray:
        import torch
        from transformers import DynamicCache

        ids = list(ids)
        keep = min(common_prefix(self._tokens, ids), start - 1) if self._cache is not None else 0
        if keep == 0:
            self._cache = DynamicCache()
        elif len(self._tokens) > keep:
            self._cache.crop(keep - len(self._tokens))  # negative: drop that many
        self._tokens = ids[:keep]
        todo = ids[keep:-1]  # logits at position p score ids[p + 1]
        with torch.no_grad():
            out = self.model(input_ids=torch.tensor([todo], device=self.model.device), use_cache=True,
                             **{self._cache_arg: self._cache})
        self._cache = getattr(out, "cache", None) or out.past_key_values
        self._tokens.extend(todo)
        rows = torch.log_softmax(out.logits[0, start - 1 - keep :].float(), dim=-1)
        return rows.gather(1, torch.tensor(ids[start:], device=rows.device)[:, None])[:, 0].cpu().numpy()


    def logprobs_many(self, items: Sequence[tuple[list[int], int]]) -> list[np.ndarray]:
        return [self.logprobs(ids, start) for ids, start in items]


DEVICES = ("auto", "cpu", "cuda")


def pick_device(device: str | None) -> str:
    """"cuda" or "cpu" for a `device` setting (auto: CUDA where torch sees a GPU); ModelLoadError for
    "cuda" without one."""
    import torch

    device = device or "auto"
    if device not in DEVICES:
        raise ModelLoadError(f"device must be one of {', '.join(DEVICES)}, not {device!r}")
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelLoadError("device is set to cuda but torch sees no GPU (no CUDA device or a CPU-only torch): "
                             "choose auto or cpu")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


class TransformersBackend(ThreadedGeneration):
    def __init__(self, path: Path, family: str | None = None, name: str | None = None, device: str | None = None,
                 threads: int | None = None, draft: Path | None = None) -> None:
        self.path = Path(path)
        self._family = family
        self.needs_fim = True  # a completion model without FIM tokens gets the `plain` family; an edit model none
        self.device = device or "auto"  # the setting: auto, cpu or cuda
        self.draft_path = draft
        self.draft: TransformersBackend | None = None
        # greedy drafts by prompt lookup (the editor's setting; a draft model drafts whenever there is one)
        self.speculative = False
        self._threads = threads
        self.info = BackendInfo(name or self.path.name, str(self.path), family or "", 0, 0)
        self.last_stats = GenStats()
        self.last_prompt: list[int] = []
        self._model: Any = None
        self._tok: Any = None
        self.vocab = Vocab([], frozenset())
        self._cache: Any = None
        self._tokens: list[int] = []  # what the KV cache holds
        self._cache_arg = "cache"
        self._lock = threading.Lock()
        self._reader: TorchReader | None = None

    def load(self) -> None:
        if not (self.path / "config.json").is_file() or not (self.path / "tokenizer.json").is_file():
            raise ModelLoadError(f"not a transformers model folder (config.json, tokenizer.json): {self.path}")
        try:
            import torch
            from tokenizers import Tokenizer
            from transformers import AutoModelForCausalLM
        except ImportError as exc:
            raise ModelLoadError(f"transformers is not installed: {exc}") from None
        device = pick_device(self.device)
        if self._threads:
            torch.set_num_threads(self._threads)
        try:
            tok = Tokenizer.from_file(str(self.path / "tokenizer.json"))
            model: Any = AutoModelForCausalLM.from_pretrained(
                str(self.path), dtype=torch.bfloat16 if device == "cuda" else torch.float32)
            model = model.to(device).eval()
        except (OSError, ValueError, RuntimeError) as exc:
            raise ModelLoadError(f"cannot load {self.path}: {exc}") from None
        n_vocab = int(model.config.vocab_size)
        vocab = tok.get_vocab(with_added_tokens=True)
        by_id = {i: t for t, i in vocab.items()}
        special = {int(i) for i, t in tok.get_added_tokens_decoder().items() if t.special}
        table = _byte_decoder()
        pieces = []
        for i in range(n_vocab):
            text = by_id.get(i, "")
            if i in special or not text:
                pieces.append(b"")
            elif all(c in table for c in text):
                pieces.append(bytes(table[c] for c in text))
            else:
                pieces.append(tok.decode([i]).encode())
        self._tok, self._model = tok, model
        params = inspect.signature(model.forward).parameters
        self._cache_arg = "cache" if "cache" in params else "past_key_values"
        self.vocab = Vocab(pieces, frozenset(special))
        self._vocab = vocab
        named = str(getattr(model.config, "name_or_path", ""))
        family = completion_family(self._family or detect_family(self.lookup, named) or "", self.needs_fim, self.path)
        self.info = BackendInfo(self.info.name, str(self.path), family, int(model.config.max_position_embeddings),
                                n_vocab, {"device": device, "dtype": str(model.dtype).removeprefix("torch.")})
        if self.draft_path is not None:
            self.draft = TransformersBackend(self.draft_path.expanduser(), family, device=device, threads=self._threads)
            try:
                self.draft.load()
            except ModelLoadError as exc:
                self.draft = None
                raise ModelLoadError(f"draft model: {exc}") from None
            if self.draft.vocab.pieces != self.vocab.pieces:
                self.draft = None
                raise ModelLoadError(f"the draft model {self.draft_path} has another vocabulary than {self.path}")

    def unload(self) -> None:
        with self._lock:
            self._model, self._cache, self._tokens, self._reader = None, None, [], None
            if self.draft is not None:
                self.draft.unload()

    def forget(self) -> None:
        with self._lock:
            self._cache, self._tokens, self._reader = None, [], None
            if self.draft is not None:
                self.draft.forget()

    def tokenize(self, text: str) -> list[int]:
        return list(self._tok.encode(text, add_special_tokens=False).ids) if text else []

    def cached(self, prompt_ids: Sequence[int]) -> int:
        return common_prefix(self._tokens, list(prompt_ids)) if self._cache is not None else 0

    def lookup(self, token_text: str) -> int | None:
        token = self._vocab.get(token_text)
        return None if token is None else int(token)

    def piece(self, token: int) -> bytes:
        return self.vocab.pieces[token]

    def generate(self, prompt_ids: Sequence[int], search: Search, cancelled: Callable[[], bool],
                 emit: Emit) -> GenStats:
        """Blocking: evaluate the prompt, reusing the cached keys and values of the shared prefix, then run
        `search`."""
        import torch

        with self._lock, torch.no_grad():
            if self._model is None:
                raise ModelLoadError("the model is not loaded")
            prompt = list(prompt_ids)
            if cancelled():  # superseded while waiting for the model: don't touch the KV cache
                return GenStats(len(prompt_ids), cancelled=True)
            if not prompt or len(prompt) + search.max_new_tokens > self.info.n_ctx:
                raise ValueError(f"prompt of {len(prompt)} tokens does not fit the context of {self.info.n_ctx}")
            self.last_prompt = prompt
            start = time.perf_counter()
            evaluation = self.evaluate(prompt)
            common = evaluation.reused
            stats = GenStats(len(prompt), common, 0, (time.perf_counter() - start) * 1000)
            search.run(evaluation, self.vocab, cancelled, counted(emit, stats))
            stats.cancelled = cancelled()
            stats.total_ms = (time.perf_counter() - start) * 1000
            return stats

    def evaluate(self, prompt: list[int]) -> TorchEvaluation:
        """The prompt evaluated (the KV cache's shared prefix kept), in the caller's `torch.no_grad()`."""
        from transformers import DynamicCache

        common = common_prefix(self._tokens, prompt) if self._cache is not None else 0
        if common == 0:
            self._cache, self._tokens = DynamicCache(), []
        evaluation = TorchEvaluation(self, prompt)
        evaluation.feed(prompt, common)
        evaluation.reused = common
        return evaluation

    def reader(self) -> Reader:
        if self._reader is None:
            self._reader = TorchReader(self._model, self.tokenize, self._cache_arg)
        return self._reader


class TorchEvaluation:
    """The `Evaluation` of a prompt on a transformers model: the backend's `DynamicCache` is cropped to
    what each branch shares with what it holds."""

    def __init__(self, backend: TransformersBackend, prompt: list[int]) -> None:
        self._b, self._prompt = backend, prompt
        self._last: np.ndarray | None = None
        self._draft: TorchEvaluation | None = None
        self.reused = 0  # prompt tokens the KV cache held already

    def feed(self, wanted: list[int], common: int, keep: int = 1) -> Any:
        """Keep the cache's first `common` tokens and evaluate the rest of `wanted`; the logits of its last
        `keep` positions (a tensor)."""
        import torch

        b, model = self._b, self._b._model
        if len(b._tokens) > common:
            b._cache.crop(common - len(b._tokens))  # negative: drop that many (any version)
            del b._tokens[common:]
        ids = wanted[common:]
        kwargs = {b._cache_arg: b._cache}  # "cache" in transformers 5, "past_key_values" before
        out = model(input_ids=torch.tensor([ids], device=model.device), use_cache=True, logits_to_keep=keep,
                    **kwargs)
        b._cache = getattr(out, "cache", None) or out.past_key_values
        b._tokens.extend(ids)
        self._last = out.logits[0, -1].float().cpu().numpy()
        return out.logits[0]

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        import torch

        with torch.no_grad():
            if len(branches) > 1:
                return self._together([[*self._prompt, *branch] for branch in branches])
            wanted = [*self._prompt, *branches[0]]
            if self._b._tokens != wanted or self._last is None:
                self.feed(wanted, common_prefix(self._b._tokens, wanted))
            assert self._last is not None
            return np.stack([self._last])

    def _together(self, full: list[list[int]]) -> np.ndarray:
        """Several branches in one forward pass: the cache is brought to the text they all share, a copy
        of it is repeated along the batch dimension, and their own tokens (padded on the right) are
        evaluated against it; the backend's cache keeps the shared text."""
        import copy

        import torch

        b, model = self._b, self._b._model
        shared = min(min(common_prefix(full[0], f) for f in full), *(len(f) - 1 for f in full))
        held = common_prefix(b._tokens, full[0][: shared + 1]) if b._tokens else 0
        if held < shared:
            self.feed(full[0][:shared], held)
        elif len(b._tokens) > shared:
            b._cache.crop(shared - len(b._tokens))
            del b._tokens[shared:]
        self._last = None  # the cache's last logits are not kept for the shared text
        own = [f[shared:] for f in full]
        width = max(map(len, own))
        ids = torch.tensor([o + [0] * (width - len(o)) for o in own], device=model.device)
        mask = torch.tensor([[1] * (shared + len(o)) + [0] * (width - len(o)) for o in own], device=model.device)
        positions = torch.arange(shared, shared + width, device=model.device).expand(len(own), width)
        cache = copy.deepcopy(b._cache)
        cache.batch_repeat_interleave(len(own))
        out = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True,
                    **{b._cache_arg: cache})
        last = torch.tensor([len(o) - 1 for o in own], device=model.device)
        return out.logits[torch.arange(len(own), device=model.device), last].float().cpu().numpy()

    def reader(self) -> Reader | None:
        return self._b.reader()

    def logits_along(self, branch: Sequence[int], n: int) -> np.ndarray:
        import torch

        wanted = [*self._prompt, *branch]
        want = len(wanted) - 1 - n  # the first position whose logits are wanted
        with torch.no_grad():
            rows = self.feed(wanted, min(common_prefix(self._b._tokens, wanted), want), n + 1)
        return np.asarray(rows.float().cpu().numpy())

    def drafts(self) -> Drafts | None:
        """The draft model's evaluation of the prompt where there is one, else prompt lookup if on."""
        draft = self._b.draft
        if draft is not None:
            if self._draft is None:
                self._draft = draft.evaluate(self._prompt)
            return Drafts(self._prompt, self._draft)
        return Drafts(self._prompt) if self._b.speculative else None
