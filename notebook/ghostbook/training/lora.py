"""LoRA fine-tuning of a Hugging Face model with FIM tokens (`ghostbook train finetune --base PATH`).

FIM examples are cut from the user's notebooks as `training.data` cuts them, laid out with the model
family's template (`models.templates`, the editor's). The adapters (`peft`, all linear layers) are
trained with the training loop's loss, schedule and validation (`training.train`), then merged into
the weights; the merged model is saved in HF format, and as GGUF Q8_0 when Ghostbook's writer knows
the architecture (a Llama with a byte-level BPE tokenizer.json, as Ghostbook's own models are).
"""

from __future__ import annotations

import shutil
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from tokenizers import Tokenizer
from tqdm import tqdm

from ghostbook.models.catalog import detect_family
from ghostbook.models.templates import FimTemplate, Layout, TemplateError, build_prompt, get_template
from ghostbook.training.data import FimConfig, SequenceSampler
from ghostbook.training.fim import fit, random_split
from ghostbook.training.model import PRESETS
from ghostbook.training.user_notebooks import GGUF_STEM, FinetuneError, Options, default_steps, quiet_llama

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


class TemplateSampler(SequenceSampler):
    """`SequenceSampler` for any family's FIM template: special tokens by id from the vocabulary."""

    def __init__(self, texts: list[str], tok: Tokenizer, seq_len: int, seed: int, template: FimTemplate) -> None:
        self.template = template
        super().__init__(texts, tok, seq_len, FimConfig(code_lines=True), seed)
        self.end = next(i for t in template.stop if (i := tok.token_to_id(t)) is not None)

    def fim_ids(self, tok: Tokenizer) -> dict[str, int]:
        ids = {t: tok.token_to_id(t) for t in self.template.special_tokens()}
        missing = [t for t, i in ids.items() if i is None]
        if missing:
            raise TemplateError(f"the vocabulary has no special tokens {missing}")
        return {t: int(i) for t, i in ids.items() if i is not None}

    def example(self, text: str, notebook: bool = False) -> list[int]:
        if self.rng.random() >= self.fim.fim_rate:
            return self.encode(text) + [self.end]
        split = random_split(text, self.rng, self.weights, self.fim.code_lines)
        middle = self.encode(split.middle)
        prefix, suffix = fit(self.encode(split.prefix), self.encode(split.suffix), self.seq_len - len(middle) - 8)
        mode: Layout = "spm" if self.template.spm is not None and self.rng.random() < self.fim.spm_rate else "psm"
        return build_prompt(self.template, prefix, suffix, self.tok.token_to_id, mode) + middle + [self.end]


def fim_template(base: Path, tok: Tokenizer) -> FimTemplate:
    family = detect_family(tok.token_to_id, base.name)
    if family is None:
        raise FinetuneError(f"{base}: its vocabulary has no fill-in-the-middle tokens, so it cannot complete code "
                            "in the editor; choose a FIM code model")
    template = get_template(family)
    if not any(tok.token_to_id(t) is not None for t in template.stop):
        raise FinetuneError(f"{base}: its vocabulary lacks the {family} template's end tokens")
    return template


def gguf_supported(model: Any, tokenizer_json: Path) -> str | None:
    """None if Ghostbook's GGUF writer can write `model`, else why not."""
    import json

    if getattr(model.config, "model_type", "") != "llama":
        return f"architecture {model.config.model_type!r} (Ghostbook's writer does Llama only)"
    try:
        kind = json.loads(tokenizer_json.read_text())["model"]["type"]
    except (OSError, ValueError, KeyError):
        return "no byte-level BPE tokenizer.json"
    return None if kind == "BPE" else f"a {kind} tokenizer (Ghostbook's writer does byte-level BPE only)"


