"""Carry a training run to a GPU machine and back (see `gpu_train.sh`).

`pack_data` makes a small work folder: the corpus splits xz-compressed (about 6× smaller; the
pipeline reads `.jsonl.xz` wherever it reads `.jsonl`), the corpus report and the tokenizer, so the
run there skips the corpus and tokenizer steps. `pack_model` writes a trained model without its
optimizer state, in bfloat16, split into parts small enough to come back; `unpack_model` joins them
into a run folder that `ghostbook train export` (and `eval`, `ship`) read as usual.
"""

from __future__ import annotations

import io
import lzma
import shutil
from pathlib import Path

import torch

from ghostbook.training.functions import load_or_build

SPLITS = ("train.jsonl", "val.jsonl", "functions.jsonl")
PART = "model.pt.part"


def pack_data(work: Path, out: Path, preset: int = 6) -> list[Path]:
    """Write `out/corpus/*.jsonl.xz`, `out/corpus/report.json` and `out/tokenizer.json` from `work`."""
    corpus = work / "corpus"
    load_or_build(corpus)  # the function-level documents, built here once instead of there
    (out / "corpus").mkdir(parents=True, exist_ok=True)
    written = []
    for name in SPLITS:
        src, dst = corpus / name, out / "corpus" / f"{name}.xz"
        if src.exists():
            with src.open("rb") as fin, lzma.open(dst, "wb", preset=preset) as fout:
                shutil.copyfileobj(fin, fout, 1 << 20)
        elif (corpus / f"{name}.xz").exists():
            shutil.copy(corpus / f"{name}.xz", dst)
        else:
            raise FileNotFoundError(f"{src} is missing: run `ghostbook train corpus` first")
        written.append(dst)
    for src, dst in ((corpus / "report.json", out / "corpus" / "report.json"),
                     (work / "tokenizer.json", out / "tokenizer.json")):
        shutil.copy(src, dst)
        written.append(dst)
    return written


def pack_model(run_dir: Path, out: Path, part_mb: int = 15) -> list[Path]:
    """The run's model (bfloat16, no optimizer state) and training state, in parts of `part_mb` MiB."""
    from ghostbook.training.train import CKPT

    ckpt = torch.load(run_dir / CKPT, map_location="cpu", weights_only=False)
    slim = {"model": {k: v.to(torch.bfloat16) if v.is_floating_point() else v for k, v in ckpt["model"].items()},
            "state": ckpt["state"]}
    buf = io.BytesIO()
    torch.save(slim, buf)
    data, size = buf.getvalue(), part_mb << 20
    out.mkdir(parents=True, exist_ok=True)
    parts = []
    for i in range(0, len(data), size):
        part = out / f"{PART}{i // size:02d}"
        part.write_bytes(data[i : i + size])
        parts.append(part)
    return parts


def unpack_model(parts_dir: Path, run_dir: Path) -> Path:
    """Join the parts into `run_dir/checkpoint.pt` (model in float32; no optimizer state, so it exports
    and evaluates but does not resume)."""
    from ghostbook.training.train import CKPT

    parts = sorted(parts_dir.glob(f"{PART}*"))
    if not parts:
        raise FileNotFoundError(f"no {PART}NN files in {parts_dir}")
    slim = torch.load(io.BytesIO(b"".join(p.read_bytes() for p in parts)), map_location="cpu", weights_only=False)
    slim["model"] = {k: v.float() if v.is_floating_point() else v for k, v in slim["model"].items()}
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.save(slim, run_dir / CKPT)
    return run_dir / CKPT
