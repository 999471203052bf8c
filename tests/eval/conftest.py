"""Fixtures: a tiny end-to-end training run (corpus -> tokenizer -> a few steps -> export)."""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import pytest

STDLIB_FILES = ["textwrap.py", "string.py", "fnmatch.py", "colorsys.py", "bisect.py", "heapq.py",
                "shlex.py", "glob.py", "calendar.py", "difflib.py"]


def make_tiny_run(root: Path) -> Path:
    """Train the `tiny` preset for a few steps on a few stdlib files and export it; returns WORK."""
    from ghostbook.training.cli import main

    src = root / "src"
    src.mkdir()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in STDLIB_FILES:
        shutil.copy(stdlib / name, src / name)
    work = root / "work"
    assert main(["all", "--preset", "tiny", "--work", str(work), "--roots", str(src),
                 "--quant", "f32", "f16", "q8_0", "q4_0"]) == 0
    return work


@pytest.fixture(scope="session")
def tiny_work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_run(tmp_path_factory.mktemp("tiny"))
