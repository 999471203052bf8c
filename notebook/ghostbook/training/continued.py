"""Continue training from the shipped model (toward model v2), with state that outlives the machine.

The shipped weights exist only as GGUF Q8_0: `gguf_to_state` dequantises them (the `gguf` package)
into a `LlamaForCausalLM` state dict, undoing the export's rotary permutation. `save_state` writes a
run's checkpoint as one bf16 file (weights and AdamW moments, about 21 MB for the default shape) to a
path in the repository, replaced on each save; `restore_state` turns it back into a resumable
`checkpoint.pt`, so the run continues on a fresh machine.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import torch

from ghostbook.training.gguf_writer import _tensor_name
from ghostbook.training.model import Preset, build_model, count_params, llama_config
from ghostbook.training.train import CKPT, make_optimizer


def unpermute_qk(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's interleaved rotary layout -> HF's halves (inverse of `gguf_writer.permute_qk`)."""
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def gguf_to_state(path: Path, preset: Preset, special: dict[str, int]) -> dict[str, torch.Tensor]:
    """The HF state dict of a Ghostbook GGUF (any of its quantisations) of shape `preset.shape`."""
    config = llama_config(preset.shape, special)
    model = build_model(config)
    reader = gguf.GGUFReader(str(path))
    tensors = {t.name: t for t in reader.tensors}
    state = {}
    for name, ref in model.state_dict().items():
        if "rotary_emb" in name:
            state[name] = ref
            continue
        t = tensors[_tensor_name(name)]
        arr = gguf.dequantize(t.data, t.tensor_type).reshape(tuple(reversed([int(d) for d in t.shape])))
        if name.endswith("q_proj.weight"):
            arr = unpermute_qk(arr, config.num_attention_heads)
        elif name.endswith("k_proj.weight"):
            arr = unpermute_qk(arr, int(config.num_key_value_heads or config.num_attention_heads))
        if arr.shape != tuple(ref.shape):
            raise ValueError(f"{path}: {name} has shape {arr.shape}, the preset's model {tuple(ref.shape)}")
        state[name] = torch.from_numpy(np.array(arr, dtype=np.float32, order="C", copy=True))
    return state


def init_run_from_gguf(path: Path, run_dir: Path, preset: Preset, special: dict[str, int]) -> Path:
    """A resumable `run_dir/checkpoint.pt` at step 0 holding the GGUF's weights (fresh optimizer)."""
    from dataclasses import asdict

    config = llama_config(preset.shape, special)
    model = build_model(config)
    model.load_state_dict(gguf_to_state(path, preset, special))
    opt = make_optimizer(model, preset)
    state = {"step": 0, "tokens": 0, "seconds": 0.0, "val_loss": None, "config": config.to_dict(),
             "preset": asdict(preset), "params": count_params(model), "init": f"dequantised {path.name}"}
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "state": state}, run_dir / CKPT)
    return run_dir / CKPT


def _cast(obj: Any, dtype: torch.dtype) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.to(dtype) if obj.is_floating_point() and obj.dim() > 0 else obj
    if isinstance(obj, dict):
        return {k: _cast(v, dtype) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_cast(v, dtype) for v in obj]
    return obj


def save_state(run_dir: Path, target: Path) -> Path:
    """`run_dir`'s checkpoint as one bf16 file at `target` (atomically replaced)."""
    ckpt = torch.load(run_dir / CKPT, map_location="cpu", weights_only=False)
    buf = io.BytesIO()
    torch.save(_cast(ckpt, torch.bfloat16), buf)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_bytes(buf.getvalue())
    os.replace(tmp, target)
    return target


def restore_state(source: Path, run_dir: Path) -> Path:
    """A resumable `run_dir/checkpoint.pt` (float32) from a `save_state` file."""
    ckpt = _cast(torch.load(source, map_location="cpu", weights_only=False), torch.float32)
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, run_dir / CKPT)
    return run_dir / CKPT


# ---- the run toward v2 ------------------------------------------------------------------------------

DEFAULT_STATE = Path("training-state/v2-continued.bf16.pt")


def v2_preset(max_steps: int, lr: float = 1e-3, min_lr: float = 1e-4, writing_share: float = 0.0,
              writing_in: str = "all") -> Preset:
    """The default model's shape and recipe, one WSD schedule of `max_steps` from the shipped weights
    (a lower peak rate than v1's: the weights are trained already). A stage that resumes a decayed
    run re-warms from `min_lr` to `lr`; `writing_share` of its FIM examples ("all" documents' or the
    "notebooks'" only: `writing_in`) are cut as while writing."""
    from dataclasses import replace

    from ghostbook.training.model import PRESETS

    return replace(PRESETS["default"], max_steps=max_steps, stages=(), recipe_from=0, extra_packages=(),
                   lr=lr, min_lr=min_lr, warmup_steps=100, writing_share=writing_share,
                   writing_in=writing_in)


@dataclass(frozen=True)
class NotebookSet:
    """Notebook files (`notebooks-*.jsonl.gz`) the corpus takes `repeat` times, once per work folder
    (a marker named after `name` records it)."""

    name: str
    files: tuple[Path, ...]
    repeat: int


def notebook_sets(splits: Sequence[Path], split_repeat: int, extra: Sequence[Path],
                  extra_repeat: int) -> list[NotebookSet]:
    """The benchmark's train split(s) as one set, and each training-only file as a set of its own,
    named after it (`notebooks-more.jsonl.gz`: `notebooks-more`), so that a file added to a later
    stage's command joins a work folder's corpus that took the others already."""
    sets = [NotebookSet("notebooks", tuple(splits), split_repeat)]
    return sets + [NotebookSet(path.name.split(".")[0], (path,), extra_repeat) for path in extra]


