"""Ship an exported model into the package (`models/default/`), evaluate it and write its model card."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ghostbook.training.export import DEFAULT_GGUF_NAME, default_model_dir
from ghostbook.training.fim import SPECIAL_TOKENS


def ship(export_dir: Path, quant: str = "q8_0", dest: Path | None = None) -> Path:
    """Copy `ghostbook-fim-QUANT.gguf` and the tokenizer into `dest` (default: the package's default)."""
    dest = dest or default_model_dir()
    dest.mkdir(parents=True, exist_ok=True)
    src = export_dir / f"ghostbook-fim-{quant}.gguf"
    target = dest / (DEFAULT_GGUF_NAME if dest == default_model_dir() else src.name)
    shutil.copy(src, target)
    shutil.copy(export_dir / "tokenizer.json", dest / "tokenizer.json")
    tok = json.loads((export_dir / "tokenizer.json").read_text())
    ids = {t["content"]: t["id"] for t in tok["added_tokens"]}
    # The editor's layout: suffix first (SPM), so that typing only extends the end of the prompt and
    # llama.cpp reuses the rest (`ghostbook bench completion`: 97% vs 83% of the prompt reused after
    # one more line, 2.4% vs 1.0% HumanEval single-line through the whole pipeline). The model is
    # trained on both layouts.
    fim = {"template": "spm", "add_bos": False, "tokens": {name: ids[name] for name in SPECIAL_TOKENS},
           "gguf": target.name, "context_length": _context_length(src)}
    (dest / "fim.json").write_text(json.dumps(fim, indent=1) + "\n")
    return target


def _context_length(gguf_path: Path) -> int:
    import gguf

    field = gguf.GGUFReader(str(gguf_path)).get_field("llama.context_length")
    if field is None:
        raise ValueError(f"{gguf_path} has no llama.context_length")
    return int(field.parts[field.data[0]][0])


def evaluate_shipped(export_dir: Path, report_dir: Path, heldout: Path | None, force: bool = False,
                     model: str = "default", limit: list[str] | None = None, editor_layout: str = "spm") -> None:
    """Run the card's measurements into `report_dir` (each JSON file is kept if it exists, unless
    `force`), all decoded as the editor decodes unless stated: the quantisations on every 5th single-line
    task; the shipped `model` on all tasks, greedy on the HumanEval tasks, without the syntax check and
    without the read check on the single-line tasks, in the SPM layout (every 5th
    single-line task), and with the cursor inside the masked line (after the indentation, mid-line; with
    and without token healing; in the editor's `editor_layout`); the speed benchmark.
    `limit` (e.g. `["--limit", "2"]`) cuts the task lists for a quick check."""
    limit = limit or []
    from ghostbook.bench import models as bench_models
    from ghostbook.eval import cli as eval_cli
    from ghostbook.training import card

    report_dir.mkdir(parents=True, exist_ok=True)
    ggufs = [str(p) for p in sorted(export_dir.glob("ghostbook-fim-*.gguf"))]

    def missing(name: str) -> Path | None:
        path = report_dir / name
        return path if force or not path.exists() else None

    if path := missing(card.EVAL_QUANTS):
        eval_cli.main([*ggufs, "--tasks", "single", "--stride", "5", *limit, "--quiet", "--json", str(path)])
    if path := missing(card.EVAL_DEFAULT):
        tasks = ["single", "multi"] + (["heldout"] if heldout and heldout.exists() and heldout.stat().st_size else [])
        extra = ["--heldout", str(heldout)] if heldout else []
        eval_cli.main([model, "--tasks", *tasks, *extra, *limit, "--quiet", "--json", str(path)])
    if path := missing(card.EVAL_GREEDY):
        eval_cli.main([model, "--tasks", "single", "multi", "--beam", "1", *limit, "--quiet", "--json", str(path)])
    if path := missing(card.EVAL_NOSYNTAX):
        eval_cli.main([model, "--tasks", "single", "--no-syntax", *limit, "--quiet", "--json", str(path)])
    if path := missing(card.EVAL_NOREADING):
        eval_cli.main([model, "--tasks", "single", "--no-reading", *limit, "--quiet", "--json", str(path)])
    if path := missing(card.EVAL_SPM):
        eval_cli.main([model, "--tasks", "single", "--stride", "5", "--layout", "spm", *limit, "--quiet",
                       "--json", str(path)])
    for cut, healing in card.CUT_RUNS:
        if path := missing(card.eval_cut_file(cut, healing)):
            eval_cli.main([model, "--tasks", "single", "--cut", cut, "--layout", editor_layout,
                           *([] if healing else ["--no-healing"]), *limit, "--quiet", "--json", str(path)])
    if path := missing(card.BENCH):
        bench_models.main([*ggufs, str(export_dir / "hf"), "--json", str(path)])


def write_card(work: Path, report_dir: Path, preset_name: str, dest: Path | None = None) -> Path:
    """Write `MODEL_CARD.md` next to the shipped model from the run's records."""
    from ghostbook.training.card import card_text
    from ghostbook.training.model import PRESETS

    dest = dest or default_model_dir()
    fim = json.loads((dest / "fim.json").read_text())
    text = card_text(work, report_dir, PRESETS[preset_name], fim, dest / fim["gguf"])
    out = dest / "MODEL_CARD.md"
    out.write_text(text)
    return out
