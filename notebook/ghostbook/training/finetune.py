"""`ghostbook train finetune DIR...`: fine-tune on your own notebooks.

The code cells of the .ipynb files under the folders become training text, cells joined as the
editor's prompt joins them (`eval.notebook_data.notebook_text`). 10% of the notebooks (at least one,
chosen by a hash of the path) are held out: the notebook benchmark's tasks cut from them are asked of
the editor's own completion path before and after training, and exact match is printed for both.
The default model is trained fully (`training.train.train` from the shipped weights, FIM examples as
`training.data` cuts them) and exported as GGUF Q8_0; an HF-format model gets LoRA adapters
(`training.lora`), merged. The result goes to a folder of the local models folder
(`models.catalogue.models_dir`) with a `finetune.json`, and the settings' model list offers it as
"finetuned: NAME".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ghostbook.eval.notebook_data import Notebook
from ghostbook.eval.notebook_tasks import NotebookTask, notebook_tasks
from ghostbook.models.catalogue import models_dir
from ghostbook.training.model import PRESETS, Preset
from ghostbook.training.user_notebooks import (
    GGUF_STEM,
    MIN_TRAIN_CELLS,
    REPORT,
    FinetuneError,
    Options,
    default_steps,
    default_threads,
    quiet_llama,
    read_user_notebooks,
    split_heldout,
    texts,
    warn,
)

# ---- measuring -----------------------------------------------------------------------------------------


def heldout_tasks(held: list[Notebook], per_notebook: int, root: str) -> list[NotebookTask]:
    """The notebook benchmark's tasks cut from `held`, each notebook's cuts chosen by its path below `root`
    (the folder the user's notebooks share), as `split_heldout` chooses the notebooks: the same tasks
    wherever that folder is."""
    tasks = notebook_tasks([replace(nb, id=os.path.relpath(nb.id, root)) for nb in held], per_notebook)
    if not tasks:
        raise FinetuneError("the held-out notebooks give no completion tasks (their cells are too short): "
                            "add notebooks with more code")
    return tasks


def exact_match(tasks: list[NotebookTask], model: str, progress: bool, candidates: bool = True) -> dict[str, float]:
    """The notebook benchmark's summary row for `model` (a setting: "default" or a path) on `tasks`: the
    editor's settings without the beam's time limit (before and after are then the same search; with
    it the machine's load decides which lines the beam finishes); `candidates` off: the model alone,
    without what the notebook rules copy (`notebook_candidates`)."""
    from ghostbook.completion.settings import CompletionSettings
    from ghostbook.eval.notebook_bench import run_tasks, summarise

    settings = CompletionSettings(search_ms=0, notebook_candidates=candidates)
    try:
        with quiet_llama():  # not llama.cpp's warning that the model was trained on a shorter context
            return summarise(asyncio.run(run_tasks(tasks, model, settings, progress)))
    except RuntimeError as exc:
        raise FinetuneError(f"cannot measure {model}: {exc}") from None


# ---- the default model, fully ----------------------------------------------------------------------


def finetune_preset(steps: int, lr: float, batch_size: int) -> Preset:
    """The default model's shape and sequence length; a short WSD schedule at a small rate, FIM
    examples only from the user's text."""
    return replace(PRESETS["default"], max_steps=steps, stages=(), recipe_from=0, extra_packages=(), lr=lr,
                   min_lr=lr / 10, warmup_steps=max(1, min(20, steps // 10)), batch_size=batch_size,
                   anneal_functions=0.0, functions_share=0.0)


def train_default(train_texts: list[str], val_texts: list[str], opts: Options, out: Path) -> dict[str, Any]:
    """Train the shipped model on `train_texts` (held-out loss on `val_texts`), write its GGUF to `out`."""
    import torch

    from ghostbook.training.continued import init_run_from_gguf
    from ghostbook.training.export import default_model_dir, default_model_path, export_gguf
    from ghostbook.training.tokenizer import load_tokenizer, special_ids
    from ghostbook.training.train import BEST, RunOptions, has_bf16, load_model, train

    tok_path = default_model_dir() / "tokenizer.json"
    if not default_model_path().is_file():
        raise FinetuneError(f"the default model is missing ({default_model_path()})")
    tok = load_tokenizer(tok_path)
    seq_len = PRESETS["default"].seq_len
    n_tokens = sum(len(e.ids) for e in tok.encode_batch(train_texts))
    steps = opts.steps or default_steps(n_tokens, opts.batch_size * seq_len)
    preset = finetune_preset(steps, opts.lr or 3e-4, opts.batch_size)
    with tempfile.TemporaryDirectory(prefix="ghostbook-finetune-") as tmp:
        run = Path(tmp) / "run"
        try:
            init_run_from_gguf(default_model_path(), run, preset, special_ids(tok))
        except ValueError as exc:  # a shipped model of another shape than the default preset's
            raise FinetuneError(f"cannot start from the default model: {exc}") from None
        run_opts = RunOptions(out_dir=run, threads=opts.threads, max_minutes=opts.max_minutes,
                              eval_every=max(10, steps // 10), ckpt_every=steps + 1,
                              val_batches=max(2, -(-16 // opts.batch_size)),  # 16 held-out sequences or more
                              autocast=has_bf16(), patience=opts.patience, val_loss=opts.heldout_loss)
        state = train(preset, tok, train_texts, val_texts, run_opts)
        model, _ = load_model(run)
        if state.get("stopped_early") and (run / BEST).is_file():  # back to the lowest held-out loss
            model.load_state_dict(torch.load(run / BEST, map_location="cpu"))
    with quiet_llama():
        paths = export_gguf(model, tok_path, out, ["q8_0"], stem=GGUF_STEM, context_length=seq_len)
    for path in paths:
        if path.name != f"{GGUF_STEM}-q8_0.gguf":
            path.unlink()
    shutil.copy(tok_path, out / "tokenizer.json")
    return {"method": "full", "gguf": f"{GGUF_STEM}-q8_0.gguf", "steps": state["step"], "planned_steps": steps,
            "kept_step": state.get("best_step") if state.get("stopped_early") else state["step"],
            "train_tokens": n_tokens, "val_loss": state.get("val_loss"),
            "stopped_early": state.get("stopped_early"), "lr": preset.lr, "batch_size": preset.batch_size}


# ---- the command ---------------------------------------------------------------------------------------


def output_dir(name: str) -> Path:
    """The fine-tuned model's folder in the local models folder (replaced if it exists)."""
    return models_dir() / name


def safe_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    if not cleaned:
        raise FinetuneError(f"--out {name!r}: use letters, digits, '.', '_' or '-'")
    return cleaned


def finetune(folders: list[Path], base: str, name: str, opts: Options) -> dict[str, Any]:
    """Read, split, measure, train, export, measure again; returns the report (also written as
    `finetune.json` in the model's folder)."""
    notebooks = read_user_notebooks(folders)
    train_nbs, held = split_heldout(notebooks)
    n_cells = sum(len(nb.cells) for nb in train_nbs)
    if n_cells < MIN_TRAIN_CELLS:
        raise FinetuneError(f"only {n_cells} code cells in {len(train_nbs)} training notebooks; fine-tuning needs "
                            f"at least {MIN_TRAIN_CELLS}")
    tasks = heldout_tasks(held, opts.per_notebook, os.path.commonpath([nb.id for nb in notebooks]))
    print(f"notebooks: {len(train_nbs)} to train on ({n_cells} code cells), {len(held)} held out "
          f"({len(tasks)} completion tasks)")
    base_path = None if base == "default" else Path(base).expanduser().resolve()
    if base_path is not None and not (base_path / "config.json").is_file():
        raise FinetuneError(f"--base {base}: not a Hugging Face model folder (no config.json)")
    base_model = "default" if base_path is None else str(base_path)
    before = exact_match(tasks, base_model, opts.progress)
    alone_before = exact_match(tasks, base_model, opts.progress, False)
    print(f"held-out exact match before: {before['exact_match']:.1%} "
          f"(the model alone {alone_before['exact_match']:.1%})")
    out = output_dir(name)
    if out.exists():
        warn(f"replacing {out}")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    start = time.time()
    try:
        if base_path is None:
            report = train_default(texts(train_nbs), texts(held), opts, out)
        else:
            from ghostbook.training.lora import train_lora

            report = train_lora(base_path, texts(train_nbs), texts(held), opts, out)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    minutes = (time.time() - start) / 60
    (out / REPORT).write_text(json.dumps({"name": name, "base": base, **report}, indent=1))  # the catalogue's
    after_model = out / report["gguf"] if base_path is None else out
    after = exact_match(tasks, str(after_model), opts.progress)
    alone_after = exact_match(tasks, str(after_model), opts.progress, False)
    report = {"name": name, "base": base, **report, "minutes": round(minutes, 2),
              "train_notebooks": len(train_nbs), "train_cells": n_cells,
              "heldout": {"notebooks": [nb.id for nb in held], "tasks": len(tasks),
                          "exact_match_before": before["exact_match"], "exact_match_after": after["exact_match"],
                          "model_alone_exact_match_before": alone_before["exact_match"],
                          "model_alone_exact_match_after": alone_after["exact_match"],
                          "char_similarity_before": before["char_similarity"],
                          "char_similarity_after": after["char_similarity"]}}
    (out / REPORT).write_text(json.dumps(report, indent=1))
    return report


def print_report(report: dict[str, Any], out: Path) -> None:
    held = report["heldout"]
    early = (f", stopped early (held-out loss rose) at step {report['stopped_early']}; kept the weights of step "
             f"{report.get('kept_step')}") if report.get("stopped_early") else ""
    print(f"trained {report['steps']} steps in {report['minutes']:.1f} min ({report['method']}{early})")
    print(f"held-out exact match: before {held['exact_match_before']:.1%}, after {held['exact_match_after']:.1%} "
          f"({held['tasks']} tasks in {len(held['notebooks'])} notebooks); the model alone (no notebook "
          f"candidates): {held['model_alone_exact_match_before']:.1%} -> {held['model_alone_exact_match_after']:.1%}")
    for line in report.get("notes", []):
        print(line)
    print(f"wrote {out}; the settings' model list offers it as \"finetuned: {report['name']}\"")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook train finetune", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path, help="folders searched for .ipynb files (recursively)")
    ap.add_argument("--base", default="default",
                    help="'default' (trained fully) or a Hugging Face model folder with FIM tokens (LoRA)")
    ap.add_argument("--out", default=None, help="name of the fine-tuned model (default: the first folder's name)")
    ap.add_argument("--steps", type=int, default=None, help="training steps (default: 10 passes, 100 to 400)")
    ap.add_argument("--lr", type=float, default=None, help="peak learning rate (default 3e-4 full, 1e-3 LoRA)")
    ap.add_argument("--max-minutes", type=float, default=None, help="stop training after this long")
    ap.add_argument("--batch-size", type=int, default=8, help="sequences a step")
    ap.add_argument("--lora-rank", type=int, default=8, help="rank of the LoRA adapters (--base PATH)")
    ap.add_argument("--threads", type=int, default=default_threads(), help="CPU threads for training (default: "
                    "half the cores, at most 4)")
    ap.add_argument("--patience", type=int, default=2,
                    help="stop after this many held-out validations in a row without a lower loss")
    ap.add_argument("--quiet", action="store_true", help="no progress bars while measuring")
    args = ap.parse_args(argv)
    opts = Options(args.steps, args.lr, args.max_minutes, args.batch_size, args.lora_rank, args.threads,
                   args.patience, progress=not args.quiet)
    for flag, value in (("--steps", args.steps), ("--batch-size", args.batch_size), ("--lora-rank", args.lora_rank),
                        ("--threads", args.threads)):
        if value is not None and value < 1:
            ap.error(f"{flag} must be at least 1")
    if args.lr is not None and not 0 < args.lr < 1:
        ap.error("--lr must be between 0 and 1")
    try:
        name = safe_name(args.out or args.folders[0].expanduser().resolve().name)
        report = finetune(args.folders, args.base, name, opts)
    except FinetuneError as exc:
        print(f"ghostbook train finetune: {exc}", file=sys.stderr)
        return 2
    print_report(report, output_dir(name))
    return 0
