"""Evaluation backends: a GGUF through llama-cpp-python and an HF folder through transformers."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np

from ghostbook.models.llamacpp_backend import READER_CTX, LlamaReader
from ghostbook.models.streaming import common_prefix
from ghostbook.models.transformers_backend import TorchReader
from ghostbook.training.fim import EOT, FIM_MIDDLE, FIM_PREFIX, FIM_SUFFIX


def last_logits(llm: object) -> np.ndarray:
    """Logits of the last evaluated token of a `llama_cpp.Llama` (works without `logits_all`)."""
    ptr = llm._ctx.get_logits()  # type: ignore[attr-defined]
    return np.ctypeslib.as_array(ptr, shape=(llm.n_vocab(),)).astype(np.float32)  # type: ignore[attr-defined]


class LlamaCppBackend:
    """A GGUF model run by llama.cpp (greedy, KV cache reused across the prompt's common prefix)."""

    def __init__(self, path: Path, n_ctx: int = 512, threads: int = 1) -> None:
        import llama_cpp

        self.path = Path(path)
        self.name = f"llama.cpp:{self.path.name}"
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads,
                                   n_threads_batch=threads, n_batch=512, verbose=False, logits_all=False)
        self.n_ctx = n_ctx
        self.vocab_size = self.llm.n_vocab()
        self.eot = self._special(EOT)
        self.fim_prefix = self._special(FIM_PREFIX)
        self.fim_suffix = self._special(FIM_SUFFIX)
        self.fim_middle = self._special(FIM_MIDDLE)
        self.threads = threads
        self._reader: LlamaReader | None = None

    def reader(self) -> LlamaReader:
        """The read check's reader (`completion.reading`), on a second context made at first use."""
        if self._reader is None:
            self._reader = LlamaReader(self.path, self.threads, min(READER_CTX, self.n_ctx))
        return self._reader

    def _special(self, text: str) -> int:
        ids = self.llm.tokenize(text.encode(), add_bos=False, special=True)
        if len(ids) != 1:
            raise ValueError(f"{text} is not a single token in {self.path}")
        return ids[0]

    def encode(self, text: str) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False) if text else []

    def token_bytes(self, token: int) -> bytes:
        return self.llm.detokenize([token], special=True)

    def _logits(self) -> np.ndarray:
        return last_logits(self.llm)

    def start(self, prompt: list[int]) -> np.ndarray:
        common = 0
        cached = self.llm.input_ids[: self.llm.n_tokens].tolist()
        for a, b in zip(cached, prompt, strict=False):
            if a != b:
                break
            common += 1
        common = min(common, len(prompt) - 1)
        self.llm.n_tokens = common
        self.llm._ctx.kv_cache_seq_rm(-1, common, -1)
        self.llm.eval(prompt[common:])
        return self._logits()

    def step(self, token: int) -> np.ndarray:
        self.llm.eval([token])
        return self._logits()

    def close(self) -> None:
        self.llm.close()
        if self._reader is not None:
            self._reader.close()


class HFBackend:
    """A transformers causal LM with its tokenizer (fp32 on CPU, greedy with a KV cache)."""

    def __init__(self, path: Path, threads: int = 1, device: str = "cpu", n_ctx: int | None = None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

        torch.set_num_threads(threads)
        self.torch = torch
        self.path = Path(path)
        self.name = f"transformers:{self.path.name}"
        self.tok = PreTrainedTokenizerFast(tokenizer_file=str(self.path / "tokenizer.json"))
        self.model = AutoModelForCausalLM.from_pretrained(str(path)).float().to(device).eval()
        # transformers >= 5 renamed `past_key_values` to `cache`.
        self._cache_kw = "cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values"
        self.device = device
        self.n_ctx = n_ctx or int(self.model.config.max_position_embeddings)
        self.vocab_size = int(self.model.config.vocab_size)
        ids = [int(self.tok.convert_tokens_to_ids(t)) for t in  # type: ignore[arg-type]
               (EOT, FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE)]
        self.eot, self.fim_prefix, self.fim_suffix, self.fim_middle = ids
        self._past = None
        self._tokens: list[int] = []  # what the cache holds
        self._reader: TorchReader | None = None

    def reader(self) -> TorchReader:
        """The read check's reader (`completion.reading`), with its own KV cache."""
        if self._reader is None:
            self._reader = TorchReader(self.model, self.encode, self._cache_kw)
        return self._reader

    def encode(self, text: str) -> list[int]:
        return self.tok(text, add_special_tokens=False).input_ids if text else []

    def token_bytes(self, token: int) -> bytes:
        from tokenizers.decoders import ByteLevel

        piece = str(self.tok.convert_ids_to_tokens(token))
        if piece in (EOT, FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE) or piece.startswith("<fim"):
            return piece.encode()
        return _BYTE_DECODER.decode(piece) if _BYTE_DECODER else ByteLevel().decode([piece]).encode()

    def _run(self, ids: list[int]) -> np.ndarray:
        torch = self.torch
        with torch.no_grad():
            kwargs = {self._cache_kw: self._past}
            out = self.model(input_ids=torch.tensor([ids], device=self.device), use_cache=True, **kwargs)
        self._past = getattr(out, self._cache_kw)
        self._tokens.extend(ids)
        return out.logits[0, -1].float().cpu().numpy()

    def start(self, prompt: list[int]) -> np.ndarray:
        """Logits after `prompt`, keeping the cached keys and values of what it shares with the last one
        (a beam moves between hypotheses that differ only in their last tokens)."""
        keep = common_prefix(self._tokens, prompt) if self._past is not None else 0
        if keep == 0:
            self._past = None
        elif len(self._tokens) > keep:
            self._past.crop(keep - len(self._tokens))  # type: ignore[attr-defined]  # negative: drop that many
        self._tokens = list(prompt[:keep])
        return self._run(prompt[keep:])

    def step(self, token: int) -> np.ndarray:
        return self._run([token])

    def close(self) -> None:
        self._past = None
        self._tokens = []
        self._reader = None


class _ByteDecoder:
    """GPT-2 byte-level token string -> raw bytes."""

    def __init__(self) -> None:
        bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(
            range(ord("®"), ord("ÿ") + 1))
        cs = bs[:]
        n = 0
        for b in range(256):
            if b not in bs:
                bs.append(b)
                cs.append(256 + n)
                n += 1
        self.table = {chr(c): b for b, c in zip(bs, cs, strict=True)}

    def decode(self, piece: str) -> bytes:
        return bytes(self.table[c] for c in piece)


_BYTE_DECODER = _ByteDecoder()


def load_backend(path: Path, threads: int = 1, n_ctx: int = 512) -> LlamaCppBackend | HFBackend:
    """A `.gguf` file runs on llama.cpp; a folder with config.json on transformers."""
    path = Path(path)
    if path.suffix == ".gguf":
        return LlamaCppBackend(path, n_ctx=n_ctx, threads=threads)
    return HFBackend(path, threads=threads, n_ctx=n_ctx)
