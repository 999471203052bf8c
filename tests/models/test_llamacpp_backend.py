"""The llama.cpp backend against a real (tiny, random) GGUF written by the training pipeline's writer."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from ghostbook.decoding.plan import DecodePlan
from ghostbook.models.backend import ModelLoadError, TokenOut
from ghostbook.models.llamacpp_backend import PROMPT_CHUNK, LlamaCppBackend

CODE = (Path(__file__).parent.parent.parent / "notebook" / "ghostbook" / "completion" / "context.py").read_text()


@pytest.fixture(scope="module")
def backend(tiny_gguf: Path) -> LlamaCppBackend:
    b = LlamaCppBackend(tiny_gguf, n_ctx=1024, threads=1)
    b.load()
    return b


def fim(b: LlamaCppBackend, prefix: str, suffix: str = "") -> list[int]:
    ids = [b.lookup("<fim_prefix>"), *b.tokenize(prefix), b.lookup("<fim_suffix>"), *b.tokenize(suffix),
           b.lookup("<fim_middle>")]
    assert None not in ids
    return [int(i) for i in ids if i is not None]


async def collect(b: LlamaCppBackend, prompt: list[int], params: DecodePlan,
                  cancel: threading.Event | None = None) -> list[TokenOut]:
    return [t async for t in b.stream(prompt, params, cancel or threading.Event())]


def test_info_and_vocabulary(backend: LlamaCppBackend) -> None:
    assert backend.info.family == "ghostbook"  # detected from <fim_prefix> and general.name
    assert backend.info.n_vocab == 512
    assert backend.lookup("<fim_middle>") == 3 and backend.lookup("no such token") is None
    assert b"".join(backend.piece(i) for i in backend.tokenize("def f(x):")) == b"def f(x):"


async def test_streams_tokens_greedily_and_deterministically(backend: LlamaCppBackend) -> None:
    prompt = fim(backend, CODE[:600])
    first = await collect(backend, prompt, DecodePlan(12))
    second = await collect(backend, prompt, DecodePlan(12))
    assert len(first) == 12 and first == second
    assert backend.last_stats.generated == 12


async def test_stop_ids_end_generation(backend: LlamaCppBackend) -> None:
    prompt = fim(backend, CODE[:300])
    tokens = await collect(backend, prompt, DecodePlan(12))
    stopped = await collect(backend, prompt, DecodePlan(12, stop_ids=frozenset({tokens[2].id})))
    assert stopped == tokens[: tokens.index(tokens[2])]


async def test_prefix_reuse_evaluates_only_the_new_tokens(backend: LlamaCppBackend) -> None:
    await collect(backend, fim(backend, CODE[:1200]), DecodePlan(4))
    longer = CODE[:1200] + "\n    x = 1"
    await collect(backend, fim(backend, longer), DecodePlan(4))
    stats = backend.last_stats
    n_new = len(fim(backend, longer)) - len(fim(backend, CODE[:1200]))
    assert stats.reused_tokens >= stats.prompt_tokens - n_new - 4  # everything up to the edit is reused
    # a prompt with a different start shares nothing
    await collect(backend, fim(backend, "import os\n" + CODE[:500]), DecodePlan(2))
    assert backend.last_stats.reused_tokens <= 1


async def test_healing_constraint_spells_the_removed_text(backend: LlamaCppBackend) -> None:
    prompt = fim(backend, CODE[:400])
    out = await collect(backend, prompt, DecodePlan(6, heal=b" return"))
    text = b"".join(t.piece for t in out)
    assert text.startswith(b" return") or b" return".startswith(text)


async def test_cancel_stops_between_tokens(backend: LlamaCppBackend) -> None:
    cancel = threading.Event()
    got: list[TokenOut] = []
    async for token in backend.stream(fim(backend, CODE[:300]), DecodePlan(200), cancel):
        got.append(token)
        if len(got) == 3:
            cancel.set()
    assert len(got) == 3 and backend.last_stats.cancelled and backend.last_stats.generated < 200


async def test_generation_does_not_block_the_event_loop(backend: LlamaCppBackend) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    start = time.perf_counter()
    await collect(backend, fim(backend, CODE[:1400]), DecodePlan(100))
    elapsed = time.perf_counter() - start
    task.cancel()
    assert ticks >= min(5, elapsed / 0.01)


async def test_prompt_too_long_is_an_error(backend: LlamaCppBackend) -> None:
    with pytest.raises(ValueError, match="does not fit"):
        await collect(backend, [5] * 1100, DecodePlan(8))


def test_missing_and_corrupt_files(tmp_path: Path, tiny_gguf: Path) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        LlamaCppBackend(tmp_path / "nope.gguf").load()
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ModelLoadError, match="not a GGUF"):
        LlamaCppBackend(bad).load()
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(tiny_gguf.read_bytes()[:5000])
    with pytest.raises(ModelLoadError, match="corrupt"):
        LlamaCppBackend(truncated).load()


async def test_a_request_cancelled_while_waiting_does_not_run(backend: LlamaCppBackend) -> None:
    first_prompt = fim(backend, CODE[:600])
    await collect(backend, first_prompt, DecodePlan(2))
    cancel = threading.Event()
    cancel.set()
    assert await collect(backend, fim(backend, "import os\n" + CODE[:300]), DecodePlan(8), cancel) == []
    assert backend.last_stats.cancelled and backend.last_stats.generated == 0
    await collect(backend, first_prompt, DecodePlan(2))  # the KV cache still holds the first prompt
    assert backend.last_stats.reused_tokens == len(first_prompt) - 1


async def test_cancel_during_a_long_prompt_keeps_the_evaluated_part(backend: LlamaCppBackend) -> None:
    prompt = fim(backend, CODE[:1400])
    assert len(prompt) > 300
    backend.forget()
    calls = 0

    def cancelled() -> bool:
        nonlocal calls
        calls += 1
        return calls > 1  # cancelled after the first chunk

    stats = backend.generate(prompt, DecodePlan(8), cancelled, lambda t: None)
    assert stats.cancelled and stats.generated == 0
    await collect(backend, prompt, DecodePlan(2))
    assert backend.last_stats.reused_tokens == PROMPT_CHUNK  # the first chunk stayed in the KV cache


async def test_read_check_is_skipped_where_its_context_cannot_be_made(tmp_path: Path, tiny_gguf: Path) -> None:
    """The read check opens the model file again; if that fails (here the file was removed after
    loading), suggestions come without the check instead of failing."""
    import shutil

    from ghostbook.decoding.lines import LineRules
    from ghostbook.decoding.reading import ReadCheck

    path = tmp_path / "moved.gguf"
    shutil.copy(tiny_gguf, path)
    b = LlamaCppBackend(path, n_ctx=1024, threads=1)
    b.load()
    prompt = fim(b, CODE[:300], CODE[300:400])
    plain = [t.id for t in await collect(b, prompt, DecodePlan(12, beam=3))]
    path.unlink()
    checked = DecodePlan(12, beam=3, rules=LineRules(reading=ReadCheck.around(CODE[:300], CODE[300:400])))
    assert [t.id for t in await collect(b, prompt, checked)] == plain
    assert b._reader is None and b._no_reader
    b.unload()


def test_branches_are_evaluated_together_in_one_decode(backend: LlamaCppBackend) -> None:
    """A beam step's hypotheses (several continuations of one prompt, some sharing a parent) go through
    one `llama_decode`, each in a KV-cache sequence of its own, and get the logits each gets alone."""
    from ghostbook.models.llama_seqs import Sequences

    prompt = fim(backend, CODE[:500])
    branches = [[], [7], [9], [7, 11], [7, 12], [9, 13, 14]]
    alone = []
    for branch in branches:
        backend.forget()
        seqs: Sequences = backend._seqs
        rows = seqs.evaluate([[*prompt, *branch]])
        assert rows is not None
        alone.append(rows[0])
    backend.forget()
    seqs.evaluate([prompt])
    before = seqs.decodes
    together = seqs.evaluate([[*prompt, *branch] for branch in branches])
    assert together is not None and seqs.decodes == before + 1
    for got, want in zip(together, alone, strict=True):
        assert np.allclose(got, want, atol=1e-4)
    # the next step extends them in place: again one decode, only the new tokens evaluated
    before = seqs.decodes
    again = seqs.evaluate([[*prompt, *branch, 20] for branch in branches])
    assert again is not None and seqs.decodes == before + 1
