"""Reading an answer's changes to the notebook (`asking.plan`): the asked-for markers, the ways models dress
them up, and answers that ignore the format (their blocks are no changes: the panel offers them as cells)."""

from __future__ import annotations

from ghostbook.asking.plan import PlannedChange, drop_unchanged, parse_plan

IDS = ["a1b2c3", "d4e5f6", "g7h8i9"]


def test_well_formed_plan_modifies_inserts_and_deletes() -> None:
    answer = ("Two changes and a clean-up.\n\n"
              "Cell a1b2c3:\n```python\nimport numpy as np\n```\n\n"
              "New cell after d4e5f6:\n```python\nprint(total)\n```\n\n"
              "Delete cell g7h8i9\n")
    plan = parse_plan(answer, IDS)
    assert plan.changes == [PlannedChange("modify", "a1b2c3", "import numpy as np"),
                            PlannedChange("insert", "d4e5f6", "print(total)"),
                            PlannedChange("delete", "g7h8i9")]
    assert plan.notes == []


def test_dressed_up_markers_are_read() -> None:
    answer = ("### Cell `a1b2c3`\n\n```python\nx = 1\n```\n"
              "**Replace cell D4E5F6:**\n```py\ny = 2\n```\n"
              "1. Insert a new cell before `a1b2c3`:\n```python\nimport os\n```\n"
              "- Remove the cell **g7h8i9**.\n")
    plan = parse_plan(answer, IDS)
    assert plan.changes == [PlannedChange("modify", "a1b2c3", "x = 1"),
                            PlannedChange("modify", "d4e5f6", "y = 2"),
                            PlannedChange("insert", None, "import os"),
                            PlannedChange("delete", "g7h8i9")]


def test_the_prompts_own_marker_inside_the_block_names_the_cell() -> None:
    plan = parse_plan("Here:\n```python\n# cell d4e5f6\ny = 3\n```\n", IDS)
    assert plan.changes == [PlannedChange("modify", "d4e5f6", "y = 3")]


def test_one_block_of_several_cells_is_split_at_their_lines_and_cells_copied_back_are_no_change() -> None:
    """What SmolLM2 wrote in the browser for "rename the variable data to heart in every cell": the prompt's
    cells copied back in one block, under their `# cell` lines (here with one really changed)."""
    answer = ("The notebook's cells:\n```python\n# cell a1b2c3\ndata = load()\n\n# cell d4e5f6\nheart.tail()\n\n"
              "# cell g7h8i9\nsurvival = data.survival\n```\n")
    plan = parse_plan(answer, IDS)
    assert plan.changes == [PlannedChange("modify", "a1b2c3", "data = load()"),
                            PlannedChange("modify", "d4e5f6", "heart.tail()"),
                            PlannedChange("modify", "g7h8i9", "survival = data.survival")]
    sources = {"a1b2c3": "data = load()\n", "d4e5f6": "data.tail()", "g7h8i9": "survival = data.survival"}
    assert drop_unchanged(plan, sources).changes == [PlannedChange("modify", "d4e5f6", "heart.tail()")]


def test_a_marked_block_that_repeats_its_marker_and_goes_on_to_another_cell() -> None:
    answer = "Cell a1b2c3:\n```python\n# cell a1b2c3\nx = 1\n# cell g7h8i9\nz = 3\n```\n"
    assert parse_plan(answer, IDS).changes == [PlannedChange("modify", "a1b2c3", "x = 1"),
                                               PlannedChange("modify", "g7h8i9", "z = 3")]


def test_a_cell_named_by_its_number_and_a_new_cell_at_the_top() -> None:
    answer = "Cell 2:\n```python\ny = 4\n```\nNew cell at the top:\n```python\nimport sys\n```\n"
    assert parse_plan(answer, IDS).changes == [PlannedChange("modify", "d4e5f6", "y = 4"),
                                               PlannedChange("insert", None, "import sys")]


def test_missing_ids_leave_plain_blocks_that_are_no_changes() -> None:
    plan = parse_plan("Try this:\n\n```python\nprint(1)\n```\n\nand\n\n```python\nprint(2)\n```\n", IDS)
    assert plan.changes == [] and plan.notes == []


def test_unknown_ids_are_noted_and_change_nothing() -> None:
    answer = "Cell zz9999:\n```python\nx = 1\n```\nDelete cell qq0000\nCell 7:\n```python\ny = 1\n```\n"
    plan = parse_plan(answer, IDS)
    assert plan.changes == []
    assert len(plan.notes) == 3 and "zz9999" in plan.notes[0] and "qq0000" in plan.notes[1]


def test_a_marker_without_a_block_and_a_cell_changed_twice_are_noted() -> None:
    answer = ("Cell a1b2c3:\n\nCell d4e5f6:\n```python\ny = 1\n```\n"
              "Cell d4e5f6:\n```python\ny = 2\n```\nDelete cell d4e5f6\n")
    plan = parse_plan(answer, IDS)
    assert plan.changes == [PlannedChange("modify", "d4e5f6", "y = 1")]
    assert len(plan.notes) == 3


def test_prose_that_mentions_cells_is_no_marker() -> None:
    answer = ("The cell a1b2c3 loads the data and the next cell plots it, so nothing needs to change here.\n"
              "```python\nplot()\n```\n")
    assert parse_plan(answer, IDS).changes == []


def test_an_unclosed_block_still_counts() -> None:
    assert parse_plan("Cell g7h8i9:\n```python\nz = 1\n", IDS).changes == [PlannedChange("modify", "g7h8i9", "z = 1")]
