"""`ghostbook train [corpus|tokenizer|run|export] ...`; with no step, `--preset NAME` runs them all;
`ghostbook train finetune DIR...` fine-tunes on your notebooks (`training.finetune`)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from ghostbook.training.model import PRESETS, Preset

DEFAULT_WORK = Path("~/.cache/ghostbook/train").expanduser()


def _texts(corpus: Path, split: str) -> list[str]:
    from ghostbook.training.corpus import read_docs

    return [d.text for d in read_docs(corpus / f"{split}.jsonl")]


def step_corpus(work: Path, roots: list[Path] | None, force: bool = False, extend: bool = False,
                repeat: int = 1, packages: list[str] | None = None, preset: Preset | None = None,
                notebooks: list[Path] | None = None) -> None:
    """Build WORK/corpus (or reuse it); `extend` adds `roots` and PyPI `packages` to it. A preset with
    `extra_packages` extends a fresh corpus with them (how the shipped model's later stages were fed)."""
    from ghostbook.training.corpus import build_corpus, extend_corpus

    out = work / "corpus"
    if extend:
        folders = list(roots or [])
        if packages:
            from ghostbook.training.packages import fetch_packages

            folders += fetch_packages(packages, work / "packages")
        if not folders and not notebooks:
            raise SystemExit("--extend needs --roots, --packages or --notebooks")
        print(json.dumps(extend_corpus(out, folders, repeat, notebooks or []), indent=1))
        return
    if (out / "report.json").exists() and not force:
        print(f"corpus: reusing {out}")
    else:
        report = build_corpus(out, roots)
        print(json.dumps(report.to_json()["files"], indent=1))
    if preset and preset.extra_packages and not roots:
        if json.loads((out / "report.json").read_text()).get("extensions"):
            return
        step_corpus(work, None, extend=True, repeat=preset.extra_repeat, packages=list(preset.extra_packages))


def step_tokenizer(work: Path, vocab_size: int, max_chars: int = 40_000_000, force: bool = False) -> None:
    from ghostbook.training.tokenizer import train_tokenizer

    out = work / "tokenizer.json"
    if out.exists() and not force:
        print(f"tokenizer: reusing {out}")
        return
    from ghostbook.training.corpus import base_doc_count

    texts = _texts(work / "corpus", "train")[: base_doc_count(work / "corpus")]  # not what an extension added
    random.Random(0).shuffle(texts)
    total, sample = 0, []
    for t in texts:
        if total > max_chars:
            break
        sample.append(t)
        total += len(t)
    tok = train_tokenizer(sample, vocab_size)
    tok.save(str(out))
    n_tokens = sum(len(e.ids) for e in tok.encode_batch(sample[:200]))
    print(f"tokenizer: vocab {tok.get_vocab_size()}, {sum(len(t) for t in sample[:200]) / n_tokens:.2f} chars/token")


def step_run(work: Path, preset_name: str, threads: int, max_minutes: float | None, device: str,
             max_steps: int | None, compile_: bool, workers: int = 0, budget_minutes: float | None = None,
             ckpt_every: int = 50) -> dict:
    from dataclasses import replace

    from ghostbook.training.tokenizer import load_tokenizer
    from ghostbook.training.train import RunOptions, train

    preset = PRESETS[preset_name]
    if max_steps:
        preset = replace(preset, max_steps=max_steps, stages=())
    tok = load_tokenizer(work / "tokenizer.json")
    opts = RunOptions(out_dir=work / "run", threads=threads, device=device, max_minutes=max_minutes,
                      compile=compile_, autocast=device != "cpu" or _has_bf16(), workers=workers,
                      budget_minutes=budget_minutes, ckpt_every=ckpt_every)
    from ghostbook.training.corpus import base_doc_count
    from ghostbook.training.functions import load_or_build
    from ghostbook.training.train import checkpoint_step

    corpus = work / "corpus"
    wants_functions = preset.anneal_functions > 0 or preset.functions_share > 0
    train_texts, val_texts = _texts(corpus, "train"), _texts(corpus, "val")
    # Stages before `recipe_from` train on the corpus as built; later ones on it with its extensions.
    base = base_doc_count(corpus) if preset.recipe_from else None
    functions: dict[int | None, list[str]] = {}  # by `first`: read once, not once per stage
    state: dict = {}
    done = checkpoint_step(opts.out_dir)
    for end in [*preset.stages, preset.max_steps]:
        if done >= end:
            continue
        first = base if end <= preset.recipe_from else None
        if wants_functions and first not in functions:
            functions[first] = load_or_build(corpus, first)
        anneal = functions.get(first)
        state = train(replace(preset, max_steps=end), tok, train_texts[:first], val_texts, opts, anneal)
        done = state["step"]
        if done < end:  # stopped early (time limit, SIGTERM): resume later
            break
    print(json.dumps({k: v for k, v in state.items() if k not in ("config", "preset")}))
    return state


def _has_bf16() -> bool:
    try:
        return "avx512_bf16" in Path("/proc/cpuinfo").read_text() or "amx_bf16" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def step_export(work: Path, out: Path, quants: list[str]) -> None:
    from ghostbook.training.export import export_all

    for path in export_all(work / "run", work / "tokenizer.json", out, quants):
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["notebook-data"]:  # `ghostbook train notebook-data build ...` (training.notebooks)
        from ghostbook.training.notebooks import main as notebook_data

        return notebook_data(argv[1:])
    if argv[:1] == ["confidence"]:  # `ghostbook train confidence`: the automatic ghost text's confidence
        from ghostbook.training.confidence_fit import main as confidence

        return confidence(argv[1:])
    if argv[:1] == ["source-split"]:  # `ghostbook train source-split MORE`: benchmarks split by repository
        from ghostbook.training.source_split import main as source_split

        return source_split(argv[1:])
    if argv[:1] == ["finetune"]:  # `ghostbook train finetune DIR...`: on the user's own notebooks
        from ghostbook.training.finetune import main as finetune

        return finetune(argv[1:])
    if argv[:1] == ["import-table"]:  # `ghostbook train import-table CORPUS`: names -> modules
        from ghostbook.training.import_table import main as import_table

        return import_table(argv[1:])
    if argv[:1] == ["line-table"]:  # `ghostbook train line-table NOTEBOOKS...`: the lines notebooks write
        from ghostbook.training.line_table import main as line_table

        return line_table(argv[1:])
    if argv[:1] == ["call-table"]:  # `ghostbook train call-table NOTEBOOKS...`: calls rarely made empty
        from ghostbook.training.call_table import main as call_table

        return call_table(argv[1:])
    if argv[:1] == ["attribute-table"]:  # `ghostbook train attribute-table CORPUS`: modules -> attributes
        from ghostbook.training.attribute_table import main as attribute_table

        return attribute_table(argv[1:])
    if argv[:1] == ["notebook-loss"]:  # `ghostbook train notebook-loss RUN...`: loss on held-out notebooks
        from ghostbook.training.notebook_loss import main as notebook_loss

        return notebook_loss(argv[1:])
    if argv[:1] == ["continue"]:  # `ghostbook train continue ...`: from the shipped model toward v2
        from ghostbook.training.continued import main as continue_run

        return continue_run(argv[1:])
    ap = argparse.ArgumentParser(prog="ghostbook train", description=__doc__)
    ap.add_argument("step", nargs="?", default="all",
                    choices=["corpus", "tokenizer", "run", "export", "ship", "all", "pack-data", "pack-model",
                             "unpack-model"],
                    help="one step, or all of corpus..export (ship copies into the package); pack-data, "
                         "pack-model and unpack-model carry a run to a GPU machine and back (gpu_train.sh)")
    ap.add_argument("--preset", default="default", choices=sorted(PRESETS))
    ap.add_argument("--work", type=Path, default=DEFAULT_WORK, help="working folder (corpus, checkpoints)")
    ap.add_argument("--roots", type=Path, nargs="*",
                    help="source folders (default: stdlib + site-packages); an unpacked wheel or sdist is used "
                         "only if its metadata declares a permissive licence")
    ap.add_argument("--extend", action="store_true", help="corpus: add --roots and --packages to the existing corpus")
    ap.add_argument("--repeat", type=int, default=1, help="corpus --extend: add the new files this many times")
    ap.add_argument("--packages", nargs="*", help="corpus --extend: PyPI packages to download and add")
    ap.add_argument("--notebooks", nargs="*", type=Path,
                    help="corpus --extend: notebooks-*.jsonl.gz files (a notebook train split) to add")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--max-minutes", type=float, default=None, help="stop (resumably) after this long")
    ap.add_argument("--max-steps", type=int, default=None,
                    help="override the preset's schedule with one stage ending here (extends a run)")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model")
    ap.add_argument("--workers", type=int, default=0, help="processes drawing batches ahead (for a GPU)")
    ap.add_argument("--ckpt-every", type=int, default=50, help="steps between checkpoints")
    ap.add_argument("--budget-minutes", type=float, default=None,
                    help="fit the schedule, decay included, into this many minutes (timed after a few steps)")
    ap.add_argument("--from", dest="source", type=Path, default=None, help="folder of model parts (unpack-model)")
    ap.add_argument("--out", type=Path, default=None, help="export folder (default WORK/export)")
    ap.add_argument("--quant", nargs="*", default=["f16", "q8_0", "q4_0"])
    ap.add_argument("--force", action="store_true",
                    help="rebuild corpus/tokenizer even if present; `ship`: measure again")
    ap.add_argument("--ship-quant", default="q8_0", help="quantisation copied by `ship`")
    args = ap.parse_args(argv)
    work: Path = args.work.expanduser()
    work.mkdir(parents=True, exist_ok=True)
    out = args.out or work / "export"
    if args.step in ("corpus", "all"):
        step_corpus(work, args.roots, args.force, args.extend, args.repeat, args.packages, PRESETS[args.preset],
                    args.notebooks)
    if args.step in ("tokenizer", "all"):
        step_tokenizer(work, PRESETS[args.preset].vocab_size, force=args.force)
    if args.step in ("run", "all"):
        step_run(work, args.preset, args.threads, args.max_minutes, args.device, args.max_steps, args.compile,
                 args.workers, args.budget_minutes, args.ckpt_every)
    if args.step in ("export", "all"):
        step_export(work, out, args.quant)
    if args.step in ("pack-data", "pack-model", "unpack-model"):
        from ghostbook.training import pack

        if args.step == "unpack-model":
            if args.source is None:
                ap.error("unpack-model needs --from FOLDER")
            print(f"wrote {pack.unpack_model(args.source, work / 'run')}")
            return 0
        if args.out is None:
            ap.error(f"{args.step} needs --out FOLDER")
        made = pack.pack_data(work, args.out) if args.step == "pack-data" else pack.pack_model(work / "run", args.out)
        for path in made:
            print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    if args.step == "ship":
        from ghostbook.training.ship import evaluate_shipped, ship, write_card

        shipped = ship(out, args.ship_quant)
        print(f"shipped {shipped}")
        report = work / "report"
        layout = json.loads((shipped.parent / "fim.json").read_text())["template"]
        evaluate_shipped(out, report, work / "corpus" / "val.jsonl", force=args.force, editor_layout=layout)
        print(f"wrote {write_card(work, report, args.preset)}")
    return 0


if __name__ == "__main__":  # `python3 -m ghostbook.training.cli` where only the training dependencies are
    raise SystemExit(main())
