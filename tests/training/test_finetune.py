"""`ghostbook train finetune`: real training on house-style notebooks, held-out exact match through the
editor's completion path before and after, the GGUF in llama.cpp, the catalogue's offer; LoRA on an
HF-format model; clear errors for bad input."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import gguf
import numpy as np
import pytest
import torch
from ghostbook.eval.notebook_bench import run_tasks
from ghostbook.eval.notebook_data import Notebook
from ghostbook.eval.notebook_tasks import NotebookTask
from ghostbook.models.catalog import resolve
from ghostbook.models.catalogue import offers
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.loader import ModelRegistry
from ghostbook.training.finetune import finetune, heldout_tasks, main, output_dir, print_report
from ghostbook.training.user_notebooks import Options, read_user_notebooks, split_heldout
from safetensors.torch import load_file

from tests.models.conftest import shared_tiny_gguf
from tests.training.house_notebooks import notebook_json, write_house_notebooks


@pytest.fixture()
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("GHOSTBOOK_MODELS_DIR", str(folder))
    return folder


@pytest.mark.timeout(600)  # ~80 s on an idle 2-core machine: the suite's 120 s guard is for hangs, not speed
def test_finetune_on_house_notebooks_raises_heldout_exact_match(tmp_path: Path, models: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    write_house_notebooks(tmp_path / "nbs", 30)
    assert main([str(tmp_path / "nbs"), "--steps", "30", "--batch-size", "2", "--lr", "1e-3", "--threads", "1",
                 "--out", "house", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "27 to train on" in out and "3 held out" in out
    assert "held-out exact match: before" in out and '"finetuned: house"' in out
    report = json.loads((models / "house" / "finetune.json").read_text())
    held = report["heldout"]
    print(held)
    assert held["tasks"] == 18 and report["steps"] == 30
    # what fine-tuning changes is the model: alone it learns the house style; with the notebook rules
    # (which copy much of that style before any training) the editor's exact match moves by a task or two
    assert held["model_alone_exact_match_after"] > held["model_alone_exact_match_before"]
    assert held["exact_match_after"] >= held["exact_match_before"] - 1 / 18
    gguf = models / "house" / report["gguf"]
    assert sorted(p.name for p in (models / "house").iterdir()) == ["finetune.json", gguf.name, "tokenizer.json"]

    offer = next(o for o in offers() if o.name == "finetuned: house")
    assert offer.spec == str(gguf) and offer.backends == "llama.cpp" and offer.source == "local"
    entry, path = resolve(offer.spec)  # the default model's rules (template, code only) for its fine-tune
    assert entry is not None and entry.family == "ghostbook" and entry.code_only and path == gguf

    cells = ("import numpy as npx\nimport pandas as ", 'df = pdx.read_csv("data/search.csv")\ndf.head()')
    task = NotebookTask("house#0", "house", "after import", cells, 0, len(cells[0]), "pdx")

    async def complete() -> tuple[str, object]:
        registry = ModelRegistry()
        try:
            results = await run_tasks([task], offer.spec, progress=False, registry=registry)
            return results[0].completion, registry.backend
        finally:
            await registry.close()

    completion, backend = asyncio.run(complete())
    assert isinstance(backend, LlamaCppBackend)
    assert completion.strip(), "the fine-tuned GGUF completes"


def test_lora_on_an_hf_model_merges_the_adapters(tmp_path: Path, models: Path,
                                                 tmp_path_factory: pytest.TempPathFactory,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    base = shared_tiny_gguf(tmp_path_factory).parent / "hf"  # the tests' tiny Llama in HF format
    write_house_notebooks(tmp_path / "nbs", 20)
    assert main([str(tmp_path / "nbs"), "--base", str(base), "--steps", "6", "--batch-size", "2",
                 "--threads", "1", "--lora-rank", "4", "--out", "house-lora", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "held-out exact match: before" in out and "lora (rank 4, merged)" in out
    folder = models / "house-lora"
    report = json.loads((folder / "finetune.json").read_text())
    assert report["method"] == "lora (rank 4, merged)" and report["steps"] == 6
    assert {"exact_match_before", "exact_match_after"} <= set(report["heldout"])
    merged, original = load_file(folder / "model.safetensors"), load_file(base / "model.safetensors")
    assert not any("lora" in k for k in merged)  # merged: plain weights, no adapter tensors
    changed = [k for k in original if "proj" in k and not torch.equal(merged[k], original[k])]
    assert changed, "the adapters were merged into the projections"
    assert report["gguf"] == "finetuned-q8_0.gguf" and (folder / report["gguf"]).is_file()  # a Llama: GGUF too
    assert next(o for o in offers() if o.name == "finetuned: house-lora").spec == str(folder / report["gguf"])


def test_bad_input_gives_clear_errors(tmp_path: Path, models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([str(empty)]) == 2
    assert "no notebooks with code cells found" in capsys.readouterr().err
    assert main([str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err

    few = tmp_path / "few"
    few.mkdir()
    (few / "a.ipynb").write_text(notebook_json(["import pandas as pdx", "x = 1"]))
    assert main([str(few)]) == 2
    assert "needs at least 2" in capsys.readouterr().err
    (few / "b.ipynb").write_text(notebook_json(["y = 2", "z = 3"]))
    (few / "broken.ipynb").write_text('{"cells": [')
    (few / "list.ipynb").write_text("[1, 2]")
    assert main([str(few)]) == 2
    err = capsys.readouterr().err
    assert "skipping" in err and "broken.ipynb" in err and "list.ipynb" in err
    assert "only 2 code cells" in err and "Traceback" not in err

    write_house_notebooks(tmp_path / "nbs", 4)
    assert main([str(tmp_path / "nbs"), "--base", str(tmp_path)]) == 2
    assert "not a Hugging Face model folder" in capsys.readouterr().err
    assert not models.exists() or not any(models.iterdir())


def test_heldout_split_is_deterministic_by_path(tmp_path: Path) -> None:
    write_house_notebooks(tmp_path / "nbs", 25)
    notebooks = read_user_notebooks([tmp_path / "nbs"])
    train, held = split_heldout(notebooks)
    assert len(held) == 2 and len(train) == 23
    again = split_heldout(list(reversed(notebooks)))
    assert {nb.id for nb in again[1]} == {nb.id for nb in held}
    assert len(split_heldout(notebooks[:3])[1]) == 1  # at least one
    write_house_notebooks(tmp_path / "moved" / "nbs", 25)  # the same notebooks elsewhere: the same split
    moved_notebooks = read_user_notebooks([tmp_path / "moved" / "nbs"])
    moved = split_heldout(moved_notebooks)[1]
    assert [Path(nb.id).name for nb in moved] == [Path(nb.id).name for nb in held]

    def cuts(held: list[Notebook], notebooks: list[Notebook]) -> list[tuple[str, tuple[str, ...], int, str]]:
        root = os.path.commonpath([nb.id for nb in notebooks])
        return [(t.kind, t.cells, t.cursor, t.expected) for t in heldout_tasks(held, 6, root)]

    # and the same held-out tasks (what exact match is measured on): cut by the path below the folder
    assert cuts(moved, moved_notebooks) == cuts(held, notebooks) and len(cuts(held, notebooks)) == 12


def test_training_stops_when_the_heldout_loss_stops_falling() -> None:
    from ghostbook.training.train import _no_better

    state: dict[str, object] = {}
    losses = [2.0, 1.5, 1.6, 1.4, 1.45, 1.5]
    stops = []
    for loss in losses:
        state["val_loss"] = loss
        stops.append(_no_better(state, patience=2))
    assert stops == [False, False, False, False, False, True]
    assert state["best_val_loss"] == 1.4


@pytest.mark.timeout(600)
def test_a_rising_heldout_loss_stops_training_and_keeps_the_best_weights(tmp_path: Path, models: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    write_house_notebooks(tmp_path / "nbs", 30)
    # the held-out loss is the test's own, lowest at step 10 and higher from then on: no learning rate makes
    # the real loss rise at the same step on every machine. It keeps the weights it saw at each validation.
    seen: dict[int, torch.Tensor] = {}

    def heldout_loss(model: torch.nn.Module, step: int) -> float:
        seen[step] = model.state_dict()["model.norm.weight"].detach().clone()
        return 2.0 if step <= 10 else 2.5

    opts = Options(steps=30, lr=1e-3, batch_size=2, threads=1, patience=1, per_notebook=1, progress=False,
                   heldout_loss=heldout_loss)
    report = finetune([tmp_path / "nbs"], "default", "hot", opts)
    print_report(report, output_dir("hot"))
    assert sorted(seen) == [10, 20], "validated every 10 steps, stopped at the first loss above the best"
    assert report["stopped_early"] == 20 and report["kept_step"] == 10 and report["steps"] == 20
    assert "stopped early (held-out loss rose) at step 20; kept the weights of step 10" in capsys.readouterr().out
    # the best weights are the ones written: the GGUF's final norm (f32, not quantised) is step 10's
    assert not torch.equal(seen[10], seen[20]), "training moved the weights between the validations"
    reader = gguf.GGUFReader(models / "hot" / report["gguf"])
    written = next(t for t in reader.tensors if t.name == "output_norm.weight")
    assert torch.equal(torch.from_numpy(np.array(written.data, dtype=np.float32)), seen[10])


def test_gguf_is_written_only_for_architectures_the_writer_knows(tmp_path: Path,
                                                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    from ghostbook.training.lora import gguf_supported
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaForCausalLM

    base = shared_tiny_gguf(tmp_path_factory).parent / "hf"
    assert gguf_supported(LlamaForCausalLM.from_pretrained(base), base / "tokenizer.json") is None
    gpt2 = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=8, n_head=2, vocab_size=16))
    assert "architecture 'gpt2'" in str(gguf_supported(gpt2, base / "tokenizer.json"))
    (tmp_path / "tokenizer.json").write_text(json.dumps({"model": {"type": "Unigram"}}))
    llama = LlamaForCausalLM.from_pretrained(base)
    assert "a Unigram tokenizer" in str(gguf_supported(llama, tmp_path / "tokenizer.json"))
