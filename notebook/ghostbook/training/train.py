"""The training loop: AdamW, warm-up + cosine, gradient clipping, bf16 autocast, checkpoints and resume."""

from __future__ import annotations

import json
import math
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tokenizers import Tokenizer
from tqdm import tqdm
from transformers import LlamaConfig, LlamaForCausalLM

from ghostbook.training.data import BatchStream, FimConfig, SequenceSampler, StepBatches
from ghostbook.training.fim import SPAN_WEIGHTS, with_writing
from ghostbook.training.model import Preset, build_model, count_params, llama_config
from ghostbook.training.tokenizer import special_ids

CKPT = "checkpoint.pt"
BEST = "best.pt"  # the weights of the lowest val loss, with `RunOptions.patience`


@dataclass
class RunOptions:
    """Where and how long to train."""

    out_dir: Path
    threads: int = 1
    device: str = "cpu"
    max_minutes: float | None = None
    eval_every: int = 100
    ckpt_every: int = 50
    val_batches: int = 4
    compile: bool = False
    autocast: bool = True
    workers: int = 0  # processes drawing batches ahead (0: in the training process)
    budget_minutes: float | None = None  # fit the schedule (its decay included) into this much time
    patience: int | None = None  # stop after this many validations in a row without a lower val loss (and
    # keep the best weights in BEST)
    val_loss: Callable[[Any, int], float] | None = None  # the val loss of (model, step) at a validation; None:
    # the mean loss on the val batches (`evaluate`). A caller that needs a loss curve of its own (a test of
    # early stopping, which no learning rate drives the same way on every machine) passes one


# Steps timed to fit a schedule into a time budget, after a few warm-up ones (compilation).
PROBE_AFTER, PROBE_STEPS, BUDGET_MARGIN = 5, 20, 0.95


def fit_to_budget(p: Preset, step: int, seconds_per_step: float, seconds_left: float) -> Preset:
    """`p` with `max_steps` set so that the rest of the run (decay included) ends within `seconds_left`."""
    return replace(p, max_steps=step + max(1, int(seconds_left * BUDGET_MARGIN / seconds_per_step)))


def lr_at(step: int, p: Preset, rewarm_start: int | None = None) -> float:
    """Warm-up, stable, decay (WSD): linear warm-up, constant `lr`, then a cosine decay to `min_lr`
    over the last `decay_frac` of `max_steps`. The stable phase does not depend on `max_steps`, so a
    run can be extended (resumed with a larger `max_steps`) until its decay starts; a run extended
    after its decay re-warms linearly from `min_lr` over `warmup_steps` from `rewarm_start`."""
    if step < p.warmup_steps:
        return p.lr * (step + 1) / p.warmup_steps
    start = decay_start(p)
    if step < start:
        base = p.lr
    else:
        frac = min(1.0, (step - start) / max(1, p.max_steps - start))
        base = p.min_lr + 0.5 * (p.lr - p.min_lr) * (1 + math.cos(math.pi * frac))
    if rewarm_start is not None and rewarm_start <= step < rewarm_start + p.warmup_steps:
        ramp = (step - rewarm_start + 1) / p.warmup_steps
        return min(base, p.min_lr + (p.lr - p.min_lr) * ramp)
    return base


def rewarm_point(step: int, old: dict[str, Any] | None, new: Preset) -> int | None:
    """`step` when a checkpoint that had already entered its decay (preset `old`) is extended to a
    longer `new` schedule, so the learning rate climbs back instead of jumping; else None."""
    if not old or old.get("max_steps", new.max_steps) >= new.max_steps:
        return None
    old_start = max(new.warmup_steps, old["max_steps"] - max(1, int(old["max_steps"] * old["decay_frac"])))
    return step if step > old_start else None


