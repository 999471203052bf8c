"""The notebook's habits (`completion.habits`): below an assignment, the line its last assignments were
each followed by, with the new name; through the editor's path with the shipped model."""

from __future__ import annotations

from pathlib import Path

from ghostbook.completion.candidates import candidates
from ghostbook.completion.habits import habit_rest

from tests.completion.conftest import FakeCell
from tests.completion.test_candidates import forced_with_and_without_candidates

# numpy_ultraquick_tutorial's way (google/eng-edu, a notebook of the unseen-test split): each cell
# assigns a name and prints it
CELLS = ["import numpy as np", "one = np.array([1.2, 2.4, 3.5])\nprint(one)",
         "two = np.array([[6, 5], [11, 7]])\nprint(two) "]


def notebook(*cells: str) -> str:
    return "\n\n".join(cells) + "\n"


def test_below_an_assignment_the_line_the_last_assignments_were_followed_by() -> None:
    above = notebook(*CELLS, "sequence = np.arange(5, 12)")
    assert habit_rest("", above) == "print(sequence)"  # a trailing space (`print(two) `) is no other habit
    assert habit_rest("print(", above) == "sequence)"
    assert habit_rest("pri", above) == "nt(sequence)"
    assert habit_rest("x = ", above) is None  # the habit's line does not begin so
    assert habit_rest("    ", above) is None  # in a block the habit is not the top level's
    frames = notebook("df = load('a.csv')\ndf.head()", "sub = df.dropna()\nsub.head()", "top = sub[:3]")
    assert habit_rest("", frames) == "top.head()"
    assert candidates("", above, "")[0] == "print(sequence)"
    assert candidates("print(", above, "")[0] == "sequence)"


def test_no_habit_where_the_last_assignments_went_on_otherwise() -> None:
    mixed = notebook("a = 1\nprint(a)", "b = 2\nb.bit_length()", "c = 3")
    assert habit_rest("", mixed) is None
    assert habit_rest("", notebook("a = 1\nprint(a)", "c = 3")) is None  # one is no habit
    assert habit_rest("", notebook(*CELLS, "x = 1\ny = 2")) is None  # `x = 1` was followed by `y = 2`
    assert habit_rest("", notebook(*CELLS, "print(two)")) is None  # no assignment above the cursor
    assert habit_rest("", notebook(*CELLS, "sequence = np.arange(5, 12)") + "\n") is None  # a blank line between


async def test_ctrl_space_below_an_assignment_writes_the_notebooks_habit(tmp_path: Path) -> None:
    """The shipped model alone writes `print(two)` (the line it has read) or an import below `sequence =
    np.arange(5, 12)`; with the notebook's habit the suggestion is `print(sequence)`."""
    cells = [FakeCell(str(i), "code", text) for i, text in enumerate(CELLS)]
    cells.append(FakeCell("last", "code", "sequence = np.arange(5, 12)\n"))
    with_them, without = await forced_with_and_without_candidates(tmp_path, cells, search_ms=0)
    assert with_them == "print(sequence)" and without != "print(sequence)"
