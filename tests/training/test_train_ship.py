"""Shipping: files copied with FIM token ids; the shipped default model (when present) completes code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_ship_copies_model_tokenizer_and_fim_ids(tiny_work: Path, tmp_path: Path) -> None:
    from ghostbook.training.ship import ship

    target = ship(tiny_work / "export", "q8_0", dest=tmp_path)
    assert target.name == "ghostbook-fim-q8_0.gguf" and target.stat().st_size > 0
    fim = json.loads((tmp_path / "fim.json").read_text())
    assert fim["tokens"] == {"<|endoftext|>": 0, "<fim_prefix>": 1, "<fim_suffix>": 2, "<fim_middle>": 3,
                             "<fim_pad>": 4}
    assert fim["template"] == "spm" and fim["add_bos"] is False
    assert (tmp_path / "tokenizer.json").read_bytes() == (tiny_work / "tokenizer.json").read_bytes()


def test_shipped_default_model_completes_code() -> None:
    from ghostbook.eval.generate import complete, load_backend
    from ghostbook.training.export import default_model_dir, default_model_path

    path = default_model_path()
    if not path.exists():
        pytest.skip("no shipped model yet")
    assert path.stat().st_size <= 40 * 1024 * 1024
    fim = json.loads((default_model_dir() / "fim.json").read_text())
    backend = load_backend(path, n_ctx=512)
    names = ("<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>")
    assert [backend.lookup(k) for k in names] == [fim["tokens"][k] for k in names]
    out = complete(backend, "def add(a, b):\n    return ", "\n", max_new=8)
    assert out.text.strip()  # a real, non-empty line
    backend.unload()


def test_ship_evaluates_and_writes_the_card_from_the_run(tiny_work: Path, tmp_path: Path) -> None:
    from ghostbook.training.card import EVAL_DEFAULT
    from ghostbook.training.ship import evaluate_shipped, ship, write_card

    dest = tmp_path / "model"
    target = ship(tiny_work / "export", "q8_0", dest=dest)
    report = tmp_path / "report"
    evaluate_shipped(tiny_work / "export", report, tiny_work / "corpus" / "val.jsonl", model=str(target),
                     limit=["--limit", "2", "--no-exec"])
    summary = json.loads((report / EVAL_DEFAULT).read_text())["summary"]
    assert [r["kind"] for r in summary] == ["single", "multi"] and all(r["n"] == 2 for r in summary)
    (report / "notes.md").write_text("Hand-written analysis goes here.")
    card = write_card(tiny_work, report, "tiny", dest=dest).read_text()
    from ghostbook.training.card import read_log
    from ghostbook.training.train import load_model

    _, state = load_model(tiny_work / "run")  # other tests may have resumed the shared run
    last = read_log(tiny_work / "run")[-1]
    assert f"{state['params']:,} parameters" in card  # from the checkpoint, not a constant
    assert f"{state['step']} steps = " in card and f"step {last['step']}: {last['val_loss']:.2f}" in card  # the log
    assert "| llama.cpp:ghostbook-fim-q8_0.gguf | single | 2 |" in card  # from the eval JSON
    assert "Greedy decoding (`--beam 1`)" in card and "| 1 | False | False |\n" in card  # the greedy comparison table
    assert "(`--no-syntax`)" in card and "| 8 | False | True |\n" in card  # the comparison without the syntax check
    assert "(`--no-reading`)" in card and "| 8 | True | False |\n" in card  # ... and without the read check
    assert "ghostbook-fim-f16.gguf | llama.cpp" in card  # the speed table
    assert "Hand-written analysis goes here." in card
    assert "(not measured)" not in card


def _card_row(card: str, model: str, kind: str, n: int) -> dict[str, str]:
    """A row of one of the card's eval tables, by model, task kind and task count."""
    for line in card.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:3] == [model, kind, str(n)]:
            return dict(zip(["model", "kind", "n", "exact_match", "pass_at_1", "mean_latency_ms", "healing", "layout",
                             "cut", "beam", "syntax", "reading"], cells, strict=False))
    raise AssertionError(f"no {model} {kind} n={n} row in the model card")


def test_shipped_card_numbers_are_reproduced_by_eval() -> None:
    """The card's single-line exact match for the shipped GGUF (every 5th task) is what `ghostbook eval`
    measures now, within one point: the card describes the model that is actually shipped."""
    from ghostbook.eval.generate import load_backend
    from ghostbook.eval.runner import evaluate
    from ghostbook.eval.tasks import humaneval_single_line
    from ghostbook.training.export import default_model_dir, default_model_path

    path = default_model_path()
    if not path.exists():
        pytest.skip("no shipped model yet")
    card = (default_model_dir() / "MODEL_CARD.md").read_text()
    tasks = humaneval_single_line()[::5]  # `ghostbook eval --tasks single --stride 5`, as in the card
    row = _card_row(card, f"llama.cpp:{path.name}", "single", len(tasks))
    backend = load_backend(path, threads=1, n_ctx=512)
    beam = int(row["beam"]) if row.get("beam", "-") != "-" else 1  # cards before beams decoded greedily
    syntax = row.get("syntax") == "True"  # cards before the syntax check have no such column
    reading = row.get("reading") == "True"  # ... nor before the read check
    layout = "spm" if row.get("layout") == "spm" else "psm"
    summary = evaluate(backend, tasks, "single", execute=False, progress=False, layout=layout, beam=beam,
                       syntax=syntax, reading=reading)
    backend.unload()
    assert abs(summary.exact_match - float(row["exact_match"])) <= 0.01, (summary.exact_match, row)
