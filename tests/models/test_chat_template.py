"""Chat prompts for edit models (`models.chat_template`): a GGUF's own template from its metadata, rendered
by llama-cpp-python's Jinja2 formatter with special tokens as ids; a transformers folder's through its
tokenizer; the fallback layout for a model with none (the shipped FIM model)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from ghostbook.models.backend import Backend
from ghostbook.models.catalog import default_model_path
from ghostbook.models.chat_template import chat_prompt_ids, fallback_text, has_chat_template
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.transformers_backend import TransformersBackend

# a template that needs the tokenizer's own special tokens: `<fim_pad>` opens a turn, the EOS ends it
TEMPLATE = ("{% for m in messages %}<fim_pad>{{ m['role'] }}\n{{ m['content'] }}{{ eos_token }}{% endfor %}"
            "{% if add_generation_prompt %}<fim_pad>assistant\n{% endif %}")
MESSAGES = [{"role": "system", "content": "You edit cells."},
            {"role": "user", "content": "```python\ndf.head()\n```\n\nshow 10 rows"}]


def expected(b: Backend) -> list[int]:
    """`TEMPLATE` for `MESSAGES`: each special token one id, the text between them tokenized alone."""
    pad, eos = b.lookup("<fim_pad>"), b.lookup("<|endoftext|>")
    assert pad is not None and eos is not None
    ids: list[int] = []
    for m in MESSAGES:
        ids += [pad, *b.tokenize(f"{m['role']}\n{m['content']}"), eos]
    return [*ids, pad, *b.tokenize("assistant\n")]


@pytest.fixture(scope="module")
def shipped() -> Iterator[LlamaCppBackend]:
    path = default_model_path()
    assert path is not None
    b = LlamaCppBackend(path, n_ctx=512, threads=1)
    b.load()
    yield b
    b.unload()


@pytest.fixture(scope="module")
def templated_gguf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppBackend]:
    """The shipped GGUF with `tokenizer.chat_template` added to its metadata (gguf's own script)."""
    path = default_model_path()
    assert path is not None
    out = tmp_path_factory.mktemp("templated") / "chat.gguf"
    subprocess.run([sys.executable, "-m", "gguf.scripts.gguf_new_metadata", str(path), str(out), "--chat-template",
                    TEMPLATE, "--force"], check=True, capture_output=True)
    b = LlamaCppBackend(out, n_ctx=512, threads=1)
    b.load()
    yield b
    b.unload()


def test_fallback_layout() -> None:
    assert fallback_text(MESSAGES) == ("You edit cells.\n\n### Instruction:\n```python\ndf.head()\n```\n\nshow 10 rows"
                                       "\n\n### Response:\n")
    turns = [*MESSAGES, {"role": "assistant", "content": "```python\ndf.head(10)\n```"},
             {"role": "user", "content": "now 20"}]
    assert fallback_text(turns).endswith("### Response:\n```python\ndf.head(10)\n```\n\n### Instruction:\nnow 20\n\n"
                                         "### Response:\n")


def test_shipped_model_has_no_template(shipped: LlamaCppBackend) -> None:
    assert not has_chat_template(shipped)
    assert chat_prompt_ids(shipped, MESSAGES) == shipped.tokenize(fallback_text(MESSAGES))


def test_gguf_template_from_metadata(templated_gguf: LlamaCppBackend) -> None:
    assert has_chat_template(templated_gguf)
    assert templated_gguf.metadata["tokenizer.chat_template"] == TEMPLATE
    ids = chat_prompt_ids(templated_gguf, MESSAGES)
    assert ids == expected(templated_gguf)
    assert templated_gguf.token_text(0) == "<|endoftext|>"


def test_transformers_template(tiny_gguf: Path, tmp_path: Path) -> None:
    folder = tmp_path / "hf"
    shutil.copytree(tiny_gguf.parent / "hf", folder)
    plain = TransformersBackend(folder, threads=1, device="cpu")
    plain.load()
    assert not has_chat_template(plain)
    assert chat_prompt_ids(plain, MESSAGES) == plain.tokenize(fallback_text(MESSAGES))
    templated = tmp_path / "templated"
    shutil.copytree(folder, templated)
    config = json.loads((templated / "tokenizer_config.json").read_text())
    (templated / "tokenizer_config.json").write_text(json.dumps({**config, "chat_template": TEMPLATE}))
    b = TransformersBackend(templated, threads=1, device="cpu")
    b.load()
    assert has_chat_template(b)
    assert chat_prompt_ids(b, MESSAGES) == expected(b)
