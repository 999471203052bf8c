"""FIM templates against a real byte-level BPE tokenizer trained in a fixture with every family's tokens."""

from __future__ import annotations

import pytest
from ghostbook.models.templates import (
    PREFIX,
    SUFFIX,
    TEMPLATES,
    TemplateError,
    build_prompt,
    get_template,
    stop_ids,
)
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

PREFIX_TEXT = "def add(a, b):\n    return "
SUFFIX_TEXT = "\n\nprint(add(1, 2))\n"

EXPECTED_TEXT = {
    ("ghostbook", None): "<fim_suffix>{s}<fim_prefix>{p}<fim_middle>",
    ("ghostbook", "psm"): "<fim_prefix>{p}<fim_suffix>{s}<fim_middle>",
    ("ghostbook", "spm"): "<fim_suffix>{s}<fim_prefix>{p}<fim_middle>",
    ("starcoder", "psm"): "<fim_prefix>{p}<fim_suffix>{s}<fim_middle>",
    ("starcoder", "spm"): "<fim_prefix><fim_suffix>{s}<fim_middle>{p}",
    ("santacoder", "psm"): "<fim-prefix>{p}<fim-suffix>{s}<fim-middle>",
    ("santacoder", "spm"): "<fim-prefix><fim-suffix>{s}<fim-middle>{p}",
    ("qwen2.5-coder", "psm"): "<|fim_prefix|>{p}<|fim_suffix|>{s}<|fim_middle|>",
    ("deepseek-coder", "psm"): "<｜begin▁of▁sentence｜><｜fim▁begin｜>{p}<｜fim▁hole｜>{s}<｜fim▁end｜>",
    ("codellama", "psm"): "<s><PRE>{p}<SUF>{s}<MID>",
    ("codellama", "spm"): "<s><PRE><SUF>{s}<MID>{p}",
    ("codegen2", "psm"): "{p}<mask_1>{s}<|endoftext|><sep><mask_1>",
    ("plain", None): "{p}",  # a model without FIM tokens: the text above only
}


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    """Byte-level BPE trained on a few strings; every family's special tokens registered as special."""
    special = sorted({t for tpl in TEMPLATES.values() for t in (*tpl.special_tokens(), *tpl.stop)})
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=special, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([PREFIX_TEXT, SUFFIX_TEXT, "import numpy as np\nx = np.zeros(3)\n"] * 20, trainer)
    return tok


def encode(tok: Tokenizer, text: str) -> list[int]:
    return tok.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize(("family", "mode"), list(EXPECTED_TEXT))
def test_layout_and_single_id_special_tokens(tokenizer: Tokenizer, family: str, mode: str) -> None:
    template = get_template(family)
    prefix_text = (" " + PREFIX_TEXT) if template.prefix_space else PREFIX_TEXT
    p_ids, s_ids = encode(tokenizer, prefix_text), encode(tokenizer, SUFFIX_TEXT)
    ids = build_prompt(template, p_ids, s_ids, tokenizer.token_to_id, mode)  # type: ignore[arg-type]
    special_ids = {tokenizer.token_to_id(t) for t in template.special_tokens()}
    assert None not in special_ids
    # each special token appears as exactly one id, at the place the layout says
    layout = ([template.bos] if template.bos else []) + list(template.layout(mode))  # type: ignore[arg-type]
    expected_ids: list[int] = []
    for part in layout:
        expected_ids += p_ids if part == PREFIX else s_ids if part == SUFFIX else [tokenizer.token_to_id(part)]
    assert ids == expected_ids
    assert sum(1 for i in ids if i in special_ids) == len([x for x in layout if x not in (PREFIX, SUFFIX)])
    text = tokenizer.decode(ids, skip_special_tokens=False)
    assert text == EXPECTED_TEXT[(family, mode)].format(p=prefix_text, s=SUFFIX_TEXT)


def test_codellama_prefix_is_spaced(tokenizer: Tokenizer) -> None:
    """CodeLlama's `<PRE> {prefix} <SUF>`: the prefix is encoded after a space (SentencePiece's dummy prefix)."""
    assert get_template("codellama").prefix_space
    assert not any(t.prefix_space for name, t in TEMPLATES.items() if name != "codellama")


def test_special_text_is_not_tokenised_into_pieces(tokenizer: Tokenizer) -> None:
    """Why ids: a tokenizer without the token registered would split its text into many ordinary pieces."""
    plain = Tokenizer(models.BPE())
    plain.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    plain.train_from_iterator([PREFIX_TEXT] * 5, trainers.BpeTrainer(
        vocab_size=300, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    assert len(plain.encode("<fim_prefix>").ids) > 1
    assert len(encode(tokenizer, "<fim_prefix>")) == 1  # registered: one id


def test_missing_token_and_missing_layout(tokenizer: Tokenizer) -> None:
    lookup = {"<fim_prefix>": 1, "<fim_suffix>": 2}.get
    with pytest.raises(TemplateError, match="<fim_middle>"):
        build_prompt(get_template("starcoder"), [5], [6], lookup)
    with pytest.raises(TemplateError, match="suffix-prefix-middle"):
        build_prompt(get_template("qwen2.5-coder"), [5], [6], tokenizer.token_to_id, "spm")
    with pytest.raises(TemplateError, match="unknown model family"):
        get_template("gpt-7")


def test_stop_ids_skip_absent_tokens(tokenizer: Tokenizer) -> None:
    ids = stop_ids(get_template("qwen2.5-coder"), tokenizer.token_to_id, eos=7)
    assert tokenizer.token_to_id("<|endoftext|>") in ids and 7 in ids
    assert stop_ids(get_template("ghostbook"), {"<|endoftext|>": 3}.get) == frozenset({3})
