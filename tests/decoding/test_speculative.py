"""Speculative greedy (`decoding.speculative`): prompt-lookup drafts on the shipped model (llama.cpp) and
on transformers, a draft model for a transformers target; always greedy's own tokens."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from ghostbook.decoding.beam import log_softmax
from ghostbook.decoding.plan import DecodePlan
from ghostbook.decoding.speculative import lookup
from ghostbook.models.backend import Backend, TokenOut
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.templates import build_prompt, get_template, stop_ids
from ghostbook.models.transformers_backend import TransformersBackend
from ghostbook.training.export import default_model_path

from tests.decoding.conftest import KERNEL_NOISE, probe
from tests.models.conftest import build_tiny_gguf

STDLIB = Path(sysconfig.get_paths()["stdlib"])
DEVICE = os.environ.get("GHOSTBOOK_TEST_DEVICE", "cpu")  # bench/gpu_check.sh: cuda

# copy-heavy notebook edits: a cell that repeats a pattern from the cells above
COPY_CELLS = '''import pandas as pd
df = pd.read_csv("sales.csv")
df["total"] = df["price"] * df["quantity"]
df["tax"] = df["total"] * 0.2
df["net"] = df["total"] - df["tax"]
print(df["total"].sum(), df["tax"].sum(), df["net"].sum())

def summary(frame, column):
    return frame[column].mean(), frame[column].std(), frame[column].max()

summary(df, "total")
summary(df, "tax")
'''


def contexts() -> list[tuple[str, str]]:
    """(prefix, suffix) pairs: cuts through stdlib files and through copy-heavy cells."""
    out = [(COPY_CELLS[:cut], COPY_CELLS[cut:]) for cut in range(40, len(COPY_CELLS), 23)]
    for name in ("textwrap.py", "bisect.py", "heapq.py", "shlex.py"):
        text = (STDLIB / name).read_text()
        for cut in range(600, 6000, 700):
            out.append((text[max(0, cut - 1200) : cut], text[cut : cut + 200]))
    return out


def prompt_of(b: Backend, prefix: str, suffix: str) -> list[int]:
    return build_prompt(get_template(b.info.family), b.tokenize(prefix), b.tokenize(suffix), b.lookup)


def greedy_ids(b: Backend, prompt: list[int], max_new: int = 24) -> list[int]:
    out: list[TokenOut] = []
    stops = stop_ids(get_template(b.info.family), b.lookup)
    b.generate(prompt, DecodePlan(max_new, stops), lambda: False, out.append)
    return [t.id for t in out]


def test_lookup_finds_what_followed_the_tail() -> None:
    assert lookup([1, 2, 3, 4, 5, 9, 2, 3], 2, shortest=2) == [4, 5]
    assert lookup([1, 2, 3, 4, 2, 3, 7, 8, 2, 3], 3, shortest=2) == [7, 8, 2]  # the latest occurrence wins
    assert lookup([5, 1, 2, 3, 9, 9, 4, 1, 2, 3], 2) == [9, 9]  # the longest tail (1, 2, 3) first
    assert lookup([1, 2, 3, 4], 3) == []  # no repeated tail
    assert lookup([7], 3) == [] and lookup([], 3) == []


def test_shipped_model_same_tokens_fewer_decodes(shipped: LlamaCppBackend) -> None:
    """On many contexts greedy with prompt-lookup drafts emits exactly plain greedy's tokens (at most two
    of 46 part at a float near-tie); on the copy-heavy cells it needs fewer `llama_decode` calls."""
    plain_calls = fast_calls = ties = 0
    try:
        for prefix, suffix in contexts():
            prompt = prompt_of(shipped, prefix, suffix)[-400:]
            shipped.speculative = False
            shipped.forget()
            plain = greedy_ids(shipped, prompt)
            calls = shipped._seqs.decodes
            shipped.forget()
            shipped.speculative = True
            fast = greedy_ids(shipped, prompt)
            if fast != plain:  # only where float rounding of a batch vs one token flips a near tie
                ties += 1
                assert near_tie(prompt, plain, fast), (prefix[-80:], plain, fast)
            if prefix.startswith("import pandas"):
                plain_calls += calls
                fast_calls += shipped._seqs.decodes - calls
    finally:
        shipped.speculative = False
    assert ties <= 2, ties
    assert fast_calls < plain_calls


def near_tie(prompt: list[int], plain: list[int], fast: list[int], nats: float = 0.05) -> bool:
    """Whether the first token where `fast` leaves `plain` is within `nats` of plain's token, both
    scored in one batch over the prompt and plain's tokens before it (a llama.cpp matrix product's
    rounding depends on the batch size, so speculative and plain greedy can disagree on a tie)."""
    from llama_cpp import Llama

    at = next(i for i, (a, b) in enumerate(zip(plain, fast, strict=False)) if a != b)
    llm = Llama(str(default_model_path()), n_ctx=512, n_threads=1, logits_all=True, verbose=False)
    try:
        llm.eval(prompt + plain[:at])
        row = llm.scores[len(prompt) + at - 1]
        return bool(abs(float(row[plain[at]]) - float(row[fast[at]])) < nats)
    finally:
        llm.close()


def count_forward(b: TransformersBackend, calls: list[int], at: int) -> None:
    """Count `b`'s model's forward passes in `calls[at]`."""
    forward = b._model.forward

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[at] += 1
        return forward(*args, **kwargs)

    b._model.forward = counted


@pytest.fixture(scope="module")
def target(tiny_gguf: Path) -> TransformersBackend:
    b = TransformersBackend(tiny_gguf.parent / "hf", threads=1, device=DEVICE)
    b.load()
    return b


def test_transformers_prompt_lookup_same_tokens(target: TransformersBackend) -> None:
    try:
        for prefix, suffix in contexts()[::3]:
            prompt = prompt_of(target, prefix, suffix)[-300:]
            target.speculative = False
            plain = greedy_ids(target, prompt)
            target.speculative = True
            assert greedy_ids(target, prompt) == plain
    finally:
        target.speculative = False


def test_draft_model_same_tokens(target: TransformersBackend, tiny_gguf: Path,
                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    """A second tiny model (same tokenizer, other weights) drafts for the target: the target's greedy
    tokens all the same; the target itself as its own draft: every draft is kept."""
    other = tmp_path_factory.mktemp("draft")
    build_tiny_gguf(other, seed=1)
    for draft in (other / "hf", tiny_gguf.parent / "hf"):
        spec = TransformersBackend(tiny_gguf.parent / "hf", threads=1, device=DEVICE, draft=draft)
        spec.load()
        assert spec.draft is not None
        calls = [0, 0]  # forward passes of the target: plain, with the draft model
        for i, b in enumerate((target, spec)):
            count_forward(b, calls, i)
        try:
            for prefix, suffix in contexts()[::4]:
                prompt = prompt_of(target, prefix, suffix)[-300:]
                assert greedy_ids(spec, prompt) == greedy_ids(target, prompt)
        finally:
            del target._model.forward
        if draft == tiny_gguf.parent / "hf":  # its own draft: every draft kept, 24 tokens in a few calls
            assert calls[1] * 3 < calls[0], calls
        spec.unload()


def test_greedy_after_a_beam_is_the_same(shipped: LlamaCppBackend) -> None:
    """A beam for the first line, then greedy for the rest of the suggestion (single-line plans; greedy
    runs in 8 of these 10 cases): the same suggestion with speculative greedy."""
    from ghostbook.decoding.plan import Around, Choices

    stops = stop_ids(get_template(shipped.info.family), shipped.lookup)
    try:
        for prefix, suffix in contexts()[::5]:
            plan = DecodePlan.around(Around(prefix, suffix, prefix, suffix), b"", 32, stops,
                                     Choices(beam=2, read_check=False, multi_line=False))
            prompt = prompt_of(shipped, prefix, suffix)[-400:]
            outs = []
            for speculative in (False, True):
                shipped.speculative = speculative
                out: list[TokenOut] = []
                shipped.generate(prompt, plan, lambda: False, out.append)
                outs.append([t.id for t in out])
            if outs[0] != outs[1]:  # only at a near tie, which llama.cpp's batched kernels may break otherwise
                k = next(i for i, (a, b) in enumerate(zip(*outs, strict=False)) if a != b)
                row = probe(shipped, prompt, lambda model, done=outs[0][:k]: model.logits([done])[0])
                lp = log_softmax(row)
                assert abs(lp[outs[0][k]] - lp[outs[1][k]]) < KERNEL_NOISE, (k, outs)
    finally:
        shipped.speculative = False
