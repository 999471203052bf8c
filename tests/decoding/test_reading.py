"""The read check (`completion.reading`): the text it reads, the readers of both runtimes on real models,
and what it does for the shipped model on HumanEval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ghostbook.completion.reading import READ_CHARS, ReadCheck, next_lines
from ghostbook.eval.backends import LlamaCppBackend
from ghostbook.eval.generate import TokenIndex, complete
from ghostbook.eval.tasks import humaneval_single_line
from ghostbook.models.beam import log_softmax
from ghostbook.models.llamacpp_backend import LlamaReader
from ghostbook.training.export import default_model_path

CODE = "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"


def test_next_lines_are_the_rest_of_the_line_and_two_code_lines() -> None:
    assert next_lines(")\n\n    b = 2\n\n    c = 3\n    d = 4\n") == ")\n\n    b = 2\n\n    c = 3\n"
    assert next_lines("\n    return x") == "\n    return x"  # shorter: all of it
    assert next_lines("") == ""


def test_the_check_reads_before_the_healed_bytes() -> None:
    check = ReadCheck.around("x = 1\nif x:\n    ", "\nprint(x)\n", b"    ")
    assert (check.before, check.after) == ("x = 1\nif x:\n", "\nprint(x)\n")
    assert ReadCheck.around("a" * (READ_CHARS + 10), "").before == "a" * READ_CHARS


@pytest.fixture(scope="module")
def shipped() -> LlamaCppBackend:
    backend = LlamaCppBackend(default_model_path(), n_ctx=512)
    yield backend
    backend.close()


def test_llama_reader_scores_as_the_model_reads_token_by_token(shipped: LlamaCppBackend) -> None:
    """One batch with logits where it scores gives what evaluating one token at a time gives, and the
    KV cache kept between readings (a shared start) changes nothing."""
    reader = shipped.reader()
    ids = shipped.encode(CODE)
    stepped, logits = [], shipped.start(ids[:5])
    for i in range(5, len(ids)):
        stepped.append(log_softmax(logits)[ids[i]])
        logits = shipped.step(ids[i])
    assert np.allclose(reader.logprobs(ids, 5), stepped, atol=2e-3)
    other = shipped.encode(CODE.replace("t += x", "t = t + x * 2"))
    first = reader.logprobs(other, 9)
    assert np.allclose(reader.logprobs(ids, 5), stepped, atol=2e-3)  # after another reading
    assert np.allclose(reader.logprobs(other, 9), first)


def test_torch_reader_matches_llama_reader(tiny_gguf: Path) -> None:
    from ghostbook.eval.backends import HFBackend

    cpp = LlamaReader(tiny_gguf, threads=1, n_ctx=512)
    hf = HFBackend(tiny_gguf.parent / "hf").reader()
    ids = cpp.tokenize(CODE * 3)
    assert ids == hf.tokenize(CODE * 3)
    for start in (1, 7, len(ids) - 1):
        assert np.allclose(hf.logprobs(ids, start), cpp.logprobs(ids, start), atol=1e-3)
    cpp.close()


def test_a_line_scores_with_the_lines_after_it(shipped: LlamaCppBackend) -> None:
    """A candidate's score is the log-probability of it and the next lines after the text before it."""
    reader = shipped.reader()
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
    index = TokenIndex(shipped, shipped.vocab_size)
    hits = {True: 0, False: 0}
    for task in humaneval_single_line(cut="line")[::12]:
        for reading in (True, False):
            got = complete(shipped, index, task.prefix, task.suffix, beam=4, reading=reading)
            hits[reading] += got.text.strip() == task.middle.strip()
    assert hits[True] > hits[False]
