"""The WSD learning-rate schedule, re-warming when a decayed run is extended, and presets grown in stages."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from ghostbook.training.model import PRESETS, Preset
from ghostbook.training.train import decay_start, lr_at, rewarm_point

P = Preset(lr=1e-3, min_lr=1e-4, warmup_steps=10, max_steps=100, decay_frac=0.2)


def test_wsd_warmup_stable_decay() -> None:
    assert lr_at(0, P) == pytest.approx(1e-4)
    assert lr_at(9, P) == pytest.approx(1e-3)
    assert decay_start(P) == 80
    assert lr_at(50, P) == lr_at(79, P) == pytest.approx(1e-3)
    assert lr_at(90, P) == pytest.approx(0.5 * (1e-3 + 1e-4))
    assert lr_at(100, P) == pytest.approx(1e-4)


def test_extending_a_decayed_run_rewarms_instead_of_jumping() -> None:
    longer = replace(P, max_steps=300)
    start = rewarm_point(100, {"max_steps": 100, "decay_frac": 0.2}, longer)
    assert start == 100
    assert lr_at(100, longer, start) == pytest.approx(1e-4 + 0.9e-3 / 10)
    assert lr_at(104, longer, start) == pytest.approx(1e-4 + 0.9e-3 * 5 / 10)
    assert lr_at(110, longer, start) == pytest.approx(1e-3)
    assert lr_at(100, longer) == pytest.approx(1e-3)  # what it would jump to without the re-warm


def test_no_rewarm_before_the_decay_or_without_extension() -> None:
    longer = replace(P, max_steps=300)
    assert rewarm_point(50, {"max_steps": 100, "decay_frac": 0.2}, longer) is None  # still stable
    assert rewarm_point(100, {"max_steps": 100, "decay_frac": 0.2}, P) is None  # same schedule
    assert rewarm_point(100, None, longer) is None


def test_preset_grown_in_stages_runs_each_stage_with_a_rewarm(tiny_work: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from ghostbook.training.cli import main
    from ghostbook.training.train import load_model

    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(tiny_work / "corpus", work / "corpus")
    shutil.copy(tiny_work / "tokenizer.json", work / "tokenizer.json")
    staged = replace(PRESETS["tiny"], warmup_steps=2, max_steps=16, stages=(8,), recipe_from=8)
    monkeypatch.setitem(PRESETS, "tiny", staged)
    from ghostbook.training import train as train_module
    from ghostbook.training.corpus import extend_corpus, read_docs

    base = len(read_docs(work / "corpus" / "train.jsonl"))
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "algos.py").write_text('def twice(x):\n    """Twice x."""\n    y = x * 2\n    return y\n\n\n' * 8)
    extend_corpus(work / "corpus", [package], repeat=2)

    recipes: list[tuple[bool, float]] = []  # (code-line spans, function share before the decay) per stage
    texts: list[tuple[int, int]] = []  # (training documents, function documents) per stage
    real, real_train = train_module.StepBatches, train_module.train

    def spy(sampler, *args):  # type: ignore[no-untyped-def]
        if args[0] in (0, 8):
            recipes.append((sampler.fim.code_lines, args[-1]))
        return real(sampler, *args)

    def train_spy(preset, tok, train_texts, val_texts, opts, anneal):  # type: ignore[no-untyped-def]
        texts.append((len(train_texts), len(anneal)))
        return real_train(preset, tok, train_texts, val_texts, opts, anneal)

    monkeypatch.setattr(train_module, "StepBatches", spy)
    monkeypatch.setattr(train_module, "train", train_spy)
    assert main(["run", "--preset", "tiny", "--work", str(work)]) == 0
    assert recipes == [(False, 0.0), (True, staged.functions_share)]  # the second recipe from step 8
    # The first stage trains on the corpus as built, the second with what the extension added.
    assert texts[0][0] == base and texts[1][0] == base + 2 and texts[1][1] > texts[0][1]
    _, state = load_model(work / "run")
    assert state["step"] == 16 and state["rewarm_start"] == 8
    # Log record N holds the learning rate of its step index N - 1.
    lrs = {r["step"]: r["lr"] for r in map(json.loads, (work / "run" / "log.jsonl").read_text().splitlines())}
    assert lrs[8] < staged.lr * 0.6  # stage 1 (8 steps) ends in its decay
    assert lrs[9] == pytest.approx(staged.min_lr + (staged.lr - staged.min_lr) / 2)  # stage 2 re-warms
    assert lrs[10] == pytest.approx(staged.lr)
    assert main(["run", "--preset", "tiny", "--work", str(work)]) == 0  # already done: no more steps
    assert load_model(work / "run")[1]["step"] == 16


def test_a_continued_stage_rewarms_to_its_own_peak_and_decays_to_its_own_floor() -> None:
    from ghostbook.training.continued import v2_preset

    stage = v2_preset(5000, lr=4e-4, min_lr=4e-5)
    start = rewarm_point(1500, {"max_steps": 1500, "decay_frac": 0.25}, stage)
    assert start == 1500
    assert lr_at(1500, stage, start) == pytest.approx(4e-5 + 3.6e-4 / 100)
    assert max(lr_at(s, stage, start) for s in range(1500, 5000)) == pytest.approx(4e-4)
    assert lr_at(5000, stage, start) == pytest.approx(4e-5)
