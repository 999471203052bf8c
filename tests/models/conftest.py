"""Shared fixtures: a tiny random llama-architecture GGUF built with the training pipeline's own writer,
and a real llama-cpp-python server (`llama_cpp.server`) with the shipped GGUF on loopback."""

from __future__ import annotations

import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
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


KEY = "sk-loopback-test"  # the API key the loopback llama_cpp.server requires


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` with the shipped GGUF on a free loopback port, requiring KEY: its
    `/v1/completions` (FIM through a template) and `/v1/chat/completions`. The shipped model has no chat
    template: alpaca's plain-text layout ("### Instruction:" / "### Response:") is given, one a code model
    answers (after chatml's markers it stops at once)."""
    from ghostbook.models.catalog import default_model_path

    model = default_model_path()
    assert model is not None
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
                                    "127.0.0.1", "--port", str(port), "--n_ctx", "512", "--n_threads", "1",
                                    "--chat_format", "alpaca", "--api_key", KEY], stdout=out,
                                   stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/v1/models", headers={"Authorization": f"Bearer {KEY}"}).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"llama_cpp.server did not start:\n{log.read_text()}")
        time.sleep(0.2)
    yield url
    process.terminate()
    process.wait(timeout=10)
