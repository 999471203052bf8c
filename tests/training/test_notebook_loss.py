"""`ghostbook train notebook-loss`: a checkpoint's loss on the held-out notebooks."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from ghostbook.eval.notebook_data import load_notebooks, notebook_text, packaged_split
from ghostbook.training.model import build_model
from ghostbook.training.notebook_loss import main, notebook_loss
from ghostbook.training.tokenizer import load_tokenizer
from ghostbook.training.train import load_model
from transformers import LlamaConfig


def test_a_trained_model_reads_notebooks_better_than_an_untrained_one(tiny_work: Path) -> None:
    model, state = load_model(tiny_work / "run")
    tok = load_tokenizer(tiny_work / "tokenizer.json")
    ids = [tok.encode(notebook_text(nb)).ids for nb in load_notebooks(packaged_split("validation"))[:4]]
    trained, n = notebook_loss(model, ids, 128)
    untrained, m = notebook_loss(build_model(LlamaConfig(**state["config"])).eval(), ids, 128)
    assert n == m == sum(len(i) - 1 for i in ids)  # every token after a notebook's first, once
    assert untrained == pytest.approx(math.log(tok.get_vocab_size()), abs=0.5)  # a uniform guess
    assert trained < untrained - 0.5


def test_the_command_prints_each_run_s_loss(tiny_work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tiny_work / "run"), "--tokenizer", str(tiny_work / "tokenizer.json"), "--split", "test"]) == 0
    out = capsys.readouterr().out
    assert "88 notebooks" in out and "nats/token" in out
