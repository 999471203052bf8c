"""An edit model is a chat model: it loads without FIM tokens, and keeps no FIM family; a completion
model without them continues the text above the cursor (the `plain` family)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from ghostbook.models.loader import ModelRegistry, default_factory, edit_factory
from ghostbook.models.templates import PLAIN
from ghostbook.models.transformers_backend import TransformersBackend


@pytest.fixture(scope="module")
def chat_only(shipped_hf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped weights with a vocabulary whose FIM tokens are renamed: a model that cannot fill in."""
    folder = tmp_path_factory.mktemp("chat-only") / "hf"
    shutil.copytree(shipped_hf, folder)
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    for token in tokenizer["added_tokens"]:
        token["content"] = token["content"].replace("fim_", "unused_")
    vocab = tokenizer["model"]["vocab"]
    for text in [t for t in vocab if "fim_" in t]:
        vocab[text.replace("fim_", "unused_")] = vocab.pop(text)
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))
    return folder


def test_a_model_without_fim_tokens_completes_from_the_text_above_and_is_taken_for_editing(chat_only: Path) -> None:
    completion = default_factory(chat_only, None, "chat-only")
    completion.load()
    try:
        assert completion.info.family == PLAIN
    finally:
        completion.unload()
    backend = edit_factory(chat_only, None, "chat-only")
    assert isinstance(backend, TransformersBackend)
    backend.load()
    try:
        assert backend.tokenize("x = 1") and backend.info.family == ""
    finally:
        backend.unload()


def test_the_edit_registry_loads_it(chat_only: Path) -> None:
    async def load() -> str:
        registry = ModelRegistry(edit_factory)
        await registry.ensure(str(chat_only))
        state = registry.status.state
        await registry.close()
        return state

    assert asyncio.run(load()) == "ready"