def has_bf16() -> bool:
    """Whether this CPU computes in bf16 natively (autocast is slower than float32 without it)."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in info or "amx_bf16" in info


def make_optimizer(model: torch.nn.Module, p: Preset) -> torch.optim.AdamW:
    decay = [q for q in model.parameters() if q.dim() >= 2]
    no_decay = [q for q in model.parameters() if q.dim() < 2]
    groups = [{"params": decay, "weight_decay": p.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=p.lr, betas=(0.9, 0.95), eps=1e-8)


def _loss(model: torch.nn.Module, batch: torch.Tensor, autocast: bool, device: str) -> torch.Tensor:
    inputs, targets = batch[:, :-1], batch[:, 1:]
    with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=autocast):
        logits = model(input_ids=inputs, use_cache=False).logits
    return torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.size(-1)), targets.reshape(-1))


@torch.no_grad()
def evaluate(model: torch.nn.Module, batches: list[torch.Tensor], autocast: bool, device: str) -> float:
    """Mean loss over fixed validation batches."""
    model.eval()
    losses = [_loss(model, b.to(device), autocast, device).item() for b in batches]
    model.train()
    return float(np.mean(losses))


def save_checkpoint(path: Path, model: LlamaForCausalLM, opt: torch.optim.Optimizer, state: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "state": state}, tmp)
    tmp.replace(path)


def checkpoint_state(out_dir: Path) -> dict[str, Any] | None:
    """The training state (step, tokens, params, ...) of a run folder's checkpoint, or None without one."""
    if not (out_dir / CKPT).exists():
        return None
    return dict(torch.load(out_dir / CKPT, map_location="cpu", weights_only=False)["state"])


def checkpoint_step(out_dir: Path) -> int:
    """The step a run folder's checkpoint has reached (0 without one)."""
    state = checkpoint_state(out_dir)
    return int(state["step"]) if state else 0


def load_model(out_dir: Path) -> tuple[LlamaForCausalLM, dict[str, Any]]:
    """The model and training state from a run folder's checkpoint."""
    ckpt = torch.load(out_dir / CKPT, map_location="cpu", weights_only=False)
    config = LlamaConfig(**ckpt["state"]["config"])
    model = build_model(config)
    model.load_state_dict(ckpt["model"])
    return model.eval(), ckpt["state"]


def decay_start(p: Preset) -> int:
    """First step of the decay phase."""
    return max(p.warmup_steps, p.max_steps - max(1, int(p.max_steps * p.decay_frac)))


def _no_better(state: dict[str, Any], patience: int) -> bool:
    """Record the latest val loss; True once `patience` validations in a row did not beat the best."""
    best = state.get("best_val_loss")
    if best is None or state["val_loss"] < best:
        state["best_val_loss"], state["worse_evals"] = state["val_loss"], 0
        return False
    state["worse_evals"] = state.get("worse_evals", 0) + 1
    return bool(state["worse_evals"] >= patience)


def fim_config(preset: Preset, second: bool) -> FimConfig:
    """The FIM spans of `preset` (`second`: its second recipe's code-line spans): writing spans at
    `writing_share` of every document's FIM examples, or of the notebooks' only."""
    writing = tuple(with_writing(SPAN_WEIGHTS, preset.writing_share).items())
    if preset.writing_in == "notebooks":
        return FimConfig(code_lines=preset.code_lines and second, weights=tuple(SPAN_WEIGHTS.items()),
                         notebook_weights=writing)
    if preset.writing_in != "all":
        raise ValueError(f"writing_in is 'all' or 'notebooks', not {preset.writing_in!r}")
    return FimConfig(code_lines=preset.code_lines and second, weights=writing)


