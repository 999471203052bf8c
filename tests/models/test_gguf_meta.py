"""The trained context read from a GGUF header (`models.gguf_meta`), and a load that stays within it."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghostbook.models.gguf_meta import trained_context
from ghostbook.models.llamacpp_backend import LlamaCppBackend

SHIPPED = Path(__file__).parent.parent.parent / "notebook" / "ghostbook" / "models" / "default" / \
    "ghostbook-fim-q8_0.gguf"


def test_the_trained_context_is_read_from_the_header(tiny_gguf: Path, tmp_path: Path) -> None:
    assert trained_context(SHIPPED) == 512
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(tiny_gguf), n_ctx=64, verbose=False)
    assert trained_context(tiny_gguf) == llm._model.n_ctx_train()  # what llama.cpp reads
    llm.close()
    (tmp_path / "text.gguf").write_text("not a model")
    (tmp_path / "cut.gguf").write_bytes(SHIPPED.read_bytes()[:40])
    for path in (tmp_path / "text.gguf", tmp_path / "cut.gguf", tmp_path / "missing.gguf"):
        assert trained_context(path) is None


def test_a_longer_context_asked_loads_the_trained_one_without_a_warning(capfd: pytest.CaptureFixture[str]) -> None:
    backend = LlamaCppBackend(SHIPPED, n_ctx=2048, threads=1)
    backend.load()
    try:
        assert backend.info.n_ctx == 512
        assert "training context overflow" not in capfd.readouterr().err  # llama.cpp's warning
    finally:
        backend.unload()