def prepare(work: Path, state: Path, preset: Preset, notebook_sets: Sequence[NotebookSet] = ()) -> Path:
    """Corpus (the v1 corpus, its extra packages, then each of `notebook_sets`), the shipped tokenizer,
    and a resumable run folder: from `state` when it exists, else the shipped GGUF."""
    import json
    import shutil

    from ghostbook.training.corpus import build_corpus, extend_corpus
    from ghostbook.training.export import default_model_path
    from ghostbook.training.model import PRESETS
    from ghostbook.training.packages import fetch_packages
    from ghostbook.training.tokenizer import load_tokenizer, special_ids

    corpus = work / "corpus"
    if not (corpus / "report.json").exists():
        build_corpus(corpus)
    v1 = PRESETS["default"]
    marker = corpus / "added-packages.json"
    if not marker.exists():
        packages = fetch_packages(list(v1.extra_packages), work / "packages")
        marker.write_text(json.dumps(extend_corpus(corpus, packages, v1.extra_repeat), indent=1))
    for added in notebook_sets:
        marker = corpus / f"added-{added.name}.json"
        if added.files and not marker.exists():
            marker.write_text(json.dumps(extend_corpus(corpus, [], added.repeat, added.files), indent=1))
    shipped = default_model_path()
    if not (work / "tokenizer.json").exists():
        shutil.copy(shipped.parent / "tokenizer.json", work / "tokenizer.json")
    run = work / "run-v2"
    if not (run / CKPT).exists():
        if state.exists():
            restore_state(state, run)
        else:
            init_run_from_gguf(shipped, run, preset, special_ids(load_tokenizer(work / "tokenizer.json")))
    return run


def main(argv: list[str]) -> int:
    """`ghostbook train continue`: train from the shipped model toward v2; every `--save-minutes` the
    run's state goes to `--state` (bf16, replaced), from which a fresh machine resumes."""
    import argparse
    import threading

    ap = argparse.ArgumentParser(prog="ghostbook train continue", description=main.__doc__)
    ap.add_argument("--work", type=Path, default=Path("~/.cache/ghostbook/train-v2").expanduser())
    ap.add_argument("--state", type=Path, default=DEFAULT_STATE, help="bf16 state file in the repository")
    ap.add_argument("--notebooks", nargs="*", type=Path, default=[],
                    help="notebook train split(s) (ghostbook train notebook-data build) added to the corpus")
    ap.add_argument("--notebook-repeat", type=int, default=10)
    ap.add_argument("--extra-notebooks", nargs="*", type=Path, default=[],
                    help="notebooks for training only (ghostbook train notebook-data build --training-only)")
    ap.add_argument("--extra-repeat", type=int, default=3)
    ap.add_argument("--max-steps", type=int, default=6000)
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate of this stage")
    ap.add_argument("--min-lr", type=float, default=1e-4, help="learning rate at the decay's end")
    ap.add_argument("--writing-share", type=float, default=0.0,
                    help="share of FIM examples cut as while writing: nothing after the cursor")
    ap.add_argument("--writing-in", choices=["all", "notebooks"], default="all",
                    help="the documents whose FIM examples get writing spans (notebooks: library code keeps its spans)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-minutes", type=float, default=None)
    ap.add_argument("--save-minutes", type=float, default=10.0)
    args = ap.parse_args(argv)
    preset = v2_preset(args.max_steps, args.lr, args.min_lr, args.writing_share, args.writing_in)
    run = prepare(args.work, args.state, preset, notebook_sets(args.notebooks, args.notebook_repeat,
                                                               args.extra_notebooks, args.extra_repeat))
    done = threading.Event()

    def saver() -> None:
        last = 0.0
        while not done.wait(args.save_minutes * 60):
            mtime = (run / CKPT).stat().st_mtime
            if mtime != last:
                save_state(run, args.state)
                last = mtime

    thread = threading.Thread(target=saver, daemon=True)
    thread.start()
    try:
        _train(args.work, run, preset, args.threads, args.max_minutes)
    finally:
        done.set()
        save_state(run, args.state)
        print(f"state saved to {args.state}")
    return 0


def is_notebook(path: str) -> bool:
    """Whether a corpus document is a notebook (`corpus.notebook_docs` keeps its `.ipynb` name)."""
    return path.endswith(".ipynb")


def _train(work: Path, run: Path, preset: Preset, threads: int, max_minutes: float | None) -> None:
    import json

    from ghostbook.training.corpus import read_docs
    from ghostbook.training.functions import load_or_build
    from ghostbook.training.tokenizer import load_tokenizer
    from ghostbook.training.train import RunOptions, train

    tok = load_tokenizer(work / "tokenizer.json")
    cpu = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    opts = RunOptions(out_dir=run, threads=threads, device="cpu", max_minutes=max_minutes,
                      autocast="avx512_bf16" in cpu or "amx_bf16" in cpu, ckpt_every=50)
    corpus = work / "corpus"
    docs = {split: read_docs(corpus / f"{split}.jsonl") for split in ("train", "val")}
    texts = {split: [d.text for d in found] for split, found in docs.items()}
    notebooks = [is_notebook(d.path) for d in docs["train"]]
    state = train(preset, tok, texts["train"], texts["val"], opts, load_or_build(corpus), notebooks)
    print(json.dumps({k: v for k, v in state.items() if k not in ("config", "preset")}))
