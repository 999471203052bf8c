"""The forms a model setting takes (README "Choosing a model"):

- `default` — Ghostbook's own model, shipped in the package;
- a local `.gguf` file or a transformers model folder;
- `hf:OWNER/REPO/FILE.gguf` — one GGUF file of a Hugging Face hub repo (downloaded into the HF cache);
- `hf:OWNER/REPO` — a transformers repo (its config, tokenizer and safetensors weights);
- `openai:BASE_URL` — an OpenAI-compatible server's `/v1/completions`;
- `llamacpp:BASE_URL` — a llama.cpp server's `/infill`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

Kind = Literal["default", "local", "hf_file", "hf_repo", "openai", "llamacpp"]

_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
FORMS = ("'default', a local .gguf file or transformers folder, hf:OWNER/REPO/FILE.gguf, hf:OWNER/REPO, "
         "openai:BASE_URL or llamacpp:BASE_URL")


class SpecError(ValueError):
    """The setting is none of the forms; the message says which forms there are."""


@dataclass(frozen=True)
class Spec:
    kind: Kind
    text: str  # the setting as written
    repo: str = ""  # hf: OWNER/REPO
    filename: str = ""  # hf: the file inside the repo (GGUF); local: the path
    url: str = ""  # openai:/llamacpp: the base URL, without a trailing slash

    @property
    def remote(self) -> bool:
        return self.kind in ("openai", "llamacpp")

    @property
    def label(self) -> str:
        """A short name for the status line."""
        if self.kind in ("hf_file", "hf_repo"):
            return f"{self.repo}/{self.filename}" if self.filename else self.repo
        return self.text


def parse(text: str) -> Spec:
    """The spec a model setting names (SpecError with the forms if it names none)."""
    text = text.strip()
    if text == "default":
        return Spec("default", text)
    if text.startswith("hf:"):
        rest = text[3:].strip("/")
        parts = rest.split("/")
        repo = "/".join(parts[:2])
        if not _REPO.match(repo):
            raise SpecError(f"{text!r}: expected hf:OWNER/REPO or hf:OWNER/REPO/FILE.gguf")
        if len(parts) == 2:
            return Spec("hf_repo", text, repo=repo)
        filename = "/".join(parts[2:])
        if not filename.lower().endswith(".gguf") or ".." in parts[2:]:
            raise SpecError(f"{text!r}: the file of an hf: model must be a .gguf file (hf:OWNER/REPO/FILE.gguf); "
                            "for a transformers repo write hf:OWNER/REPO")
        return Spec("hf_file", text, repo=repo, filename=filename)
    for prefix, kind in (("openai:", "openai"), ("llamacpp:", "llamacpp")):
        if text.startswith(prefix):
            url = text[len(prefix):].strip().rstrip("/")
            parsed = urlsplit(url)
            if parsed.scheme not in ("http", "https") or not parsed.netloc:
                raise SpecError(f"{text!r}: expected {prefix}http://HOST:PORT (the server's base URL)")
            return Spec(kind, text, url=url)  # type: ignore[arg-type]
    if re.match(r"^[a-z]{2,10}:(?![\\/])", text):  # "foo:bar" but not "C:\\..." or "c:/..."
        raise SpecError(f"unknown model form {text.split(':')[0]!r}: use {FORMS}")
    return Spec("local", text, filename=text)
