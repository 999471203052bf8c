"""`ghostbook train notebook-loss RUN [RUN...]`: how well checkpoints model held-out notebooks.

The mean next-token loss (nats per token) on the notebook benchmark's validation or test notebooks,
cells joined as the editor joins them, read left to right in windows of the model's training length.
It moves with the model alone; the editor's exact match moves with the model and the notebook rules
together, so a model can improve here and not there (the model card has both).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def notebook_loss(model: Any, token_ids: Sequence[Sequence[int]], window: int) -> tuple[float, int]:
    """(mean loss in nats, tokens scored) of `model` (a causal LM) on each id list, read in windows of
    `window` tokens that overlap by one (every token after a list's first is predicted once)."""
    import torch

    total, count = 0.0, 0
    with torch.no_grad():
        for ids in token_ids:
            for start in range(0, max(0, len(ids) - 1), window - 1):
                chunk = torch.tensor([list(ids[start : start + window])])
                if chunk.shape[1] < 2:
                    continue
                logits = model(input_ids=chunk[:, :-1]).logits[0]
                total += float(torch.nn.functional.cross_entropy(logits.float(), chunk[0, 1:], reduction="sum"))
                count += chunk.shape[1] - 1
    return (total / count if count else float("nan")), count


def main(argv: list[str]) -> int:
    from ghostbook.eval.notebook_data import load_notebooks, notebook_text, packaged_split
    from ghostbook.training.export import default_model_path
    from ghostbook.training.tokenizer import load_tokenizer
    from ghostbook.training.train import load_model

    ap = argparse.ArgumentParser(prog="ghostbook train notebook-loss", description=__doc__)
    ap.add_argument("runs", nargs="+", type=Path, help="run folders (each with a checkpoint.pt)")
    ap.add_argument("--split", choices=["validation", "test"], default="validation")
    ap.add_argument("--notebooks", type=Path, default=None, help="a notebooks-*.jsonl.gz instead of the split")
    ap.add_argument("--tokenizer", type=Path, default=None, help="default: the shipped model's")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    tok = load_tokenizer(args.tokenizer or default_model_path().parent / "tokenizer.json")
    notebooks = load_notebooks(args.notebooks or packaged_split(args.split))
    ids = [tok.encode(notebook_text(nb)).ids for nb in notebooks]
    for run in args.runs:
        model, state = load_model(run)
        loss, n = notebook_loss(model, ids, int(state["preset"]["seq_len"]))
        print(f"{run}: step {state['step']}, {len(notebooks)} notebooks, {n} tokens: loss {loss:.4f} nats/token")
    return 0
