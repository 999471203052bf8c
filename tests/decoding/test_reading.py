"""The read check (`decoding.reading`): the text it reads, the readers of both runtimes on real models,
and what it does for the shipped model on HumanEval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ghostbook.decoding.beam import log_softmax
from ghostbook.decoding.reading import READ_CHARS, ReadCheck, next_lines
from ghostbook.eval.generate import complete
from ghostbook.eval.tasks import humaneval_single_line
from ghostbook.models.llamacpp_backend import LlamaCppBackend, LlamaReader

from tests.decoding.conftest import KERNEL_NOISE, probe

CODE = "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"


def test_next_lines_are_the_rest_of_the_line_and_two_code_lines() -> None:
    assert next_lines(")\n\n    b = 2\n\n    c = 3\n    d = 4\n") == ")\n\n    b = 2\n\n    c = 3\n"
    assert next_lines("\n    return x") == "\n    return x"  # shorter: all of it
    assert next_lines("") == ""


def test_the_check_reads_before_the_healed_bytes() -> None:
    check = ReadCheck.around("x = 1\nif x:\n    ", "\nprint(x)\n", b"    ")
    assert (check.before, check.after) == ("x = 1\nif x:\n", "\nprint(x)\n")
    assert ReadCheck.around("a" * (READ_CHARS + 10), "").before == "a" * READ_CHARS


def test_llama_reader_scores_as_the_model_reads_token_by_token(shipped: LlamaCppBackend) -> None:
    """One batch with logits where it scores gives what evaluating one token at a time gives, and the
    KV cache kept between readings (a shared start) changes nothing."""
    ids = shipped.tokenize(CODE)
    rows = probe(shipped, ids[:5], lambda model: [model.logits([ids[5:i]])[0] for i in range(5, len(ids))])
    stepped = [log_softmax(row)[ids[i]] for i, row in zip(range(5, len(ids)), rows, strict=True)]
    reader = probe(shipped, ids[:5], lambda model: model.reader())
    assert _agree(reader.logprobs(ids, 5), stepped)
    other = shipped.tokenize(CODE.replace("t += x", "t = t + x * 2"))
    first = reader.logprobs(other, 9)
    assert _agree(reader.logprobs(ids, 5), stepped)  # after another reading
    assert np.allclose(reader.logprobs(other, 9), first)


def _agree(read: list[float], stepped: list[float]) -> bool:
    """Nine positions in ten alike to 2e-3 nats and none off by more than llama.cpp's kernels differ."""
    off = np.abs(np.asarray(read) - np.asarray(stepped))
    return bool(off.max() < KERNEL_NOISE and np.mean(off < 2e-3) >= 0.9)


def test_torch_reader_matches_llama_reader(tiny_gguf: Path) -> None:
    from ghostbook.models.transformers_backend import TransformersBackend

    cpp = LlamaReader(tiny_gguf, threads=1, n_ctx=512)
    backend = TransformersBackend(tiny_gguf.parent / "hf", threads=1)
    backend.load()
    hf = backend.reader()
    ids = cpp.tokenize(CODE * 3)
    assert ids == hf.tokenize(CODE * 3)
    for start in (1, 7, len(ids) - 1):
        assert np.allclose(hf.logprobs(ids, start), cpp.logprobs(ids, start), atol=1e-3)
    cpp.close()


def test_a_line_scores_with_the_lines_after_it(shipped: LlamaCppBackend) -> None:
    """A candidate's score is the log-probability of it and the next lines after the text before it."""
    reader = probe(shipped, shipped.tokenize(CODE[:15]), lambda model: model.reader())
    check = ReadCheck.around(CODE[:15], CODE[24:])
    assert check.after == "\n    for x in xs:\n        t += x\n"
    (score,) = check.scores(reader, [b"    t = 0"])
    ids, context = reader.tokenize(CODE[:15] + "    t = 0" + check.after), reader.tokenize(CODE[:15])
    shared = 0
    while shared < len(context) and ids[shared] == context[shared]:
        shared += 1
    assert score == pytest.approx(float(np.sum(reader.logprobs(ids, shared))), abs=1e-6)
    assert score > check.scores(reader, [b"    t += 1"])[0]  # the lines after it count from zero


def test_the_read_check_finds_more_reference_lines_on_humaneval(shipped: LlamaCppBackend) -> None:
    """On a spread-out sample of line-start tasks, the beam with the read check writes the reference
    line more often than without it (the card measures all 1033)."""
    hits = {True: 0, False: 0}
    for task in humaneval_single_line(cut="line")[::12]:
        for reading in (True, False):
            got = complete(shipped, task.prefix, task.suffix, beam=4, reading=reading)
            hits[reading] += got.text.strip() == task.middle.strip()
    assert hits[True] > hits[False]


def test_candidates_are_read_together_as_each_is_read_alone(tiny_gguf: Path) -> None:
    """`logprobs_many` (one decode, a KV-cache sequence per candidate) scores what `logprobs` does."""
    reader = LlamaReader(tiny_gguf, threads=1, n_ctx=512)
    before = CODE[:15]
    items = []
    for line in ("    t = 0", "    t += 1", "    return t", "    x = [t for t in xs]"):
        ids = reader.tokenize(before + line + CODE[24:])
        items.append((ids, len(reader.tokenize(before))))
    together = reader.logprobs_many(items)
    for (ids, start), got in zip(items, together, strict=True):
        assert np.allclose(got, reader.logprobs(ids, start), atol=1e-4)
    assert np.allclose(reader.logprobs_many(items)[2], together[2], atol=1e-4)  # again, after single readings
    reader.close()
