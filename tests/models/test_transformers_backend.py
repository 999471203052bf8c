"""The transformers backend on the same tiny model: same greedy tokens as llama.cpp, KV reuse, cancel."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from ghostbook.decoding.plan import DecodePlan
from ghostbook.models.backend import ModelLoadError, TokenOut
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.transformers_backend import TransformersBackend

CODE = (Path(__file__).parent.parent.parent / "notebook" / "ghostbook" / "completion" / "cache.py").read_text()


@pytest.fixture(scope="module")
def hf(tiny_gguf: Path) -> TransformersBackend:
    b = TransformersBackend(tiny_gguf.parent / "hf", threads=1)
    b.load()
    return b


def fim(b: TransformersBackend | LlamaCppBackend, prefix: str) -> list[int]:
    ids = [b.lookup("<fim_suffix>"), b.lookup("<fim_prefix>"), *b.tokenize(prefix), b.lookup("<fim_middle>")]
    return [int(i) for i in ids if i is not None]


async def collect(b: TransformersBackend | LlamaCppBackend, prompt: list[int], params: DecodePlan,
                  cancel: threading.Event | None = None) -> list[TokenOut]:
    return [t async for t in b.stream(prompt, params, cancel or threading.Event())]


async def test_same_tokens_and_pieces_as_llama_cpp(hf: TransformersBackend, tiny_gguf: Path) -> None:
    cpp = LlamaCppBackend(tiny_gguf, n_ctx=1024, threads=1)
    cpp.load()
    assert hf.info.family == cpp.info.family == "ghostbook"
    assert hf.tokenize(CODE[:300]) == cpp.tokenize(CODE[:300])
    assert [hf.piece(i) for i in range(512)] == [cpp.piece(i) for i in range(512)]
    for cut in (120, 260, 400):
        prompt = fim(hf, CODE[:cut])
        assert [t.id for t in await collect(hf, prompt, DecodePlan(10))] == [
            t.id for t in await collect(cpp, prompt, DecodePlan(10))]
    cpp.unload()


async def test_kv_reuse_gives_the_same_tokens(hf: TransformersBackend) -> None:
    hf.forget()
    cold = await collect(hf, fim(hf, CODE[:500]), DecodePlan(8))
    await collect(hf, fim(hf, CODE[:450]), DecodePlan(8))
    warm = await collect(hf, fim(hf, CODE[:500]), DecodePlan(8))
    assert hf.last_stats.reused_tokens > 100
    assert warm == cold


async def test_healing_and_cancel(hf: TransformersBackend) -> None:
    out = await collect(hf, fim(hf, CODE[:200]), DecodePlan(5, heal=b" self"))
    text = b"".join(t.piece for t in out)
    assert text.startswith(b" self") or b" self".startswith(text)
    cancel = threading.Event()
    got = []
    async for token in hf.stream(fim(hf, CODE[:200]), DecodePlan(100), cancel):
        got.append(token)
        cancel.set()
    assert len(got) == 1 and hf.last_stats.cancelled


def test_not_a_model_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="not a transformers model folder"):
        TransformersBackend(tmp_path).load()


def test_branches_go_through_one_forward_pass(hf: TransformersBackend) -> None:
    """A beam step's hypotheses are one batch over the cache of the text they share, and get the logits
    each gets alone."""
    import numpy as np
    from ghostbook.models.backend import Evaluation

    from tests.decoding.conftest import probe

    branches = [[], [7], [9], [7, 11], [9, 13, 14]]
    calls: list[int] = []
    handle = hf._model.register_forward_hook(lambda *args: calls.append(1))

    def look(model: Evaluation) -> tuple[list[np.ndarray], np.ndarray, int]:
        alone = [model.logits([branch])[0] for branch in branches]
        calls.clear()
        together = model.logits(branches)
        return alone, together, len(calls)

    try:
        alone, together, forwards = probe(hf, fim(hf, CODE[:300]), look)
    finally:
        handle.remove()
    assert forwards == 1
    for got, want in zip(together, alone, strict=True):
        assert np.allclose(got, want, atol=1e-4)
