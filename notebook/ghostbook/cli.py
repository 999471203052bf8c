"""Command line: `ghostbook [ROOT] [options]` serves notebooks; subcommands train, eval, bench and export."""

from __future__ import annotations

import importlib
import sys

# Subcommand name -> module whose `main(argv) -> int` runs it. Imported lazily so that serving
# never pays for torch or llama.cpp imports.
SUBCOMMANDS = {
    "train": "ghostbook.training.cli",
    "eval": "ghostbook.eval.cli",
    "bench": "ghostbook.bench",
    "export": "ghostbook.export.cli",
    "serve": "ghostbook.web.serve",
}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        module = importlib.import_module(SUBCOMMANDS[args[0]])
        return int(module.main(args[1:]) or 0)
    module = importlib.import_module(SUBCOMMANDS["serve"])
    return int(module.main(args) or 0)
