"""Notebooks from PyPI sdists and folders for the notebook benchmark and the corpus
(`ghostbook train notebook-data build`): download, licence filter, read, dedupe, split, store.

Reading, splitting and storing live in `ghostbook.eval.notebook_data` (the benchmark reads the
stored splits); this module adds what needs the training side: pip downloads and licences.
"""

from __future__ import annotations

import argparse
import email
import json
import re
import shutil
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from ghostbook.eval.notebook_data import (
    SPLITS,
    Notebook,
    dedupe,
    load_notebooks,
    notebook_text,
    packaged_split,
    read_notebooks,
    split_of,
    write_notebooks,
)
from ghostbook.training.packages import fetch_packages
from ghostbook.training.sources import is_permissive, metadata_licence

_LICENCE_FILES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "COPYING", "LICENSE.rst",
                  "LICENSE-CODE")  # LICENSE-CODE: a book whose code and text are licensed apart
_LICENCE_WORDS = (("MIT", re.compile(r"MIT License|Permission is hereby granted, free of charge")),
                  ("Apache-2.0", re.compile(r"Apache License")),
                  ("BSD-3-Clause", re.compile(r"Redistribution and use in source and binary forms")),
                  ("ISC", re.compile(r"ISC License")))


@dataclass(frozen=True)
class SourceInfo:
    """One row of the source list: where notebooks came from and under which licence."""

    name: str
    version: str
    licence: str
    origin: str
    files: int


def folder_licence(root: Path) -> tuple[str, str, str]:
    """(name, version, licence) of a source folder: from an sdist's PKG-INFO, else its LICENSE file."""
    for meta_file in [*sorted(root.glob("PKG-INFO")), *sorted(root.glob("*/PKG-INFO"))]:
        meta = email.message_from_bytes(meta_file.read_bytes())
        return meta.get("Name") or root.name, meta.get("Version") or "", metadata_licence(meta) or "unknown"
    for name in _LICENCE_FILES:
        path = root / name
        if path.is_file():
            text = path.read_text(errors="replace")[:4000]
            for licence, pattern in _LICENCE_WORDS:
                if pattern.search(text):
                    return root.name, "", licence
    return root.name, "", "unknown"


def build(out_dir: Path, roots: Iterable[Path] = (), packages: Iterable[str] = (),
          pip_args: Iterable[str] = (), origins: dict[str, str] | None = None,
          training_only: bool = False) -> dict[str, object]:
    """Read the notebooks of `roots` and of the PyPI `packages` (sdists downloaded by pip, unpacked
    under `out_dir/packages`); keep permissively licensed sources only; dedupe; split; write
    `notebooks-{split}.jsonl.gz` and `sources.json` under `out_dir`. Returns the summary.
    `training_only`: no split, all of them in `notebooks-extra.jsonl.gz` (notebooks for the corpus
    alone, beside the benchmark's sources)."""
    folders = [(Path(r), (origins or {}).get(Path(r).name, "folder")) for r in roots]
    specs = list(packages)
    if specs:
        fetched = fetch_packages(specs, out_dir / "packages", [*pip_args, "--no-binary", ":all:"])
        folders += [(f, "pypi sdist") for f in fetched]
    sources: list[SourceInfo] = []
    skipped: list[dict[str, str]] = []
    notebooks: list[Notebook] = []
    for root, origin in folders:
        name, version, licence = folder_licence(root)
        if not is_permissive(licence):
            skipped.append({"name": name, "licence": licence})
            continue
        found = list(read_notebooks(root, name, licence))
        notebooks += found
        sources.append(SourceInfo(name, version, licence, origin, len(found)))
    kept = dedupe(notebooks)
    if training_only:
        counts = {"extra": write_notebooks(out_dir / "notebooks-extra.jsonl.gz", kept)}
    else:
        counts = {split: write_notebooks(out_dir / f"notebooks-{split}.jsonl.gz",
                                         [nb for nb in kept if split_of(nb.id) == split]) for split in SPLITS}
    summary: dict[str, object] = {"sources": [asdict(s) for s in sources], "skipped": skipped,
                                  "notebooks": len(notebooks), "duplicates": len(notebooks) - len(kept),
                                  "splits": counts}
    (out_dir / "sources.json").write_text(json.dumps(summary, indent=1))
    return summary


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ghostbook train notebook-data", description=__doc__)
    ap.add_argument("step", choices=["build"])
    ap.add_argument("--out", type=Path, required=True, help="output folder")
    ap.add_argument("--packages", nargs="*", default=[], help="PyPI sdists, e.g. seaborn==0.13.2")
    ap.add_argument("--roots", nargs="*", type=Path, default=[],
                    help="folders (unpacked sdists, repository snapshots with a LICENSE file)")
    ap.add_argument("--pip-arg", action="append", default=[], help="passed to pip download (e.g. --no-index)")
    ap.add_argument("--install", action="store_true",
                    help="copy the validation and test splits into the package (the stored benchmark)")
    ap.add_argument("--training-only", action="store_true",
                    help="no split: every notebook in notebooks-extra.jsonl.gz, for the corpus alone "
                         "(ghostbook train continue --extra-notebooks)")
    args = ap.parse_args(argv)
    if args.install and args.training_only:
        ap.error("--install stores a benchmark split; --training-only makes none")
    summary = build(args.out, args.roots, args.packages, args.pip_arg, training_only=args.training_only)
    print(json.dumps(summary, indent=1))
    if args.install:
        for split in ("validation", "test"):
            target = packaged_split(split)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(args.out / f"notebooks-{split}.jsonl.gz", target)
            print(f"installed {target}")
    return 0


def heldout_notebook_texts() -> list[str]:
    """The notebook benchmark's validation and test notebooks as text (what training must not see)."""
    return [notebook_text(nb) for split in ("validation", "test") for nb in load_notebooks(packaged_split(split))]
