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
