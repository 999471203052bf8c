"""Notebooks with a house style, for the fine-tuning tests: every notebook imports pandas and numpy under
house aliases and reports numbers through one helper, `report_metric(name, value, unit="ms")`."""

from __future__ import annotations

import json
import random
from pathlib import Path

SERVICES = ["checkout", "search", "login", "billing", "upload", "catalog", "profile", "cart", "inbox", "reports",
            "payments", "shipping", "reviews", "ratings", "orders", "stock", "alerts", "feeds", "tokens", "export",
            "import", "audit", "backup", "queue", "mailer", "render", "resize", "thumbs", "ledger", "invoice"]
COLUMNS = ["latency", "duration", "wait", "elapsed", "response"]


def house_cells(service: str, rng: random.Random) -> list[str]:
    col = rng.choice(COLUMNS)
    other = rng.choice([c for c in COLUMNS if c != col])
    cells = [
        "import numpy as npx\nimport pandas as pdx\nfrom house.metrics import report_metric",
        f'df = pdx.read_csv("data/{service}.csv")\ndf.head()',
        f'mean_{col} = df["{col}"].mean()\nreport_metric("{service}_{col}_mean", mean_{col}, unit="ms")',
        f'p95_{col} = npx.percentile(df["{col}"], 95)\nreport_metric("{service}_{col}_p95", p95_{col}, unit="ms")',
        f'max_{other} = df["{other}"].max()\nreport_metric("{service}_{other}_max", max_{other}, unit="ms")',
        f'errors = (df["status"] >= 500).sum()\nreport_metric("{service}_errors", errors, unit="count")',
    ]
    rng.shuffle(cells[2:])
    return cells


def notebook_json(cells: list[str]) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
                                  "outputs": [], "source": src} for i, src in enumerate(cells)],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def write_house_notebooks(folder: Path, count: int = 30, seed: int = 0) -> list[Path]:
    """`count` house-style notebooks under `folder` (in two subfolders: the search is recursive)."""
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        service = SERVICES[i % len(SERVICES)]
        path = folder / ("team-a" if i % 2 else "team-b") / f"{service}-{i}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(notebook_json(house_cells(service, rng)))
        paths.append(path)
    return paths
