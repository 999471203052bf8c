"""What `ghostbook train finetune` shares between its full and LoRA paths: options, errors, and the
user's notebooks (read from folders, split into training and held-out ones by a hash of the path)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ghostbook.eval.notebook_data import MAX_CELL_CHARS, Notebook, cells_from_ipynb, dedupe, notebook_text

HELDOUT_SHARE = 0.1
MIN_TRAIN_CELLS = 10
REPORT = "finetune.json"  # what marks a folder of the models folder as a fine-tuned model
GGUF_STEM = "finetuned"


class FinetuneError(Exception):
    """Bad input or a model that cannot be fine-tuned; the message is meant for the user."""


@dataclass(frozen=True)
class Options:
    """How to fine-tune (the command line's flags)."""

    steps: int | None = None  # None: ten passes over the training tokens, 100 to 400 steps
    lr: float | None = None  # None: 3e-4 (full), 1e-3 (LoRA)
    max_minutes: float | None = None
    batch_size: int = 8
    lora_rank: int = 8
    threads: int = field(default_factory=lambda: default_threads())
    patience: int = 2  # validations in a row without a lower held-out loss before stopping
    per_notebook: int = 6  # held-out tasks cut from each held-out notebook
    progress: bool = True
    heldout_loss: Callable[[Any, int], float] | None = None  # no flag: the held-out loss of (model, step) at a
    # validation instead of the mean loss on the held-out sequences, for a caller that needs a loss curve
    # of its own (a test of early stopping, which no learning rate drives the same way on every machine)


def default_threads() -> int:
    """Half the cores, at most 4: small models train no faster on more, and the machine stays usable."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


@contextlib.contextmanager
def quiet_llama() -> Iterator[None]:
    """llama.cpp's info lines (a quantisation's per-tensor log) off; its errors still show."""
    logger = logging.getLogger("llama-cpp-python")  # llama_cpp._logger's callback reads its level
    old = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(old)


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


# ---- the user's notebooks ---------------------------------------------------------------------------


def read_user_notebooks(folders: list[Path]) -> list[Notebook]:
    """The code cells of every .ipynb under `folders` (a notebook file may be named directly); malformed
    files are skipped with a warning; copies (same code cells) count once."""
    paths: list[Path] = []
    for folder in folders:
        folder = folder.expanduser()
        if folder.is_file() and folder.suffix == ".ipynb":
            paths.append(folder)
        elif folder.is_dir():
            paths += [p for p in sorted(folder.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]
        else:
            raise FinetuneError(f"{folder}: no such folder (or .ipynb file)")
    found = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            warn(f"skipping {path}: not a readable notebook ({exc})")
            continue
        if not isinstance(data, dict) or not isinstance(data.get("cells", data.get("worksheets")), list):
            warn(f"skipping {path}: not a notebook (no cells)")
            continue
        cells = [c for c in cells_from_ipynb(text) if len(c) <= MAX_CELL_CHARS]
        if cells:
            found.append(Notebook(str(path.resolve()), "user", "", cells))
    if not found:
        where = ", ".join(str(f) for f in folders)
        raise FinetuneError(f"no notebooks with code cells found under {where}")
    return dedupe(found)


def split_heldout(notebooks: list[Notebook], share: float = HELDOUT_SHARE) -> tuple[list[Notebook], list[Notebook]]:
    """(train, held out): `share` of the notebooks, at least one, chosen by a hash of the path below the
    folder they share (the same split wherever that folder is)."""
    if len(notebooks) < 2:
        raise FinetuneError(f"found {len(notebooks)} notebook with code cells; fine-tuning needs at least 2 "
                            "(one is held out to measure the result)")
    common = os.path.commonpath([nb.id for nb in notebooks])
    ranked = sorted(notebooks, key=lambda nb: hashlib.sha1(os.path.relpath(nb.id, common).encode()).hexdigest())
    n = max(1, round(share * len(notebooks)))
    held = {nb.id for nb in ranked[:n]}
    return [nb for nb in notebooks if nb.id not in held], [nb for nb in notebooks if nb.id in held]


def texts(notebooks: list[Notebook]) -> list[str]:
    return [notebook_text(nb) for nb in notebooks]


def default_steps(n_tokens: int, tokens_per_step: int) -> int:
    """Ten passes over the user's tokens (FIM cuts differ each pass), at least 100 and at most 400 steps."""
    return int(min(400, max(100, math.ceil(10 * n_tokens / tokens_per_step))))
