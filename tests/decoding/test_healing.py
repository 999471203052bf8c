from __future__ import annotations

import pytest
from ghostbook.decoding.tokens import TokenIndex, heal, indentation_to_heal, should_heal
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

CODE = "import numpy as np\nvalues = np.zeros(10)\nfor value in values:\n    print(value)\n"


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t.decoder = decoders.ByteLevel()
    t.train_from_iterator([CODE] * 50, trainers.BpeTrainer(vocab_size=320, special_tokens=["<|endoftext|>"],
                                                           show_progress=False,
                                                           initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return t


def pieces(tok: Tokenizer) -> list[bytes]:
    return [tok.decode([i]).encode() if i != 0 else b"" for i in range(tok.get_vocab_size())]


@pytest.mark.parametrize("prefix", ["values = np.ze", "for value in ", "for value in values:\n    ", "import num"])
def test_heal_backs_up_one_token(tok: Tokenizer, prefix: str) -> None:
    ids = tok.encode(prefix).ids
    shorter, removed = heal(ids, lambda i: pieces(tok)[i], special={0})
    assert shorter == ids[:-1]
    assert tok.decode(shorter).encode() + removed == prefix.encode()
    assert removed  # the cut token's text must be regenerated


def test_heal_leaves_special_and_empty_alone() -> None:
    assert heal([], lambda i: b"x") == ([], b"")
    assert heal([4, 0], lambda i: b"x", special={0}) == ([4, 0], b"")


def test_constraint_allows_exactly_the_consistent_tokens(tok: Tokenizer) -> None:
    p = pieces(tok)
    index = TokenIndex(p, special={0})
    required = b" val"
    allowed = set(index.allowed(required))
    expected = {i for i, piece in enumerate(p) if piece and (piece.startswith(required) or required.startswith(piece))}
    assert allowed == expected
    assert any(p[i].startswith(b" values") for i in allowed)  # the merged word the model knows
    assert 0 not in allowed


def test_advance_and_high_bytes() -> None:
    index = TokenIndex([b"a\xff", b"a\xff\xff", b"b", b"a"], special=())
    assert set(index.allowed(b"a\xff")) == {0, 1, 3}
    assert TokenIndex.advance(b" val", b" v") == b"al"
    assert TokenIndex.advance(b" v", b" values") == b""


@pytest.mark.parametrize(("text", "heal_it"), [("x = ", True), ("np.ze", True), ("f(", False), ("x.", False),
                                               ("", False), ("if x:\n    ", False), ("if x:\n", False),
                                               ("if x:\n    y = ", True), ("if x:\n    re", True),
                                               ("a\r\n", False)])
def test_should_heal(text: str, heal_it: bool) -> None:
    assert should_heal(text) is heal_it


@pytest.mark.parametrize(("text", "indentation"), [("if x:\n    ", "    "), ("if x:\n\t", "\t"), ("if x:\n", ""),
                                                   ("    ", "    "), ("", ""), ("if x:\n    y", "")])
def test_indentation_to_heal_is_the_line_so_far_when_only_indentation(text: str, indentation: str) -> None:
    assert indentation_to_heal(text) == indentation
