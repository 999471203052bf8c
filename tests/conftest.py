"""Shared fixtures: a real Ghostbook server (its own process, as a user runs it) and a tiny model
trained end to end by the project's own pipeline (for the training and eval tests)."""

from __future__ import annotations

import os
import shutil
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

# Every message the server sends is validated against its protocol model (ghostbook/protocol/wire.py), in
# this process and in the servers it starts (they append what they find to one file): read at import.
os.environ["GHOSTBOOK_VALIDATE_OUTGOING"] = "1"
VIOLATIONS = Path(os.environ.setdefault("GHOSTBOOK_PROTOCOL_VIOLATIONS",
                                        str(Path(tempfile.mkdtemp(prefix="ghostbook-protocol-")) / "violations.log")))

import pytest  # noqa: E402
from ghostbook.bench import server as bench_server  # noqa: E402
from ghostbook.bench.server import RunningServer, stop_server  # noqa: E402
from ghostbook.protocol import wire  # noqa: E402

# Never the user's own completion statistics (~/.local/share/ghostbook): tests that want them name a file.
os.environ["GHOSTBOOK_TELEMETRY"] = "off"


@pytest.fixture(autouse=True)
def _server_messages_match_the_protocol() -> Iterator[None]:
    """A test during which the server sent a message its model does not allow fails (at teardown, with
    what was wrong): a malformed message is a bug even when the test did not look at it."""
    wire.violations.clear()
    seen = VIOLATIONS.stat().st_size if VIOLATIONS.exists() else 0
    yield
    found = list(wire.violations)
    if VIOLATIONS.exists():
        with VIOLATIONS.open(encoding="utf-8") as file:
            file.seek(seen)
            mine = f"{os.getpid()}: "  # this process's are in wire.violations already
            found += [line for line in file.read().splitlines() if line and not line.startswith(mine)]
    wire.violations.clear()
    if found:
        pytest.fail("server messages that do not match ghostbook.protocol:\n" + "\n".join(found))


def start_server(root: Path, token: str = "test-token", extra: tuple[str, ...] = ()) -> RunningServer:
    """A real server on a free port, as `ghostbook bench` starts one (one launcher for both)."""
    return bench_server.start_server(root, token, extra)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("srv")
    root = base / "notebooks"
    root.mkdir()
    (base / "notebooks-secret").mkdir()
    (base / "notebooks-secret" / "secret.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, '
                                                           '"nbformat_minor": 5}')
    running = start_server(root)
    yield running
    stop_server(running)


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


@pytest.fixture(scope="session")
def shipped_hf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped GGUF's weights (dequantised) as a transformers folder (as bench/gpu_check.sh makes it)."""
    from ghostbook.models.catalog import default_model_path
    from ghostbook.training.continued import gguf_to_state, v2_preset
    from ghostbook.training.export import export_hf
    from ghostbook.training.model import build_model, llama_config
    from ghostbook.training.tokenizer import special_ids
    from tokenizers import Tokenizer

    gguf = default_model_path()
    assert gguf is not None
    tok_path = gguf.parent / "tokenizer.json"
    special = special_ids(Tokenizer.from_file(str(tok_path)))
    preset = v2_preset(1)
    model = build_model(llama_config(preset.shape, special))
    model.load_state_dict(gguf_to_state(gguf, preset, special))
    return export_hf(model, tok_path, tmp_path_factory.mktemp("shipped") / "hf")


@pytest.fixture(scope="session")
def smollm2() -> Path:
    """The real chat model's GGUF (`tests.chat_model`); the test is skipped, saying why, without it."""
    from tests.chat_model import MISSING, smollm2_path

    path = smollm2_path()
    if path is None:
        pytest.skip(MISSING)
    return path
