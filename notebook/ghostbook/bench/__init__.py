"""`ghostbook bench NAME [args]`: benchmark scripts, each a module with `main(argv) -> int`."""

from __future__ import annotations

import importlib
import sys

# Benchmark name -> module path; imported lazily so one benchmark's heavy imports never slow another.
BENCHES: dict[str, str] = {
    "models": "ghostbook.bench.models",
    "completion": "ghostbook.bench.completion",
    "kernel": "ghostbook.bench.kernel",  # the kernel adapter against a bare jupyter_client call
    "roundtrip": "ghostbook.bench.roundtrip",  # 1+1 over the websocket against a bare jupyter_client call
    "speculative": "ghostbook.bench.speculative",  # greedy with and without speculative drafts
    "edits": "ghostbook.bench.edits",  # rewriting a cell: plain greedy against speculative edits
    "collab": "ghostbook.bench.collab",  # keystrokes between two tabs, opening big notebooks, in Chromium
}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in BENCHES:
        print(f"usage: ghostbook bench {{{','.join(sorted(BENCHES))}}} [args]", file=sys.stderr)
        return 2
    module = importlib.import_module(BENCHES[args[0]])
    return int(module.main(args[1:]) or 0)