def train(preset: Preset, tok: Tokenizer, train_texts: list[str], val_texts: list[str], opts: RunOptions,
          anneal_texts: list[str] | None = None, notebooks: Sequence[bool] | None = None) -> dict:
    """Train (resuming from `out_dir/checkpoint.pt` when present); returns the final state.
    A share of documents comes from `anneal_texts`: `preset.anneal_functions` during the decay phase,
    `preset.functions_share` before it (from `preset.recipe_from` on). `notebooks[i]`: `train_texts[i]`
    is a notebook (where `preset.writing_in` is "notebooks", only those get writing spans)."""
    torch.set_num_threads(opts.threads)
    torch.manual_seed(preset.seed)
    out = opts.out_dir
    out.mkdir(parents=True, exist_ok=True)
    config = llama_config(preset.shape, special_ids(tok))
    model: Any = build_model(config).to(opts.device)  # type: ignore[arg-type]
    opt = make_optimizer(model, preset)
    state: dict[str, Any] = {"step": 0, "tokens": 0, "seconds": 0.0, "val_loss": None, "config": config.to_dict(),
             "preset": asdict(preset), "params": count_params(model)}
    if (out / CKPT).exists():
        ckpt = torch.load(out / CKPT, map_location=opts.device, weights_only=False)
        if "optim" not in ckpt:
            raise ValueError(f"{out / CKPT} holds no optimizer state (a packed model): export or evaluate it, "
                             "or resume from the full checkpoint")
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optim"])
        state.update({k: v for k, v in ckpt["state"].items() if k not in ("preset",)})
        rewarm = rewarm_point(state["step"], ckpt["state"].get("preset"), preset)
        if rewarm is not None:
            state["rewarm_start"] = rewarm
    second = state["step"] >= preset.recipe_from  # this stage trains with the second recipe
    fim = fim_config(preset, second)
    stable_share = preset.functions_share if second else 0.0
    sampler = SequenceSampler(train_texts, tok, preset.seq_len, fim, preset.seed, anneal_texts, notebooks)
    val_sampler = SequenceSampler(val_texts or train_texts[:10], tok, preset.seq_len, fim, preset.seed + 1)
    val = [torch.from_numpy(val_sampler.batch(preset.batch_size)) for _ in range(opts.val_batches)]
    step_model: Any = torch.compile(model) if opts.compile else model
    stop = {"flag": False}
    old = signal.signal(signal.SIGTERM, lambda *_: stop.update(flag=True))
    log = (out / "log.jsonl").open("a")
    deadline = time.time() + opts.max_minutes * 60 if opts.max_minutes else None
    bar = tqdm(total=preset.max_steps, initial=state["step"], desc="train", unit="step", dynamic_ncols=True)
    tok_per_step = preset.batch_size * preset.seq_len
    budget_end = time.time() + opts.budget_minutes * 60 if opts.budget_minutes else None
    probe: dict[str, float] = {}

    def stream(start: int) -> BatchStream:
        batches = StepBatches(sampler, start, preset.max_steps, preset.batch_size, preset.seed, decay_start(preset),
                              preset.anneal_functions, stable_share)
        return BatchStream(batches, opts.workers)

    first = state["step"]
    batches = stream(first)
    try:
        while state["step"] < preset.max_steps and not stop["flag"]:
            if deadline and time.time() > deadline:
                break
            t0 = time.time()
            step, batch = batches.next()
            assert step == state["step"], (step, state["step"])
            batch = batch.to(opts.device)
            lr = lr_at(step, preset, state.get("rewarm_start"))
            for g in opt.param_groups:
                g["lr"] = lr
            loss = _loss(step_model, batch, opts.autocast, opts.device)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), preset.grad_clip)
            opt.step()
            dt = time.time() - t0
            state.update(step=step + 1, tokens=state["tokens"] + tok_per_step, seconds=state["seconds"] + dt)
            rec = {"step": step + 1, "loss": round(loss.item(), 4), "lr": lr,
                   "gnorm": round(float(norm), 3), "tok_s": round(tok_per_step / dt)}
            if budget_end is not None and step + 1 == first + PROBE_AFTER:
                probe["t0"] = time.time()
            if budget_end is not None and step + 1 == first + PROBE_AFTER + PROBE_STEPS:
                per_step = (time.time() - probe["t0"]) / PROBE_STEPS
                preset = fit_to_budget(preset, step + 1, per_step, budget_end - time.time())
                state["preset"] = asdict(preset)
                rec["budget_max_steps"] = bar.total = preset.max_steps
                batches.close()
                batches = stream(step + 1)  # the decay (and its annealing data) now starts elsewhere
            if (step + 1) % opts.eval_every == 0 or step + 1 == preset.max_steps:
                loss_now = (opts.val_loss(model, step + 1) if opts.val_loss is not None
                            else evaluate(model, val, opts.autocast, opts.device))
                state["val_loss"] = rec["val_loss"] = round(loss_now, 4)
                if opts.patience is not None and _no_better(state, opts.patience):
                    stop["flag"] = True
                    state["stopped_early"] = step + 1
                elif opts.patience is not None and state["worse_evals"] == 0:  # the best so far: keep it
                    torch.save(model.state_dict(), out / BEST)
                    state["best_step"] = step + 1
            log.write(json.dumps(rec) + "\n")
            log.flush()
            bar.set_postfix(loss=rec["loss"], val=state["val_loss"], tok_s=rec["tok_s"])
            bar.update(1)
            if (step + 1) % opts.ckpt_every == 0:
                save_checkpoint(out / CKPT, model, opt, state)
    finally:
        batches.close()
        bar.close()
        log.close()
        signal.signal(signal.SIGTERM, old)
        save_checkpoint(out / CKPT, model, opt, state)
    return state