def train_lora(base: Path, train_texts: list[str], val_texts: list[str], opts: Options, out: Path) -> dict[str, Any]:
    """Train LoRA adapters on `base`, merge them, save the model to `out` (HF, plus GGUF if supported)."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from ghostbook.training.train import _loss, evaluate, lr_at

    if not (base / "tokenizer.json").is_file():
        raise FinetuneError(f"{base}: no tokenizer.json (a fast tokenizer is needed)")
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    template = fim_template(base, tok)
    torch.set_num_threads(opts.threads)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    seq_len = min(512, int(getattr(model.config, "max_position_embeddings", 512) or 512))
    try:
        sampler = TemplateSampler(train_texts, tok, seq_len, 0, template)
        val_sampler = TemplateSampler(val_texts, tok, seq_len, 1, template)
    except TemplateError as exc:
        raise FinetuneError(f"{base}: {exc}") from None
    val = [torch.from_numpy(val_sampler.batch(opts.batch_size)) for _ in range(max(2, -(-16 // opts.batch_size)))]
    n_tokens = sum(len(e.ids) for e in tok.encode_batch(train_texts))
    steps = opts.steps or default_steps(n_tokens, opts.batch_size * seq_len)
    lr = opts.lr or 1e-3
    schedule = replace(PRESETS["default"], max_steps=steps, lr=lr, min_lr=lr / 10,
                       warmup_steps=max(1, min(20, steps // 10)))
    config = LoraConfig(r=opts.lora_rank, lora_alpha=2 * opts.lora_rank, lora_dropout=0.0,
                        target_modules="all-linear", task_type="CAUSAL_LM")
    with warnings.catch_warnings():  # peft asks transformers' deprecated `is_gradient_checkpointing`
        warnings.simplefilter("ignore", FutureWarning)
        lora: Any = get_peft_model(model, config)
    trainable = [p for p in lora.parameters() if p.requires_grad]
    optim = torch.optim.AdamW(trainable, lr=lr, weight_decay=0.0)
    eval_every = max(10, steps // 10)
    best, worse, stopped, val_loss, done, kept = float("inf"), 0, None, None, 0, 0
    best_state: dict[str, torch.Tensor] = {}
    deadline = time.time() + opts.max_minutes * 60 if opts.max_minutes else None
    bar = tqdm(total=steps, desc="train (LoRA)", unit="step", dynamic_ncols=True)
    lora.train()
    for step in range(steps):
        if deadline and time.time() > deadline:
            break
        for group in optim.param_groups:
            group["lr"] = lr_at(step, schedule)
        sampler.rng.seed(step)
        loss = _loss(lora, torch.from_numpy(sampler.batch(opts.batch_size)), False, "cpu")
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optim.step()
        done = step + 1
        if done % eval_every == 0 or done == steps:
            loss_now = opts.heldout_loss(lora, done) if opts.heldout_loss else evaluate(lora, val, False, "cpu")
            val_loss = round(loss_now, 4)
            if val_loss < best:
                best, worse, kept = val_loss, 0, done
                best_state = {k: v.detach().clone() for k, v in lora.state_dict().items() if "lora_" in k}
            else:
                worse += 1
        bar.set_postfix(loss=round(loss.item(), 4), val=val_loss)
        bar.update(1)
        if worse >= opts.patience:
            stopped = done
            break
    bar.close()
    if stopped and best_state:  # back to the adapters of the lowest held-out loss
        lora.load_state_dict(best_state, strict=False)
    merged: Any = lora.merge_and_unload()
    merged.save_pretrained(out, safe_serialization=True)
    for name in TOKENIZER_FILES:
        if (base / name).is_file():
            shutil.copy(base / name, out / name)
    notes, gguf_name = [], None
    why_not = gguf_supported(merged, base / "tokenizer.json")
    if why_not is None:
        from ghostbook.training.export import export_gguf

        with quiet_llama():
            paths = export_gguf(merged, base / "tokenizer.json", out, ["q8_0"], stem=GGUF_STEM, context_length=seq_len)
        for path in paths:
            if path.name != f"{GGUF_STEM}-q8_0.gguf":
                path.unlink()
        gguf_name = f"{GGUF_STEM}-q8_0.gguf"
    else:
        notes.append(f"no GGUF written: {why_not}; the merged HF folder loads with the transformers backend, "
                     "or convert it with llama.cpp's convert_hf_to_gguf.py")
    return {"method": f"lora (rank {opts.lora_rank}, merged)", "gguf": gguf_name, "steps": done,
            "kept_step": kept if stopped else done, "planned_steps": steps, "train_tokens": n_tokens,
            "val_loss": val_loss, "stopped_early": stopped, "lr": lr, "batch_size": opts.batch_size, "notes": notes}
