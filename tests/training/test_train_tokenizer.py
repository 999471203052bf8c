"""HF tokenizer and GGUF (llama.cpp) tokenizer agree on every text of the evaluation set."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghostbook.training.fim import SPECIAL_TOKENS


def _eval_texts() -> list[str]:
    from ghostbook.eval.tasks import humaneval_multi_line, humaneval_single_line

    texts = []
    for t in humaneval_single_line() + humaneval_multi_line():
        texts += [t.prefix, t.middle, t.suffix]
    return sorted(set(texts)) + ["  x\t\ty\r\n", "naïve café — ünïcode ✓ 数学", "\n\n\n    \n", "'''\"\"\" #"]


def _compare(tokenizer_json: Path, gguf_path: Path) -> None:
    import llama_cpp
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_json))
    llm = llama_cpp.Llama(str(gguf_path), n_ctx=64, n_threads=1, verbose=False, vocab_only=True)
    for i, name in enumerate(SPECIAL_TOKENS):
        assert tok.token_to_id(name) == i
        assert llm.tokenize(name.encode(), add_bos=False, special=True) == [i]
    for text in _eval_texts():
        hf = tok.encode(text, add_special_tokens=False).ids
        assert llm.tokenize(text.encode(), add_bos=False, special=False) == hf, text
        assert tok.decode(hf) == text
    llm.close()


def test_tiny_tokenizer_round_trip_hf_vs_gguf(tiny_work: Path) -> None:
    _compare(tiny_work / "tokenizer.json", tiny_work / "export" / "ghostbook-fim-f16.gguf")


def test_shipped_tokenizer_round_trip_hf_vs_gguf() -> None:
    from ghostbook.training.export import default_model_dir, default_model_path

    if not default_model_path().exists():
        pytest.skip("no shipped model yet")
    _compare(default_model_dir() / "tokenizer.json", default_model_path())
