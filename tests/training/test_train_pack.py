"""Carrying a run to a GPU machine and back: packed corpus, batches drawn by worker processes, a
schedule fitted to a time budget, the model packed in parts and unpacked for export."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from ghostbook.training.model import PRESETS, Preset


def test_packed_corpus_reads_like_the_original(tiny_work: Path, tmp_path: Path) -> None:
    from ghostbook.training.corpus import read_docs
    from ghostbook.training.functions import load_or_build
    from ghostbook.training.pack import pack_data

    written = pack_data(tiny_work, tmp_path / "pack")
    names = sorted(p.name for p in written)
    assert names == ["functions.jsonl.xz", "report.json", "tokenizer.json", "train.jsonl.xz", "val.jsonl.xz"]
    packed = tmp_path / "pack" / "corpus"
    assert not (packed / "train.jsonl").exists()
    assert read_docs(packed / "train.jsonl") == read_docs(tiny_work / "corpus" / "train.jsonl")
    assert load_or_build(packed) == load_or_build(tiny_work / "corpus")
    assert (packed / "train.jsonl.xz").stat().st_size < (tiny_work / "corpus" / "train.jsonl").stat().st_size / 2


def test_function_documents_share_before_and_during_the_decay(tiny_work: Path) -> None:
    from ghostbook.training.cli import _texts
    from ghostbook.training.data import FimConfig, SequenceSampler, draw_batch
    from ghostbook.training.tokenizer import load_tokenizer

    tok = load_tokenizer(tiny_work / "tokenizer.json")
    marker = "zq_marker_function"
    sampler = SequenceSampler(_texts(tiny_work / "corpus", "train"), tok, 64, FimConfig(fim_rate=0.0), 7,
                              [f"def {marker}():\n    return 1\n"])

    def share(step: int, stable_share: float) -> float:
        batch = draw_batch(sampler, step, 8, 7, anneal_from=10, anneal_share=0.5, stable_share=stable_share)
        return sum(marker in tok.decode(row.tolist()) for row in batch) / len(batch)

    assert share(3, 0.0) == 0.0  # the first recipe: corpus windows only before the decay
    assert share(3, 1.0) == 1.0
    assert 0.0 < share(12, 0.0) < 1.0  # the decay anneals on function documents either way


@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")  # workers fork a process that has threads
def test_worker_processes_draw_the_same_batches(tiny_work: Path) -> None:
    from ghostbook.training.cli import _texts
    from ghostbook.training.data import BatchStream, FimConfig, SequenceSampler, StepBatches
    from ghostbook.training.tokenizer import load_tokenizer

    tok = load_tokenizer(tiny_work / "tokenizer.json")
    texts = _texts(tiny_work / "corpus", "train")

    def draw(workers: int) -> list[tuple[int, np.ndarray]]:
        sampler = SequenceSampler(texts, tok, 64, FimConfig(), 7, texts[:3])
        stream = BatchStream(StepBatches(sampler, 3, 10, 2, 7, anneal_from=6, anneal_share=0.5), workers)
        try:
            return [(s, b.numpy()) for s, b in (stream.next() for _ in range(7))]
        finally:
            stream.close()

    alone, pooled = draw(0), draw(2)
    assert [s for s, _ in alone] == [s for s, _ in pooled] == list(range(3, 10))
    for (_, a), (_, b) in zip(alone, pooled, strict=True):
        np.testing.assert_array_equal(a, b)


def test_fit_to_budget_ends_the_decay_in_time() -> None:
    from ghostbook.training.train import BUDGET_MARGIN, decay_start, fit_to_budget

    p = Preset(max_steps=100_000, warmup_steps=10)
    fitted = fit_to_budget(p, step=25, seconds_per_step=0.5, seconds_left=600)
    assert fitted.max_steps == 25 + int(600 * BUDGET_MARGIN / 0.5)
    assert decay_start(fitted) < fitted.max_steps < p.max_steps
    assert fit_to_budget(p, 25, 10.0, 1.0).max_steps == 26  # no time left: one more step, then stop


@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")
def test_budgeted_run_with_workers_then_model_packed_unpacked_and_exported(
        tiny_work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch
    from ghostbook.training.cli import main
    from ghostbook.training.pack import pack_data
    from ghostbook.training.train import PROBE_AFTER, PROBE_STEPS, load_model

    work = tmp_path / "gpu"
    pack_data(tiny_work, work)
    # a schedule no machine runs in the budget (~1,000 steps fit here; a machine 10x faster must not reach it)
    monkeypatch.setitem(PRESETS, "tiny", replace(PRESETS["tiny"], max_steps=1_000_000))
    assert main(["run", "--preset", "tiny", "--work", str(work), "--workers", "2", "--budget-minutes", "0.3"]) == 0
    log = [json.loads(x) for x in (work / "run" / "log.jsonl").read_text().splitlines()]
    fitted = [r["budget_max_steps"] for r in log if "budget_max_steps" in r]
    assert len(fitted) == 1 and log[PROBE_AFTER + PROBE_STEPS - 1].get("budget_max_steps") == fitted[0]
    assert PROBE_AFTER + PROBE_STEPS < fitted[0] < 1_000_000
    assert log[-1]["step"] == fitted[0] and "val_loss" in log[-1]  # ran to the fitted end, decay included
    assert log[-1]["lr"] < PRESETS["tiny"].lr / 2

    assert main(["pack-model", "--work", str(work), "--out", str(tmp_path / "back")]) == 0
    parts = sorted((tmp_path / "back").iterdir())
    assert parts and all(p.name.startswith("model.pt.part") for p in parts)
    home = tmp_path / "home"
    pack_data(tiny_work, home)
    assert main(["unpack-model", "--work", str(home), "--from", str(tmp_path / "back")]) == 0
    original, state = load_model(work / "run")
    unpacked, state2 = load_model(home / "run")
    assert state2["step"] == state["step"]
    for (name, a), (_, b) in zip(original.state_dict().items(), unpacked.state_dict().items(), strict=True):
        torch.testing.assert_close(b, a.to(torch.bfloat16).float(), msg=name)
    assert main(["export", "--work", str(home), "--quant", "q8_0"]) == 0
    assert (home / "export" / "ghostbook-fim-q8_0.gguf").stat().st_size > 0
    with pytest.raises(ValueError, match="no optimizer state"):
        main(["run", "--preset", "tiny", "--work", str(home)])


@pytest.mark.timeout(300)
def test_gpu_script_trains_and_packs_the_model(tiny_work: Path, tmp_path: Path) -> None:
    """gpu_train.sh end to end, on the CPU with the tiny preset (the device tool runs it with CUDA)."""
    import os
    import subprocess
    import sys

    from ghostbook.training import pack

    root = Path(__file__).resolve().parents[2]
    work, out = tmp_path / "gpu", tmp_path / "out"
    pack.pack_data(tiny_work, work)
    env = {**os.environ, "WORK": str(work), "OUT": str(out), "PRESET": "tiny", "DEVICE": "cpu", "MINUTES": "1",
           "WORKERS": "1", "COMPILE": "", "PYTHON": sys.executable}
    done = subprocess.run(["bash", str(root / "notebook/ghostbook/training/gpu_train.sh")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["log.jsonl", "model.pt.part00"]
    assert json.loads((out / "log.jsonl").read_text().splitlines()[-1])["step"] == PRESETS["tiny"].max_steps
    pack.unpack_model(out, tmp_path / "home" / "run")
