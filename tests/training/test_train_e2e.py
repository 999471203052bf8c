"""Tiny end-to-end: corpus -> tokenizer -> train -> resume -> export HF + GGUF -> llama.cpp == transformers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

PROMPTS = ["def add(a, b):\n    return", "import os\n\nclass Foo:\n    def __init__(self", "for i in range("]


def test_corpus_report_and_files(tiny_work: Path) -> None:
    report = json.loads((tiny_work / "corpus" / "report.json").read_text())
    assert report["files"]["kept"] >= 8
    assert (tiny_work / "corpus" / "train.jsonl").stat().st_size > 10_000


def test_resume_continues_from_checkpoint(tiny_work: Path) -> None:
    from ghostbook.training.cli import main
    from ghostbook.training.train import load_model

    _, before = load_model(tiny_work / "run")
    assert before["step"] == 20
    assert main(["run", "--preset", "tiny", "--work", str(tiny_work), "--max-steps", "23"]) == 0
    _, after = load_model(tiny_work / "run")
    assert after["step"] == 23 and after["tokens"] == before["tokens"] + 3 * 4 * 128
    lines = (tiny_work / "run" / "log.jsonl").read_text().splitlines()
    assert [json.loads(x)["step"] for x in lines][-3:] == [21, 22, 23]


def _hf_greedy(model, ids: list[int], n: int) -> list[int]:
    import torch

    out = model.generate(torch.tensor([ids]), max_new_tokens=n, min_new_tokens=n, do_sample=False,
                         attention_mask=torch.ones(1, len(ids), dtype=torch.long), pad_token_id=4)
    return out[0, len(ids):].tolist()


def _llama_greedy(llm, ids: list[int], n: int) -> list[int]:
    import llama_cpp

    llm.reset()
    llm.eval(ids)
    out = []
    for _ in range(n):
        tok = int(np.argmax(np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1),
                                                  shape=(llm.n_vocab(),))))
        out.append(tok)
        llm.eval([tok])
    return out


@pytest.mark.parametrize("quant", ["f32", "f16"])
def test_llama_cpp_greedy_matches_transformers(tiny_work: Path, quant: str) -> None:
    import llama_cpp
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

    export = tiny_work / "export"
    tok = PreTrainedTokenizerFast(tokenizer_file=str(export / "hf" / "tokenizer.json"))
    model = AutoModelForCausalLM.from_pretrained(str(export / "hf")).eval()
    llm = llama_cpp.Llama(str(export / f"ghostbook-fim-{quant}.gguf"), n_ctx=256, n_threads=1, verbose=False)
    for prompt in PROMPTS:
        ids = tok(prompt, add_special_tokens=False).input_ids
        assert llm.tokenize(prompt.encode(), add_bos=False, special=False) == ids
        assert _llama_greedy(llm, ids, 12) == _hf_greedy(model, ids, 12)
    llm.close()


def test_quantised_gguf_loads_and_runs(tiny_work: Path) -> None:
    import llama_cpp

    for quant in ("q8_0", "q4_0"):
        path = tiny_work / "export" / f"ghostbook-fim-{quant}.gguf"
        assert path.stat().st_size < (tiny_work / "export" / "ghostbook-fim-f32.gguf").stat().st_size
        llm = llama_cpp.Llama(str(path), n_ctx=128, n_threads=1, verbose=False)
        assert len(_llama_greedy(llm, [5, 6, 7], 5)) == 5
        llm.close()


def test_gguf_metadata(tiny_work: Path) -> None:
    import gguf

    reader = gguf.GGUFReader(str(tiny_work / "export" / "ghostbook-fim-f16.gguf"))

    def value(key: str):
        f = reader.get_field(key)
        v = f.parts[f.data[0]]
        return bytes(v).decode() if v.dtype == np.uint8 else int(v[0])

    assert value("tokenizer.ggml.pre") == "gpt-2"
    assert value("tokenizer.ggml.model") == "gpt2"
    assert value("tokenizer.ggml.add_bos_token") == 0
    assert [value(f"tokenizer.ggml.fim_{k}_token_id") for k in ("pre", "suf", "mid", "pad")] == [1, 2, 3, 4]
