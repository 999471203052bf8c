"""Chat messages to the prompt token ids of an in-process edit model, with the model's own chat template.

- llama.cpp: the GGUF's `tokenizer.chat_template` (its metadata), rendered by llama-cpp-python's
  `Jinja2ChatFormatter` (the renderer its own chat completions use, with the model's BOS and EOS text),
  then tokenized with special tokens parsed (`<|im_start|>` becomes its id, as llama.cpp's server does).
- transformers: the tokenizer's `apply_chat_template` (its `chat_template`).
- Either way the assistant's turn is opened (`add_generation_prompt`): the model answers next.

A model with no chat template (the shipped FIM model, base models) gets `FALLBACK`, a plain layout of
ordinary text (no special tokens, no BOS):

    {system}

    ### Instruction:
    {user}

    ### Response:
    {assistant}

    ### Instruction:
    {user}

    ### Response:

(the system part only where there is a system message; the last `### Response:` opens the answer).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ghostbook.models.backend import Backend
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.transformers_backend import TransformersBackend

Messages = Sequence[dict[str, str]]

INSTRUCTION = "### Instruction:\n"
RESPONSE = "### Response:\n"


def has_chat_template(backend: Backend) -> bool:
    """Whether the model brings a chat template (else `chat_prompt_ids` uses the fallback layout)."""
    return _template(backend) is not None


def chat_prompt_ids(backend: Backend, messages: Messages) -> list[int]:
    """The prompt's token ids for `messages` (`{"role": system|user|assistant, "content": ...}`), the
    assistant's turn opened."""
    template = _template(backend)
    if template is None:
        return backend.tokenize(fallback_text(messages))
    if isinstance(backend, LlamaCppBackend):
        return _llama_ids(backend, template, messages)
    assert isinstance(backend, TransformersBackend)
    ids = _hf_tokenizer(str(backend.path)).apply_chat_template(
        list(messages), add_generation_prompt=True, tokenize=True)
    if not isinstance(ids, list):  # a BatchEncoding (transformers 5 returns a dict by default)
        ids = ids["input_ids"]
    return [int(i) for i in ids]


def fallback_text(messages: Messages) -> str:
    """`FALLBACK`'s text (the module docstring) for `messages`."""
    parts: list[str] = []
    for message in messages:
        role, content = message["role"], message["content"].rstrip("\n")
        if role == "system":
            parts.append(content + "\n\n")
        elif role == "assistant":
            parts.append(RESPONSE + content + "\n\n")
        else:
            parts.append(INSTRUCTION + content + "\n\n")
    return "".join(parts) + RESPONSE


def _template(backend: Backend) -> str | None:
    if isinstance(backend, LlamaCppBackend):
        return backend.metadata.get("tokenizer.chat_template") or None
    if isinstance(backend, TransformersBackend):
        return _hf_tokenizer(str(backend.path)).chat_template or None
    return None


def _llama_ids(backend: LlamaCppBackend, template: str, messages: Messages) -> list[int]:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    meta = backend.metadata
    bos, eos = (backend.token_text(int(meta.get(f"tokenizer.ggml.{name}_token_id", -1))) for name in ("bos", "eos"))
    formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos, add_generation_prompt=True)
    text = formatter(messages=list(messages)).prompt  # type: ignore[arg-type]
    return backend.tokenize_special(text)


@functools.lru_cache(maxsize=4)
def _hf_tokenizer(path: str) -> Any:
    """The transformers tokenizer of a model folder (its chat template), loaded once."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path)
