"""Shipping: files copied with FIM token ids; the shipped default model (when present) completes code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_ship_copies_model_tokenizer_and_fim_ids(tiny_work: Path, tmp_path: Path) -> None:
    from ghostbook.training.ship import ship

    target = ship(tiny_work / "export", "q8_0", dest=tmp_path)
    assert target.name == "ghostbook-fim-q8_0.gguf" and target.stat().st_size > 0
    fim = json.loads((tmp_path / "fim.json").read_text())
    assert fim["tokens"] == {"<|endoftext|>": 0, "<fim_prefix>": 1, "<fim_suffix>": 2, "<fim_middle>": 3,
                             "<fim_pad>": 4}
    assert fim["template"] == "spm" and fim["add_bos"] is False
    assert (tmp_path / "tokenizer.json").read_bytes() == (tiny_work / "tokenizer.json").read_bytes()


def test_shipped_default_model_completes_code() -> None:
    from ghostbook.eval.backends import LlamaCppBackend
    from ghostbook.eval.generate import TokenIndex, complete
    from ghostbook.training.export import default_model_dir, default_model_path

    path = default_model_path()
    if not path.exists():
        pytest.skip("no shipped model yet")
    assert path.stat().st_size <= 40 * 1024 * 1024
    fim = json.loads((default_model_dir() / "fim.json").read_text())
    backend = LlamaCppBackend(path, n_ctx=512)
    assert [backend.eot, backend.fim_prefix, backend.fim_suffix, backend.fim_middle] == [
        fim["tokens"][k] for k in ("<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>")]
    index = TokenIndex(backend, backend.vocab_size)
    out = complete(backend, index, "def add(a, b):\n    return ", "\n", max_new=8)
    assert out.text.strip()  # a real, non-empty line
    backend.close()
