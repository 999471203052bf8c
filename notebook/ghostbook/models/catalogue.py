"""The settings panel's catalogue: curated code models on the Hugging Face hub (fill-in-the-middle models
for completion, instruct models for Edit with AI), the built-in default, and local models (fine-tuned
ones) found in the models folder; what is downloaded; whether there is RAM enough to load one.

Each line has a `role`: "fim" (a completion model, listed under the model setting), "chat" (an edit
model, listed under the edit model setting) or "both" (a local file: Ghostbook cannot tell, the user
knows). The instruct lines' `family` is the FIM template their vocabulary has, used only if one is
chosen as the completion model anyway.

Sizes are those of the hub's files as last checked (approximate, "≈" in the panel); RAM is the file
plus a 2048-token KV cache and llama.cpp's buffers. Expected speed is a CPU estimate for 4 threads
(generation is memory-bound: ~20 GB/s of weights read per second), not a measurement.
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from ghostbook.models.backend import ModelLoadError
from ghostbook.models.catalog import DEFAULT_DIR, default_model_path

log = logging.getLogger(__name__)

Role = Literal["fim", "chat", "both"]


@dataclass(frozen=True)
class Offer:
    """One line of the catalogue; `spec` is what choosing it writes into the `model` setting."""

    spec: str
    name: str
    family: str  # the FIM template (models.templates)
    params: str
    size_mb: float
    ram_mb: float
    licence: str
    backends: str
    source: str = "hub"  # "builtin", "hub" or "local"
    downloaded: bool = False
    gated: bool = False  # the hub asks for an accepted licence and HF_TOKEN
    role: Role = "fim"  # "fim" (completion), "chat" (edit), "both" (local: not known)

    def serves(self, role: Literal["fim", "chat"]) -> bool:
        """Whether the line belongs under that setting: the completion model (fim) or the edit model (chat)."""
        return self.role in (role, "both")

    @property
    def speed(self) -> str:
        estimate = round(20_000 / max(self.size_mb, 1))
        return f"≈{max(1, estimate)} tok/s (CPU)" if estimate <= 200 else ">200 tok/s (CPU)"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "speed": self.speed}


def _hub(repo: str, file: str, name: str, family: str, params: str, size_mb: float, licence: str,
         gated: bool = False, role: Role = "fim") -> Offer:
    return Offer(f"hf:{repo}/{file}", name, family, params, size_mb, round(size_mb * 1.15 + 250), licence,
                 "llama.cpp", gated=gated, role=role)


def _instruct(repo: str, file: str, name: str, params: str, size_mb: float, licence: str,
              family: str = "qwen2.5-coder") -> Offer:
    return _hub(repo, file, name, family, params, size_mb, licence, role="chat")


QWEN = "Apache-2.0"
QWEN_RESEARCH = "Qwen Research License (non-commercial)"
BIGCODE = "BigCode OpenRAIL-M"
DEEPSEEK = "DeepSeek License (commercial use allowed)"

HUB: tuple[Offer, ...] = (
    _hub("Qwen/Qwen2.5-Coder-0.5B-GGUF", "qwen2.5-coder-0.5b-q8_0.gguf", "Qwen2.5-Coder 0.5B Q8_0",
         "qwen2.5-coder", "0.5B", 531, QWEN),
    _hub("Qwen/Qwen2.5-Coder-0.5B-GGUF", "qwen2.5-coder-0.5b-q4_k_m.gguf", "Qwen2.5-Coder 0.5B Q4_K_M",
         "qwen2.5-coder", "0.5B", 398, QWEN),
    _hub("Qwen/Qwen2.5-Coder-1.5B-GGUF", "qwen2.5-coder-1.5b-q8_0.gguf", "Qwen2.5-Coder 1.5B Q8_0",
         "qwen2.5-coder", "1.5B", 1650, QWEN),
    _hub("Qwen/Qwen2.5-Coder-1.5B-GGUF", "qwen2.5-coder-1.5b-q4_k_m.gguf", "Qwen2.5-Coder 1.5B Q4_K_M",
         "qwen2.5-coder", "1.5B", 1070, QWEN),
    _hub("Qwen/Qwen2.5-Coder-3B-GGUF", "qwen2.5-coder-3b-q8_0.gguf", "Qwen2.5-Coder 3B Q8_0",
         "qwen2.5-coder", "3B", 3290, QWEN_RESEARCH),
    _hub("Qwen/Qwen2.5-Coder-3B-GGUF", "qwen2.5-coder-3b-q4_k_m.gguf", "Qwen2.5-Coder 3B Q4_K_M",
         "qwen2.5-coder", "3B", 2100, QWEN_RESEARCH),
    _hub("Qwen/Qwen2.5-Coder-7B-GGUF", "qwen2.5-coder-7b-q8_0.gguf", "Qwen2.5-Coder 7B Q8_0",
         "qwen2.5-coder", "7B", 8100, QWEN),
    _hub("Qwen/Qwen2.5-Coder-7B-GGUF", "qwen2.5-coder-7b-q4_k_m.gguf", "Qwen2.5-Coder 7B Q4_K_M",
         "qwen2.5-coder", "7B", 4680, QWEN),
    _hub("second-state/StarCoder2-3B-GGUF", "starcoder2-3b-Q4_K_M.gguf", "StarCoder2 3B Q4_K_M",
         "starcoder", "3B", 1850, BIGCODE),
    _hub("second-state/StarCoder2-3B-GGUF", "starcoder2-3b-Q8_0.gguf", "StarCoder2 3B Q8_0",
         "starcoder", "3B", 3220, BIGCODE),
    _hub("second-state/StarCoder2-7B-GGUF", "starcoder2-7b-Q4_K_M.gguf", "StarCoder2 7B Q4_K_M",
         "starcoder", "7B", 4400, BIGCODE),
    _hub("TheBloke/deepseek-coder-1.3b-base-GGUF", "deepseek-coder-1.3b-base.Q4_K_M.gguf",
         "DeepSeek-Coder 1.3B base Q4_K_M", "deepseek-coder", "1.3B", 874, DEEPSEEK),
    _hub("TheBloke/deepseek-coder-1.3b-base-GGUF", "deepseek-coder-1.3b-base.Q8_0.gguf",
         "DeepSeek-Coder 1.3B base Q8_0", "deepseek-coder", "1.3B", 1430, DEEPSEEK),
    _hub("TheBloke/deepseek-coder-6.7B-base-GGUF", "deepseek-coder-6.7b-base.Q4_K_M.gguf",
         "DeepSeek-Coder 6.7B base Q4_K_M", "deepseek-coder", "6.7B", 4080, DEEPSEEK),
    _hub("bartowski/codegemma-2b-GGUF", "codegemma-2b-Q4_K_M.gguf", "CodeGemma 2B Q4_K_M",
         "codegemma", "2B", 1630, "Gemma Terms of Use"),
    _hub("bartowski/codegemma-2b-GGUF", "codegemma-2b-Q8_0.gguf", "CodeGemma 2B Q8_0",
         "codegemma", "2B", 2670, "Gemma Terms of Use"),
    # instruct (chat) models for Edit with AI: Qwen's own single-file GGUFs
    _instruct("Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", "qwen2.5-coder-0.5b-instruct-q8_0.gguf",
              "Qwen2.5-Coder 0.5B Instruct Q8_0", "0.5B", 676, QWEN),
    _instruct("Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
              "Qwen2.5-Coder 0.5B Instruct Q4_K_M", "0.5B", 491, QWEN),
    _instruct("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", "qwen2.5-coder-1.5b-instruct-q8_0.gguf",
              "Qwen2.5-Coder 1.5B Instruct Q8_0", "1.5B", 1895, QWEN),
    _instruct("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
              "Qwen2.5-Coder 1.5B Instruct Q4_K_M", "1.5B", 1117, QWEN),
    _instruct("Qwen/Qwen2.5-Coder-3B-Instruct-GGUF", "qwen2.5-coder-3b-instruct-q8_0.gguf",
              "Qwen2.5-Coder 3B Instruct Q8_0", "3B", 3616, QWEN_RESEARCH),
    _instruct("Qwen/Qwen2.5-Coder-3B-Instruct-GGUF", "qwen2.5-coder-3b-instruct-q4_k_m.gguf",
              "Qwen2.5-Coder 3B Instruct Q4_K_M", "3B", 2105, QWEN_RESEARCH),
    _instruct("Qwen/Qwen2.5-Coder-7B-Instruct-GGUF", "qwen2.5-coder-7b-instruct-q8_0.gguf",
              "Qwen2.5-Coder 7B Instruct Q8_0", "7B", 8099, QWEN),
    _instruct("Qwen/Qwen2.5-Coder-7B-Instruct-GGUF", "qwen2.5-coder-7b-instruct-q4_k_m.gguf",
              "Qwen2.5-Coder 7B Instruct Q4_K_M", "7B", 4683, QWEN),
    # a newer general instruct model, strong at code for its size, no thinking block before the answer
    _instruct("bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF", "Qwen_Qwen3-4B-Instruct-2507-Q4_K_M.gguf",
              "Qwen3 4B Instruct 2507 Q4_K_M", "4B", 2497, QWEN),
)


def models_dir() -> Path:
    """Where local (fine-tuned) models are found: $GHOSTBOOK_MODELS_DIR, else
    $XDG_DATA_HOME/ghostbook/models (~/.local/share/ghostbook/models)."""
    if os.environ.get("GHOSTBOOK_MODELS_DIR"):
        return Path(os.environ["GHOSTBOOK_MODELS_DIR"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ghostbook" / "models"


def _builtin() -> list[Offer]:
    path = default_model_path()
    size = path.stat().st_size / 1e6 if path else 11
    return [Offer("default", "Ghostbook default (built in)", "ghostbook", "3.4M", round(size, 1), 64,
                  "MIT", "llama.cpp", "builtin", downloaded=path is not None)]  # FIM only: no chat template


def _local() -> list[Offer]:
    """GGUF files and transformers folders (config.json) in the models folder, one level deep."""
    root = models_dir()
    if not root.is_dir():
        return []
    found: list[Offer] = []
    for item in sorted(root.iterdir()):
        if item.is_dir() and (item / FINETUNED).is_file():
            offer = _finetuned(item)
            if offer is not None:
                found.append(offer)
        elif item.is_file() and item.suffix.lower() == ".gguf":
            size = item.stat().st_size / 1e6
            found.append(Offer(str(item), item.stem, "auto", "?", round(size, 1), round(size * 1.15 + 250),
                               "see the model", "llama.cpp", "local", downloaded=True, role="both"))
        elif item.is_dir() and (item / "config.json").is_file():
            size = sum(f.stat().st_size for f in item.glob("*.safetensors")) / 1e6
            found.append(Offer(str(item), item.name, "auto", "?", round(size, 1), round(size * 2.2 + 500),
                               "see the model", "transformers", "local", downloaded=True, role="both"))
    return found


FINETUNED = "finetune.json"  # written by `ghostbook train finetune` (training.finetune) into its model's folder


def _finetuned(folder: Path) -> Offer | None:
    """A model `ghostbook train finetune` wrote: its GGUF (llama.cpp), else its merged HF folder."""
    import json

    try:
        info = json.loads((folder / FINETUNED).read_text())
    except (OSError, ValueError):
        return None
    gguf = folder / str(info.get("gguf") or "")
    name = f"finetuned: {info.get('name') or folder.name}"
    family, params = ("ghostbook", "3.4M") if info.get("base") == "default" else ("auto", "?")
    if info.get("gguf") and gguf.is_file():
        size = gguf.stat().st_size / 1e6
        ram = 64 if info.get("base") == "default" else round(size * 1.15 + 250)  # the built-in model's
        return Offer(str(gguf), name, family, params, round(size, 1), ram, "see the base model", "llama.cpp", "local",
                     downloaded=True)
    if (folder / "config.json").is_file():
        size = sum(f.stat().st_size for f in folder.glob("*.safetensors")) / 1e6
        return Offer(str(folder), name, family, params, round(size, 1), round(size * 2.2 + 500), "see the base model",
                     "transformers", "local", downloaded=True)
    return None


def cached_files() -> set[tuple[str, str]]:
    """(repo, file) pairs in the Hugging Face cache (huggingface_hub's scan; empty if it cannot)."""
    try:
        from huggingface_hub import scan_cache_dir

        info = scan_cache_dir()
    except Exception as exc:  # no cache yet, unreadable, or huggingface_hub missing
        log.debug("no HF cache scan: %s", exc)
        return set()
    return {(repo.repo_id, file.file_name) for repo in info.repos for rev in repo.revisions for file in rev.files}


def offers() -> list[Offer]:
    """The whole catalogue, each line marked downloaded or not (blocking: scans the cache)."""
    cached = cached_files()
    hub = [replace(o, downloaded=_repo_file(o.spec) in cached) for o in HUB]
    return _builtin() + hub + _local()


def _repo_file(spec: str) -> tuple[str, str]:
    owner, name, file = spec[3:].split("/", 2)
    return f"{owner}/{name}", file


def hub_offer(repo: str, filename: str) -> Offer | None:
    return next((o for o in HUB if o.spec == f"hf:{repo}/{filename}"), None)


def available_ram_mb() -> float | None:
    """Memory available for a new process (psutil; None where it cannot tell)."""
    try:
        import psutil

        return float(psutil.virtual_memory().available) / 1e6
    except Exception:  # psutil missing or unsupported platform
        return None


def check_ram(name: str, needed_mb: float, available_mb: float | None = None) -> None:
    """Refuse (ModelLoadError) a model that needs more memory than is free, before loading it."""
    free = available_ram_mb() if available_mb is None else available_mb
    if free is not None and needed_mb > free:
        raise ModelLoadError(f"{name} needs about {needed_mb / 1000:.1f} GB of RAM but only {free / 1000:.1f} GB "
                             "is free: close other programs or choose a smaller model (a Q4_K_M file, fewer "
                             "parameters) in the catalogue")


def ram_needed_mb(path: Path) -> float:
    """RAM a model file or folder needs: the weights (mapped) plus the KV cache and buffers."""
    if path.is_dir():
        return sum(f.stat().st_size for f in path.glob("*.safetensors")) / 1e6 * 2.2 + 500
    return path.stat().st_size / 1e6 * 1.15 + 250


__all__ = ["DEFAULT_DIR", "HUB", "Offer", "Role", "available_ram_mb", "check_ram", "models_dir", "offers",
           "ram_needed_mb"]
