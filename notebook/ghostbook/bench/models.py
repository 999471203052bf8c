"""`ghostbook bench models [PATH...]`: size, parameters, context, time to 50 tokens, prompt and decode
tokens/s of each model file (GGUF on llama.cpp, HF folder on transformers). Ratios are against the
first model measured in the same run."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ghostbook.eval.cli import format_table
from ghostbook.models.backend import Emit, Evaluation, Vocab

PROMPT = '''import os
from typing import List


def parse_lines(path: str) -> List[str]:
    """Read a text file and return its non-empty lines, stripped."""
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


class Counter:
    def __init__(self):
        self.counts = {}

    def add(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

'''


def model_facts(path: Path) -> tuple[int, int]:
    """(parameters, context length) from GGUF metadata or an HF config."""
    if path.suffix == ".gguf":
        import gguf

        reader = gguf.GGUFReader(str(path))
        params = sum(int(np.prod(t.shape)) for t in reader.tensors)
        field = reader.get_field("llama.context_length")
        ctx = int(field.parts[field.data[0]][0]) if field else 0
        return params, ctx
    cfg = json.loads((path / "config.json").read_text())
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(path))
    return sum(p.numel() for p in model.parameters()), int(cfg.get("max_position_embeddings", 0))


def file_size(path: Path) -> int:
    if path.is_dir():
        return sum(f.stat().st_size for f in path.glob("*.safetensors"))
    return path.stat().st_size


def measure(path: Path, threads: int, n_new: int = 50, repeats: int = 3) -> dict[str, object]:
    """Best-of-`repeats` prompt and decode speed, greedy, end tokens suppressed so all tokens are decoded
    (through the editor's backends: `models.backend.Evaluation`)."""
    from ghostbook.eval.generate import load_backend

    backend = load_backend(path, threads=threads)
    prompt = backend.tokenize(PROMPT)[-(backend.info.n_ctx - n_new) :]  # a small model's context cuts it
    times: dict[str, float] = {}

    class Timed:
        max_new_tokens = n_new

        def run(self, model: Evaluation, vocab: Vocab, cancelled: Callable[[], bool], emit: Emit) -> None:
            t1, done = time.perf_counter(), list[int]()
            for _ in range(n_new):
                logits = model.logits([done])[0]
                logits[list(vocab.special)] = -np.inf
                done.append(int(np.argmax(logits)))
            times["decode"] = time.perf_counter() - t1

    best: dict[str, float] = {}
    for _ in range(repeats):
        backend.forget()
        t0 = time.perf_counter()
        stats = backend.generate(prompt, Timed(), lambda: False, lambda token: None)
        run = {"prompt": stats.prompt_ms / 1000, "decode": times["decode"], "total": time.perf_counter() - t0}
        best = {k: min(v, best.get(k, v)) for k, v in run.items()}
    backend.unload()
    params, ctx = model_facts(path)
    return {
        "model": path.name,
        "backend": "transformers" if path.is_dir() else "llama.cpp",
        "size_MB": round(file_size(path) / 1e6, 2),
        "params_M": round(params / 1e6, 2),
        "ctx": ctx,
        f"ms_to_{n_new}_tok": round(1000 * best["total"], 1),
        "prompt_tok_s": round(len(prompt) / best["prompt"]),
        "decode_tok_s": round(n_new / best["decode"]),
    }


def default_paths() -> list[Path]:
    from ghostbook.models.catalog import DEFAULT_DIR

    return sorted(DEFAULT_DIR.glob("*.gguf"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook bench models", description=__doc__)
    ap.add_argument("paths", nargs="*", type=Path, help="GGUF files / HF folders (default: shipped model)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    paths = [p.expanduser() for p in args.paths] or default_paths()
    rows = [measure(p, args.threads) for p in paths]
    if rows:
        base = rows[0]
        for r in rows:
            r["decode_x"] = round(float(r["decode_tok_s"]) / float(base["decode_tok_s"]), 2)  # type: ignore[arg-type]
    print(format_table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0
