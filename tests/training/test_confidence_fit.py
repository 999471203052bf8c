"""`ghostbook train confidence` fits the gate on the tasks as the user writes them (#40): the cells above
run in a real kernel and nothing below the cursor, through the editor's path and the shipped model."""

from __future__ import annotations

import pytest
from ghostbook.eval.notebook_tasks import NotebookTask
from ghostbook.training.confidence_fit import answer_tasks, fit

# the line at the cursor is written again in the cell below: the whole notebook copies it, a writer
# has no such line yet
CELLS = (
    "import math\nradii = [1.5, 2.5]",
    "areas_of_the_circles = \nprint(areas_of_the_circles)",  # the task's line cut at the cursor
    "areas_of_the_circles = [math.pi * r ** 2 for r in radii]\nprint(sum(areas_of_the_circles))",
)
TASK = NotebookTask("fit#0", "demo/fit.ipynb", "after =", CELLS, 1, len("areas_of_the_circles = "),
                    "[math.pi * r ** 2 for r in radii]")


@pytest.mark.timeout(240)
def test_writing_mode_answers_without_the_cells_below_and_records_what_the_gate_learns_from() -> None:
    whole = answer_tasks([TASK], mode="whole", progress=False)[0]
    writing = answer_tasks([TASK], mode="writing", progress=False)[0]
    assert whole.exact and whole.auto_exact  # a copy of the line below
    assert not writing.exact and writing.completion != TASK.expected  # nothing below to copy
    assert whole.features and writing.features
    assert whole.features["origin=copy"] == 1.0 and writing.features["origin=copy"] == 0.0


def test_the_fit_learns_a_weight_per_feature() -> None:
    results = answer_tasks([TASK], mode="whole", progress=False) + answer_tasks([TASK], mode="writing", progress=False)
    weights = fit(results)
    assert set(weights) == set(results[0].features or {}) | set(results[1].features or {})
