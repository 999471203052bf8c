"""A tiny random llama-architecture GGUF built with the training pipeline's own writer."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

TEXTS_FROM = ["textwrap.py", "string.py", "bisect.py", "heapq.py"]


def build_tiny_gguf(folder: Path, seed: int = 0) -> Path:
    """Train a 512-token byte-level BPE on a few stdlib files, make a random 2-layer Llama, write it as
    GGUF f32 (returned) and as a transformers folder `hf/` beside it."""
    import torch
    from ghostbook.training.gguf_writer import write_gguf
    from ghostbook.training.model import ModelShape, build_model, llama_config
    from ghostbook.training.tokenizer import special_ids, train_tokenizer

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    texts = [(stdlib / name).read_text() for name in TEXTS_FROM]
    tok = train_tokenizer(texts, vocab_size=512)
    tok_path = folder / "tokenizer.json"
    tok.save(str(tok_path))
    torch.manual_seed(seed)
    shape = ModelShape(vocab_size=512, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=1024)
    special = special_ids(tok)
    model = build_model(llama_config(shape, special))
    with torch.no_grad():  # logit 0 for special tokens: greedy output never stops early by chance
        model.model.embed_tokens.weight[list(special.values())] = 0.0
    from ghostbook.training.export import export_hf

    export_hf(model, tok_path, folder / "hf")  # the same weights as a transformers folder
    return write_gguf(model, tok_path, folder / "tiny-ghostbook.gguf", "f32", name="ghostbook-tiny")


def shared_tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One tiny GGUF per test session, whichever test folder asks first."""
    folder = tmp_path_factory.getbasetemp() / "tiny-gguf"
    path = folder / "tiny-ghostbook.gguf"
    if not path.is_file() or not (folder / "hf" / "config.json").is_file():
        folder.mkdir(exist_ok=True)
        build_tiny_gguf(folder)
    return path


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_tiny_gguf(tmp_path_factory)
