"""Known completion models: family, FIM template, context, files, size, licence (DESIGN §4).

"default" is Ghostbook's own model, shipped in `models/default/`. Any local `.gguf` path works too;
its family is then detected from the FIM tokens in its vocabulary.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ghostbook.models.templates import PLAIN

DEFAULT_DIR = Path(__file__).resolve().parent / "default"
DEFAULT_GGUF_NAME = "ghostbook-fim-q8_0.gguf"  # written by training/export.py


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    family: str  # the FIM template: a key of models.templates.TEMPLATES
    context_length: int
    licence: str
    files: dict[str, str] = field(default_factory=dict)  # quantisation -> local path or hub file name
    hf_repo: str | None = None
    size_mb: float | None = None
    ram_mb: float | None = None
    description: str = ""
    layout: str | None = None  # "psm" or "spm"; None: the family template's default
    code_only: bool = False  # a small model: no automatic suggestions inside strings and comments

    @property
    def special_tokens(self) -> list[str]:
        """The special tokens of the family's FIM template (which must be single ids in the vocabulary)."""
        from ghostbook.models.templates import get_template

        return get_template(self.family).special_tokens()


CATALOG: dict[str, CatalogEntry] = {
    "default": CatalogEntry("default", "ghostbook", 1024, "MIT (model); trained on permissively licensed code",
                            {"q8_0": str(DEFAULT_DIR / DEFAULT_GGUF_NAME)}, None, 11, 64,
                            "Ghostbook's own small FIM model, trained by `ghostbook train --preset default`",
                            code_only=True),
    "starcoder2-3b": CatalogEntry("starcoder2-3b", "starcoder", 16384, "BigCode OpenRAIL-M",
                                  {"q4_k_m": "starcoder2-3b-Q4_K_M.gguf"}, "bigcode/starcoder2-3b", 1850, 2600),
    "tiny_starcoder_py": CatalogEntry("tiny_starcoder_py", "starcoder", 8192, "BigCode OpenRAIL-M",
                                      {"f16": "tiny_starcoder_py-f16.gguf"}, "bigcode/tiny_starcoder_py", 330, 500),
    "santacoder": CatalogEntry("santacoder", "santacoder", 2048, "BigCode OpenRAIL-M",
                               {"q8_0": "santacoder-q8_0.gguf"}, "bigcode/santacoder", 1200, 1800),
    "qwen2.5-coder-0.5b": CatalogEntry("qwen2.5-coder-0.5b", "qwen2.5-coder", 32768, "Apache-2.0",
                                       {"q8_0": "qwen2.5-coder-0.5b-q8_0.gguf"}, "Qwen/Qwen2.5-Coder-0.5B", 530, 900),
    "deepseek-coder-1.3b": CatalogEntry("deepseek-coder-1.3b", "deepseek-coder", 16384, "DeepSeek License",
                                        {"q4_k_m": "deepseek-coder-1.3b-base.Q4_K_M.gguf"},
                                        "deepseek-ai/deepseek-coder-1.3b-base", 870, 1500),
    "codellama-7b": CatalogEntry("codellama-7b", "codellama", 16384, "Llama 2 Community License",
                                 {"q4_k_m": "codellama-7b.Q4_K_M.gguf"}, "codellama/CodeLlama-7b-hf", 4080, 6500),
    "codegen2-1b": CatalogEntry("codegen2-1b", "codegen2", 2048, "Apache-2.0", {}, "Salesforce/codegen2-1B", 2200,
                                3000),
}


def default_fim_info() -> dict[str, object]:
    """models/default/fim.json, written when the model is shipped: {"template": "psm"|"spm", "gguf": name}."""
    try:
        info = json.loads((DEFAULT_DIR / "fim.json").read_text())
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def default_model_path() -> Path | None:
    """The shipped default GGUF (fim.json's, else Q8_0, else any GGUF in models/default/), or None."""
    named = default_fim_info().get("gguf")
    if isinstance(named, str) and (DEFAULT_DIR / named).is_file():
        return DEFAULT_DIR / named
    preferred = DEFAULT_DIR / DEFAULT_GGUF_NAME
    if preferred.is_file():
        return preferred
    found = sorted(DEFAULT_DIR.glob("*.gguf")) if DEFAULT_DIR.is_dir() else []
    return found[0] if found else None


class ModelNotFound(LookupError):
    """The model setting names nothing usable; the message is meant for the user."""


def resolve(setting: str) -> tuple[CatalogEntry | None, Path]:
    """The catalog entry (None for an arbitrary file) and the file a model setting points at."""
    if setting == "default":
        path = default_model_path()
        if path is None:
            raise ModelNotFound(f"default model not built yet (expected {DEFAULT_DIR / DEFAULT_GGUF_NAME}); "
                                "run `ghostbook train --preset default` or choose a .gguf file in the settings")
        layout = default_fim_info().get("template")
        entry = CATALOG["default"]
        return (replace(entry, layout=layout) if layout in ("psm", "spm") else entry), path
    path = Path(setting).expanduser()
    if path.is_dir() and (path / "config.json").is_file():
        return None, path  # a transformers model folder
    if not path.is_file():
        raise ModelNotFound(f"model file not found: {path}")
    if path.suffix.lower() != ".gguf":
        raise ModelNotFound(f"not a .gguf file: {path}")
    return finetuned_default(path), path


def finetuned_default(path: Path) -> CatalogEntry | None:
    """The default model's entry (template, small-model rules) for a GGUF that `ghostbook train finetune`
    made from it (its folder's finetune.json says so), else None."""
    try:
        info = json.loads((path.parent / "finetune.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or info.get("base") != "default" or info.get("gguf") != path.name:
        return None
    layout = default_fim_info().get("template")
    return replace(CATALOG["default"], name=f"finetuned: {info.get('name') or path.parent.name}",
                   files={"q8_0": str(path)}, layout=layout if layout in ("psm", "spm") else None,
                   description="the default model fine-tuned on your notebooks (`ghostbook train finetune`)")


# vocabulary markers -> family; the first match wins (qwen before starcoder: both have fim_prefix-ish names)
_MARKERS = (("<|file_separator|>", "codegemma"), ("<|fim_prefix|>", "qwen2.5-coder"),
            ("<｜fim▁begin｜>", "deepseek-coder"), ("<fim-prefix>", "santacoder"), ("<fim_prefix>", "starcoder"),
            ("<PRE>", "codellama"), ("<mask_1>", "codegen2"))


def completion_family(family: str, needs_fim: bool, path: object) -> str:
    """`family` (the settings' or the vocabulary's), or for a completion model without FIM tokens `plain`:
    it continues the text above the cursor, nothing below."""
    if family or not needs_fim:
        return family
    logging.getLogger(__name__).info("%s has no fill-in-the-middle tokens: it completes from the text above only",
                                     path)
    return PLAIN


def detect_family(lookup: Callable[[str], int | None], name: str = "") -> str | None:
    """The FIM family of a vocabulary, from the special tokens it holds (None if it has no FIM tokens)."""
    for marker, family in _MARKERS:
        if lookup(marker) is not None:
            if family == "starcoder" and (name.startswith("ghostbook") or all(
                    lookup(t) is None for t in ("<filename>", "<file_sep>", "<gh_stars>", "<repo_name>"))):
                return "ghostbook"  # StarCoder's FIM tokens without its repository/file tokens
            return family
    return None
