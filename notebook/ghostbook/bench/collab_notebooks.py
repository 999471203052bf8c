"""The notebooks `ghostbook bench collab` opens: one 1 MB code cell, many short cells, a cell to type in."""

from __future__ import annotations

import json
from pathlib import Path

TYPING_LINE = "# typing: "  # the cell the keystroke runs type into (after it, on the same line)

_CODE = [
    "import numpy as np\nimport pandas as pd",
    "df = pd.read_csv(\"data/part_{i}.csv\")\ndf.head()",
    "df[\"total_{i}\"] = df[\"price\"] * df[\"qty\"]\ndf.describe()",
    "def clean_{i}(frame):\n    frame = frame.dropna()\n    return frame[frame[\"qty\"] > {i}]",
    "for col in df.columns:\n    print(col, df[col].dtype)",
    "summary_{i} = df.groupby(\"region\").agg({{\"total\": \"sum\", \"qty\": \"mean\"}})\nsummary_{i}",
    "x_{i} = np.linspace(0, {i}, 100)\ny_{i} = np.sin(x_{i}) ** 2",
    "result = [n * {i} for n in range(10) if n % 2]\nresult",
]
_MARKDOWN = "## Step {i}\n\nLoad part {i} of the data, clean it and *summarise* it by region."


def _cell(i: int, cell_type: str, source: str, output: str | None = None) -> dict[str, object]:
    cell: dict[str, object] = {"cell_type": cell_type, "id": f"cell-{i}", "metadata": {}, "source": source}
    if cell_type == "code":
        outputs = [] if output is None else [
            {"output_type": "stream", "name": "stdout", "text": output}]
        cell.update(outputs=outputs, execution_count=None)
    return cell


def write(path: Path, cells: list[dict[str, object]]) -> None:
    """An nbformat 4.5 notebook of `cells` for the python3 kernel."""
    notebook = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}
    path.write_text(json.dumps(notebook, indent=1))


def many_cells(count: int) -> list[dict[str, object]]:
    """`count` cells as a notebook has them: short code cells (a third with a line of output), every fifth
    markdown; the last is always code."""
    cells = []
    for i in range(count):
        if i % 5 == 4 and i != count - 1:
            cells.append(_cell(i, "markdown", _MARKDOWN.format(i=i)))
        else:
            output = f"part {i}: {i * 37 % 1000} rows\n" if i % 3 == 0 else None
            cells.append(_cell(i, "code", _CODE[i % len(_CODE)].format(i=i), output))
    return cells


def big_cell(size: int) -> list[dict[str, object]]:
    """One code cell of at least `size` characters of generated assignments."""
    lines, total, i = [], 0, 0
    while total < size:
        line = f"value_{i} = compute({i}, factor={i % 7}, label=\"row {i}\")  # step {i}"
        lines.append(line)
        total += len(line) + 1
        i += 1
    return [_cell(0, "code", "\n".join(lines))]


def typing_cell() -> list[dict[str, object]]:
    """The single cell the keystroke and concurrent runs type into."""
    return [_cell(0, "code", TYPING_LINE)]


def head(cells: list[dict[str, object]], lines: int = 10) -> str:
    """The first `lines` lines of the last cell: what its editor must show for the notebook to count as open."""
    return "\n".join(str(cells[-1]["source"]).split("\n")[:lines])
