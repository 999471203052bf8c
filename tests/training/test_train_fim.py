"""The FIM transform: span kinds, PSM/SPM layouts, trimming, and sampled sequences."""

from __future__ import annotations

import dataclasses
import random

import pytest
from ghostbook.training.fim import (
    _line_starts,
    block_span,
    char_span,
    code_lines,
    fit,
    line_span,
    psm,
    random_split,
    rest_of_line_span,
    spm,
    with_writing,
    writing_span,
)

DOC = "import os\n\n\ndef f(x):\n    y = x + 1\n    return y * 2\n\n\nclass A:\n    pass\n"


@pytest.mark.parametrize("fn", [char_span, line_span, rest_of_line_span, block_span, random_split])
def test_spans_reassemble_the_document(fn) -> None:
    rng = random.Random(0)
    for _ in range(200):
        s = fn(DOC, rng)
        assert s.prefix + s.middle + s.suffix == DOC


def test_line_span_is_one_whole_line() -> None:
    rng = random.Random(1)
    for _ in range(100):
        s = line_span(DOC, rng)
        assert s.prefix == "" or s.prefix.endswith("\n")
        assert "\n" not in s.middle and s.middle.strip()
        assert s.suffix == "" or s.suffix.startswith("\n")


def test_rest_of_line_ends_the_line_and_cuts_after_indent_space_or_mid_word() -> None:
    rng = random.Random(2)
    kinds = set()
    for _ in range(300):
        s = rest_of_line_span(DOC, rng)
        assert "\n" not in s.middle and (s.suffix == "" or s.suffix.startswith("\n"))
        last = s.prefix.split("\n")[-1]
        kinds.add("indent" if not last.strip() else "space" if last.endswith(" ") else "word")
    assert kinds == {"indent", "space", "word"}


def test_block_span_covers_several_whole_lines() -> None:
    rng = random.Random(3)
    s = block_span(DOC, rng)
    assert s.middle.count("\n") >= 1 and (s.prefix == "" or s.prefix.endswith("\n"))


DOCUMENTED = '''def f(x):
    """Summary line.

    More prose, with a quote: "it".
    """
    # a comment
    y = x + 1  # trailing comment
    s = """a string
that spans lines"""
    return y
'''


def test_code_lines_skip_docstrings_and_comments() -> None:
    lines = DOCUMENTED.split("\n")
    picked = [lines[i].strip() for i in code_lines(DOCUMENTED, _line_starts(DOCUMENTED))]
    assert picked == ["def f(x):", "y = x + 1  # trailing comment", 's = """a string', "return y"]


@pytest.mark.parametrize("fn", [line_span, rest_of_line_span, block_span])
def test_code_only_spans_start_at_code_lines(fn) -> None:
    rng = random.Random(4)
    code = {"def f(x):", "y = x + 1  # trailing comment", 's = """a string', "return y"}
    starts = set()
    for _ in range(200):
        s = fn(DOCUMENTED, rng, True)
        assert s.prefix + s.middle + s.suffix == DOCUMENTED
        line = DOCUMENTED[len(s.prefix) - len(s.prefix.split("\n")[-1]):].split("\n")[0].strip()
        assert line in code
        starts.add(line)
    assert len(starts) >= 3
    # Without the flag the docstring and comment lines are picked too (the old recipe).
    anywhere = {DOCUMENTED[len(s.prefix):].split("\n")[0].strip() for s in (line_span(DOCUMENTED, rng)
                                                                           for _ in range(200))}
    assert '"""' in anywhere and "# a comment" in anywhere


def test_layouts_and_fit() -> None:
    assert psm(1, 2, 3, [10, 11], [20]) == [1, 10, 11, 2, 20, 3]
    assert spm(1, 2, 3, [10, 11], [20]) == [2, 20, 1, 10, 11, 3]
    p, s = fit(list(range(100)), list(range(100, 200)), 30)
    assert len(p) + len(s) == 30 and p[-1] == 99 and s[0] == 100
    assert fit([1, 2], [3], 10) == ([1, 2], [3])


def test_sampler_sequences_have_fim_and_plain_examples(tiny_work) -> None:
    from ghostbook.training.corpus import read_docs
    from ghostbook.training.data import FimConfig, SequenceSampler
    from ghostbook.training.tokenizer import load_tokenizer

    tok = load_tokenizer(tiny_work / "tokenizer.json")
    texts = [d.text for d in read_docs(tiny_work / "corpus" / "train.jsonl")]
    sampler = SequenceSampler(texts, tok, 128, FimConfig(), seed=0)
    batch = sampler.batch(8)
    assert batch.shape == (8, 129)
    ids = [sampler.example(sampler._window(sampler._doc())) for _ in range(100)]
    mid = tok.token_to_id("<fim_middle>")
    eot = tok.token_to_id("<|endoftext|>")
    assert all(x[-1] == eot for x in ids)
    n_fim = sum(mid in x for x in ids)
    assert 70 <= n_fim < 100  # fim_rate 0.9


