"""Continuing from a shipped GGUF: dequantised weights equal the exported ones, and a run's state
survives as one bf16 file from which training resumes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from ghostbook.training.continued import (
    gguf_to_state,
    init_run_from_gguf,
    restore_state,
    save_state,
    unpermute_qk,
)
from ghostbook.training.gguf_writer import permute_qk
from ghostbook.training.model import PRESETS, ModelShape
from ghostbook.training.tokenizer import load_tokenizer, special_ids
from ghostbook.training.train import CKPT, RunOptions, train
from transformers import LlamaForCausalLM

from tests.models.conftest import shared_tiny_gguf

SHAPE = ModelShape(vocab_size=512, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                   num_key_value_heads=2, max_position_embeddings=1024)
PRESET = replace(PRESETS["tiny"], shape=SHAPE, max_steps=6, anneal_functions=0.0, functions_share=0.0)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_tiny_gguf(tmp_path_factory)


def test_unpermute_undoes_the_export_permutation() -> None:
    w = np.random.default_rng(0).normal(size=(24, 8)).astype(np.float32)
    assert np.array_equal(unpermute_qk(permute_qk(w, 3), 3), w)


def test_dequantised_gguf_has_the_exported_weights(tiny: Path) -> None:
    special = special_ids(load_tokenizer(tiny.parent / "tokenizer.json"))
    state = gguf_to_state(tiny, PRESET, special)
    hf = LlamaForCausalLM.from_pretrained(tiny.parent / "hf").state_dict()
    for name, tensor in state.items():
        if "rotary" not in name:
            assert torch.allclose(tensor, hf[name].float(), atol=1e-6), name
    with pytest.raises(ValueError, match="shape"):
        gguf_to_state(tiny, replace(PRESET, shape=replace(SHAPE, intermediate_size=128)), special)


def test_training_resumes_from_the_bf16_state(tiny: Path, tmp_path: Path) -> None:
    tok = load_tokenizer(tiny.parent / "tokenizer.json")
    run = tmp_path / "run"
    init_run_from_gguf(tiny, run, PRESET, special_ids(tok))
    texts = [Path(torch.__file__).read_text()] * 4
    opts = RunOptions(out_dir=run, autocast=False, eval_every=3, val_batches=1)
    assert train(replace(PRESET, max_steps=3), tok, texts, texts, opts)["step"] == 3
    saved = save_state(run, tmp_path / "repo" / "state.bf16.pt")
    blob = torch.load(saved, weights_only=False)
    assert all(v.dtype == torch.bfloat16 for v in blob["model"].values() if v.is_floating_point())
    assert saved.stat().st_size < (run / CKPT).stat().st_size * 0.6
    fresh = tmp_path / "fresh-machine"
    restore_state(saved, fresh)
    state = train(PRESET, tok, texts, texts, replace(opts, out_dir=fresh))
    assert state["step"] == 6 and state["init"].startswith("dequantised")
