"""Export a training run: HF folder (safetensors, config, tokenizer) and GGUF f16/f32/Q8_0/Q4_0 files."""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

from transformers import LlamaForCausalLM

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "models" / "default"
DEFAULT_GGUF_NAME = "ghostbook-fim-q8_0.gguf"
QUANT_TYPES = {"q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0", "q4_0": "LLAMA_FTYPE_MOSTLY_Q4_0",
               "q4_k_m": "LLAMA_FTYPE_MOSTLY_Q4_K_M", "q5_0": "LLAMA_FTYPE_MOSTLY_Q5_0"}


def default_model_dir() -> Path:
    """Folder of the model shipped inside the package (GGUF, tokenizer, card)."""
    return DEFAULT_DIR


def default_model_path() -> Path:
    """Path of the shipped default GGUF (Q8_0)."""
    return DEFAULT_DIR / DEFAULT_GGUF_NAME


def export_hf(model: LlamaForCausalLM, tokenizer_json: Path, out_dir: Path) -> Path:
    """Save `model` with safetensors plus tokenizer files loadable by `AutoTokenizer`."""
    from tokenizers import Tokenizer

    from ghostbook.training.tokenizer import save_hf_tokenizer

    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    save_hf_tokenizer(Tokenizer.from_file(str(tokenizer_json)), out_dir, model.config.max_position_embeddings)
    return out_dir


def quantize(src: Path, dst: Path, quant: str, threads: int = 1) -> Path:
    """Quantise a GGUF with llama.cpp's `llama_model_quantize`."""
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, QUANT_TYPES[quant])
    params.nthread = threads
    rc = llama_cpp.llama_model_quantize(str(src).encode(), str(dst).encode(), ctypes.byref(params))
    if rc != 0:
        raise RuntimeError(f"llama_model_quantize({quant}) failed with {rc}")
    return dst


def export_gguf(model: LlamaForCausalLM, tokenizer_json: Path, out_dir: Path, quants: list[str],
                stem: str = "ghostbook-fim", context_length: int | None = None) -> list[Path]:
    """Write `STEM-f16.gguf` (and/or f32) and each requested quantisation from it."""
    from ghostbook.training.gguf_writer import write_gguf

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    base = "f32" if "f32" in quants else "f16"
    src = write_gguf(model, tokenizer_json, out_dir / f"{stem}-{base}.gguf", base, context_length=context_length)
    paths.append(src)
    if base == "f32" and "f16" in quants:
        paths.append(write_gguf(model, tokenizer_json, out_dir / f"{stem}-f16.gguf", "f16",
                                context_length=context_length))
    for q in quants:
        if q in QUANT_TYPES:
            paths.append(quantize(src, out_dir / f"{stem}-{q}.gguf", q))
    return paths


def export_all(run_dir: Path, tokenizer_json: Path, out_dir: Path, quants: list[str]) -> list[Path]:
    """HF folder `out_dir/hf` and GGUF files in `out_dir` from the run's latest checkpoint."""
    from ghostbook.training.train import load_model

    model, state = load_model(run_dir)
    export_hf(model, tokenizer_json, out_dir / "hf")
    shutil.copy(tokenizer_json, out_dir / "tokenizer.json")
    seq_len = state.get("preset", {}).get("seq_len")
    return [out_dir / "hf", *export_gguf(model, tokenizer_json, out_dir, quants, context_length=seq_len)]