def test_writing_span_has_nothing_after_the_cursor() -> None:
    """As while a notebook is written: the document ends at the middle's last line, no suffix."""
    rng = random.Random(5)
    lines_in_middle = set()
    for _ in range(300):
        s = writing_span(DOC, rng)
        assert s.kind == "writing" and s.suffix == ""
        assert DOC.startswith(s.prefix + s.middle)
        end = len(s.prefix) + len(s.middle)
        assert end == len(DOC) or DOC[end] == "\n"  # the middle ends a line
        lines_in_middle.add(s.middle.count("\n") + 1)
    assert 1 in lines_in_middle and max(lines_in_middle) >= 3  # mostly the line, sometimes a few more


def test_with_writing_keeps_the_other_kinds_in_proportion() -> None:
    base = {"line": 0.35, "rest_of_line": 0.15, "block": 0.2, "char": 0.3}
    assert list(with_writing(base, 0.0).items()) == list(base.items())  # earlier stages draw the same spans
    mixed = with_writing(base, 0.4)
    assert mixed["writing"] == 0.4 and sum(mixed.values()) == pytest.approx(1.0)
    assert mixed["line"] / mixed["char"] == pytest.approx(0.35 / 0.3)
    rng = random.Random(6)
    kinds = {random_split(DOC, rng, mixed).kind for _ in range(200)}
    assert "writing" in kinds and "line" in kinds


def test_writing_examples_are_spm_prompts_with_an_empty_suffix(tiny_work) -> None:
    """The editor asks the built-in model in SPM (fim.json): with nothing after the cursor its prompt
    starts `<fim_suffix><fim_prefix>`, and so does every writing example."""
    from ghostbook.training.corpus import read_docs
    from ghostbook.training.data import FimConfig, SequenceSampler
    from ghostbook.training.tokenizer import load_tokenizer

    tok = load_tokenizer(tiny_work / "tokenizer.json")
    texts = [d.text for d in read_docs(tiny_work / "corpus" / "train.jsonl")]
    sampler = SequenceSampler(texts, tok, 128, FimConfig(fim_rate=1.0, weights=(("writing", 1.0),)), seed=0)
    head = [tok.token_to_id("<fim_suffix>"), tok.token_to_id("<fim_prefix>")]
    examples = [sampler.example(sampler._window(sampler._doc())) for _ in range(50)]
    assert all(example[:2] == head for example in examples)


def test_writing_spans_can_be_kept_to_notebooks(tiny_work) -> None:
    """`writing_in="notebooks"`: notebooks get writing examples (`<fim_suffix><fim_prefix>`, no suffix)
    at the share; library code keeps the earlier stages' spans, none of them a writing span."""
    from ghostbook.training.continued import is_notebook
    from ghostbook.training.data import SequenceSampler
    from ghostbook.training.model import PRESETS
    from ghostbook.training.tokenizer import load_tokenizer
    from ghostbook.training.train import fim_config

    tok = load_tokenizer(tiny_work / "tokenizer.json")
    texts = [DOC, "# A notebook\n\n" + DOC]
    preset = dataclasses.replace(PRESETS["default"], writing_share=1.0, writing_in="notebooks")
    fim = dataclasses.replace(fim_config(preset, second=True), fim_rate=1.0)
    sampler = SequenceSampler(texts, tok, 512, fim, seed=0, notebooks=[False, True])
    spm_empty = [tok.token_to_id("<fim_suffix>"), tok.token_to_id("<fim_prefix>")]

    def writing(example: list[int]) -> bool:  # an SPM prompt whose suffix is empty
        return example[:2] == spm_empty

    assert all(writing(sampler.example(sampler._window(texts[1]), notebook=True)) for _ in range(30))
    assert not any(writing(sampler.example(sampler._window(texts[0]), notebook=False)) for _ in range(60))
    picked = [sampler._pick() for _ in range(200)]
    assert {flag for text, flag in picked if text == texts[1]} == {True}
    assert {flag for text, flag in picked if text == texts[0]} == {False}
    # the default and "all" draw as before: writing spans in every document at the share
    everywhere = fim_config(dataclasses.replace(preset, writing_share=0.4, writing_in="all"), second=True)
    assert dict(everywhere.weights)["writing"] == 0.4 and everywhere.notebook_weights is None
    assert is_notebook("owner__repo/analysis.ipynb") and not is_notebook("numpy/core/fromnumeric.py")
    with pytest.raises(ValueError, match="notebook flags"):
        SequenceSampler(texts, tok, 512, fim, seed=0, notebooks=[True])
