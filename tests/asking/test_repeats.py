"""An answer that says a paragraph again ends before the repeat (SmolLM2's greedy loop)."""

from __future__ import annotations

from ghostbook.asking.repeats import loop_start

PARAGRAPH = "The notebook loads the sales into a DataFrame called sales, one row per city."


def test_a_repeated_paragraph_is_where_the_answer_ends() -> None:
    answer = f"{PARAGRAPH}\n\nIt then sums the amounts.\n\n{PARAGRAPH}\n\n"
    cut = loop_start(answer)
    assert cut is not None and answer[:cut].rstrip() == f"{PARAGRAPH}\n\nIt then sums the amounts."
    assert loop_start(f"{PARAGRAPH}\n\n  {PARAGRAPH}  \n\nThe") == len(PARAGRAPH) + 2  # whole once a blank line ends it


def test_no_repeat_no_cut() -> None:
    assert loop_start(f"{PARAGRAPH}\n\n{PARAGRAPH}") is None  # the second is not whole yet
    assert loop_start(f"{PARAGRAPH}\n\nSomething else that is long enough to count here.\n\n") is None
    assert loop_start("```python\nx = 1\n```\n\nAnd:\n\n```python\nx = 1\n```\n\n") is None  # short ones may repeat
    assert loop_start("") is None


def test_a_line_said_again_and_again_is_where_the_answer_ends() -> None:
    """SmolLM2, asked to rename a variable, wrote a cell's `# cell <id>` line until its token limit."""
    head = "The notebook's cells:\n```python\n# cell 742d3af0\nimport numpy as np\n\n"
    answer = head + "# 742d3af0\n" * 7
    cut = loop_start(answer)
    assert cut is not None and answer[:cut] == head + "# 742d3af0\n"
    assert loop_start(head + "# 742d3af0\n" * 5) is None
    assert loop_start("x = 1\n" * 5 + "y = 2\n") is None
    assert loop_start("\n" * 8) is None  # blank lines are not a loop
