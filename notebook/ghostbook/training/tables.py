"""Writing the package's tables that `ghostbook train *-table` commands count from the corpus."""

from __future__ import annotations

import json
from pathlib import Path


def write_table(out: Path, table: object) -> None:
    """`table` as JSON at `out` (its folder made), keys sorted, one entry a line."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(table, indent=0, sort_keys=True) + "\n")
