"""Fixtures for the decoding tests: the tiny random GGUF, the shipped model, and `probe` (a search that
looks at the model through `models.backend.Evaluation`, as the decoding does)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ghostbook.models.backend import Backend, Emit, Evaluation, Vocab
from ghostbook.models.catalog import default_model_path
from ghostbook.models.llamacpp_backend import LlamaCppBackend

from tests.models.conftest import shared_tiny_gguf

# nats: llama.cpp's batched and one-token kernels may score a token this differently (one position in
# twenty by 0.035 nats for the step-5000 weights, the others bit-exact), so a near tie may break either
# way; a position or cache error shows as many positions off, by far more
KERNEL_NOISE = 0.05


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_tiny_gguf(tmp_path_factory)


@pytest.fixture(scope="module")
def shipped() -> Iterator[LlamaCppBackend]:
    path = default_model_path()
    assert path is not None
    backend = LlamaCppBackend(path, n_ctx=512, threads=1)
    backend.load()
    yield backend
    backend.unload()


class Probe:
    """A `Search` that hands the evaluated prompt to `look` and keeps what it returns."""

    max_new_tokens = 1

    def __init__(self, look: Callable[[Evaluation], Any]) -> None:
        self.look, self.result = look, None

    def run(self, model: Evaluation, vocab: Vocab, cancelled: Callable[[], bool], emit: Emit) -> None:
        self.result = self.look(model)


def probe(backend: Backend, prompt: list[int], look: Callable[[Evaluation], Any]) -> Any:
    """What `look(model)` returns for `prompt` evaluated on `backend`."""
    search = Probe(look)
    backend.generate(prompt, search, lambda: False, lambda token: None)
    return search.result
