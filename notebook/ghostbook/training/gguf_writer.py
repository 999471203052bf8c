"""Write a trained `LlamaForCausalLM` plus its byte-level BPE tokenizer as a llama.cpp GGUF file."""

from __future__ import annotations

import json
from pathlib import Path

import gguf
import numpy as np
import torch
from transformers import LlamaForCausalLM

from ghostbook.training.fim import EOT, FIM_MIDDLE, FIM_PAD, FIM_PREFIX, FIM_SUFFIX


def permute_qk(w: np.ndarray, n_head: int) -> np.ndarray:
    """HF rotary layout (halves) -> llama.cpp's interleaved layout, as llama.cpp's converter does."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def _tensor_name(hf_name: str) -> str:
    n = hf_name.removeprefix("model.")
    if n == "embed_tokens.weight":
        return "token_embd.weight"
    if n == "norm.weight":
        return "output_norm.weight"
    if n == "lm_head.weight":
        return "output.weight"
    layer, rest = n.removeprefix("layers.").split(".", 1)
    table = {
        "input_layernorm.weight": "attn_norm", "post_attention_layernorm.weight": "ffn_norm",
        "self_attn.q_proj.weight": "attn_q", "self_attn.k_proj.weight": "attn_k",
        "self_attn.v_proj.weight": "attn_v", "self_attn.o_proj.weight": "attn_output",
        "mlp.gate_proj.weight": "ffn_gate", "mlp.up_proj.weight": "ffn_up", "mlp.down_proj.weight": "ffn_down",
    }
    return f"blk.{layer}.{table[rest]}.weight"


def _add_tokenizer(w: gguf.GGUFWriter, tokenizer_json: Path, vocab_size: int) -> None:
    data = json.loads(Path(tokenizer_json).read_text())
    vocab: dict[str, int] = data["model"]["vocab"]
    added = {t["content"]: t["id"] for t in data.get("added_tokens", [])}
    by_id = {i: t for t, i in {**vocab, **added}.items()}
    tokens, types = [], []
    for i in range(vocab_size):
        tok = by_id.get(i, f"[PAD{i}]")
        tokens.append(tok)
        special = tok in added or i not in by_id
        types.append(gguf.TokenType.CONTROL if special else gguf.TokenType.NORMAL)
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(added[EOT])
    w.add_eos_token_id(added[EOT])
    w.add_eot_token_id(added[EOT])
    w.add_pad_token_id(added[FIM_PAD])
    w.add_add_bos_token(False)
    w.add_add_eos_token(False)
    for key, tok in ((gguf.Keys.Tokenizer.FIM_PRE_ID, FIM_PREFIX), (gguf.Keys.Tokenizer.FIM_SUF_ID, FIM_SUFFIX),
                     (gguf.Keys.Tokenizer.FIM_MID_ID, FIM_MIDDLE), (gguf.Keys.Tokenizer.FIM_PAD_ID, FIM_PAD)):
        w.add_uint32(key, added[tok])


def write_gguf(model: LlamaForCausalLM, tokenizer_json: Path, path: Path, ftype: str = "f16",
               name: str = "ghostbook-fim", context_length: int | None = None) -> Path:
    """Write `model` as GGUF with 2-D weights in `ftype` ("f16" or "f32") and norms in f32;
    `context_length` is the trained sequence length (default: the config's maximum)."""
    cfg = model.config
    n_head = int(cfg.num_attention_heads)
    n_kv = int(cfg.num_key_value_heads or n_head)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name(name)
    w.add_context_length(context_length or cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_rope_dimension_count(cfg.hidden_size // n_head)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_kv)
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    rope_theta = getattr(cfg, "rope_theta", None) or (getattr(cfg, "rope_parameters", None) or {}).get(
        "rope_theta", 10000.0)
    w.add_rope_freq_base(float(rope_theta))
    w.add_vocab_size(cfg.vocab_size)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if ftype == "f16" else gguf.LlamaFileType.ALL_F32)
    _add_tokenizer(w, tokenizer_json, cfg.vocab_size)
    state = {k: v.detach().to(torch.float32).cpu().numpy() for k, v in model.state_dict().items()}
    if "lm_head.weight" not in state or cfg.tie_word_embeddings:
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    for hf_name, arr in state.items():
        if "rotary_emb" in hf_name:
            continue
        if hf_name.endswith("q_proj.weight"):
            arr = permute_qk(arr, n_head)
        elif hf_name.endswith("k_proj.weight"):
            arr = permute_qk(arr, n_kv)
        dtype = np.float16 if ftype == "f16" and arr.ndim == 2 else np.float32
        w.add_tensor(_tensor_name(hf_name), np.ascontiguousarray(arr.astype(dtype)))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
