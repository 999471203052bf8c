"""The edit prompt: the cell, the notebook around it within the token budget, the kernel's live state and
the traceback from a real kernel, selections, follow-ups; the draft answer and the target range."""

from __future__ import annotations

from importlib import resources

import pytest
from ghostbook.completion.context import CellText
from ghostbook.editing.errors_text import cut_middle
from ghostbook.editing.prompt import (
    SYSTEM_CELL,
    SYSTEM_NEW,
    SYSTEM_SELECTION,
    ChangeCause,
    EditContext,
    build_messages,
    cells_around,
    draft_answer,
    kernel_line,
    target_range,
)
from ghostbook.editing.render import SELECTION_END, SELECTION_START, render
from tokenizers import Tokenizer

from tests.editing.conftest import RealKernel

TOKENIZER = Tokenizer.from_file(str(resources.files("ghostbook.models") / "default" / "tokenizer.json"))


def count(text: str) -> int:
    """Tokens of the shipped model's own tokenizer."""
    return len(TOKENIZER.encode(text).ids)


NOTEBOOK = [
    CellText("markdown", "# Sales\nDaily sales of the shop."),
    CellText("code", "import pandas as pd\nimport matplotlib.pyplot as plt"),
    CellText("code", "df = pd.DataFrame({'price': [1.5, 2.0, 3.25], 'qty': [3, 1, 2]})"),
    CellText("code", "df['total'] = df.price * df.qty\ndf.total.sum()"),
    CellText("raw", "not shown"),
    CellText("code", "df.plot(x='price', y='total')"),
    CellText("code", "summary = df.describe()"),
]


def user(messages: list[dict[str, str]]) -> str:
    assert [m["role"] for m in messages] == ["system", "user"]
    return messages[1]["content"]


def test_the_draft_is_the_answer_the_system_message_asks_for() -> None:
    original = "x = 1\n\ny = 2"
    assert draft_answer(original) == "```python\nx = 1\n\ny = 2\n```"
    assert "```python code block" in SYSTEM_CELL and "```python code block" in SYSTEM_SELECTION
    assert "no elisions" in SYSTEM_CELL
    assert render(draft_answer(original), original, final=True).text == original


@pytest.mark.parametrize(("selection", "expected"), [
    (None, (0, 23)),
    ((3, 3), (0, 23)),  # a caret is no selection
    ((0, 23), (0, 23)),
    ((2, 4), (0, 5)),  # inside the first line: the whole line
    ((4, 9), (0, 11)),  # across two lines
    ((6, 12), (6, 11)),  # a selection ending at a line's start leaves that line out
    ((8, 6), (6, 11)),  # backwards
    ((20, 99), (18, 23)),  # past the end
    ((11, 12), (6, 11)),  # just the newline of the second line
])
def test_target_range_widens_to_whole_lines(selection: tuple[int, int] | None, expected: tuple[int, int]) -> None:
    source = "a = 1\nb = 2\nc = 3\nd = 4"
    assert len(source) == 23
    assert target_range(source, selection) == expected


def test_the_cell_and_the_instruction_come_last() -> None:
    ctx = EditContext(NOTEBOOK, 3, None, "  add a column with the tax  ")
    messages = build_messages(ctx, count, 2000)
    assert messages[0] == {"role": "system", "content": SYSTEM_CELL}
    text = user(messages)
    assert text.endswith("Instruction: add a column with the tax\n\n"
                         "Answer with the whole rewritten cell in one ```python block.")
    assert "The cell:\n```python\ndf['total'] = df.price * df.qty\ndf.total.sum()\n```" in text


def test_an_empty_cell_asks_for_a_new_cell_after_the_ones_above() -> None:
    """Generate (Ctrl+K in an empty cell): the model writes the cell, not a rewrite of nothing; the cells
    around it stay its context; a follow-up refines the proposal as for an edit."""
    cells = [*NOTEBOOK[:4], CellText("code", "  \n"), *NOTEBOOK[4:]]
    messages = build_messages(EditContext(cells, 4, None, " plot total by price "), count, 2000)
    assert messages[0] == {"role": "system", "content": SYSTEM_NEW}
    text = user(messages)
    assert "The cell:" not in text
    assert text.endswith("a new cell, placed after the cells above, that does this: plot total by price\n\n"
                         "Answer with the new cell's code in one ```python block.")
    assert text.index("cells above this cell") < text.index("df['total']") < text.index("cells below this cell")
    again = user(build_messages(EditContext(cells, 4, None, "as a bar chart", previous="df.plot(x='price')",
                                            history=["plot total by price"]), count, 2000))
    assert "Your previous proposal for the new cell:\n```python\ndf.plot(x='price')\n```" in again
    assert again.endswith("Change your proposal as follows: as a bar chart\n\n"
                          "Answer with the whole new cell in one ```python block.")


def test_the_notebook_around_the_cell_in_order() -> None:
    text = user(build_messages(EditContext(NOTEBOOK, 3, None, "use numpy"), count, 2000))
    above = text.index("cells above this cell")
    below = text.index("cells below this cell")
    cell = text.index("The cell:")
    assert above < below < cell
    assert text.index("# # Sales") < text.index("import pandas") < text.index("df = pd.DataFrame") < below
    assert below < text.index("df.plot(x=") < text.index("summary = df.describe()") < cell
    assert "not shown" not in text  # raw cells are left out


def test_a_small_budget_keeps_the_nearest_cells_and_always_the_cell() -> None:
    full = user(build_messages(EditContext(NOTEBOOK, 3, None, "use numpy"), count, 2000))
    fixed = user(build_messages(EditContext(NOTEBOOK, 3, None, "use numpy"), count, 0))
    assert "cells above" not in fixed and "The cell:" in fixed and full.endswith(fixed)
    nearest = NOTEBOOK[2].source + "\n\n"
    budget = count(SYSTEM_CELL) + count(fixed) + count(nearest) + 20
    small = user(build_messages(EditContext(NOTEBOOK, 3, None, "use numpy"), count, budget))
    assert "df = pd.DataFrame" in small and "import pandas" not in small and "# Sales" not in small


def test_cells_around_reuses_the_completions_fitting() -> None:
    above, below = cells_around(NOTEBOOK, 3, count, 2000)
    assert above == ("# # Sales\n# Daily sales of the shop.\n\nimport pandas as pd\nimport matplotlib.pyplot as plt"
                     "\n\ndf = pd.DataFrame({'price': [1.5, 2.0, 3.25], 'qty': [3, 1, 2]})")
    assert below == "df.plot(x='price', y='total')\n\nsummary = df.describe()"
    assert cells_around(NOTEBOOK[3:4], 0, count, 2000) == ("", "")


def test_the_kernels_live_state_and_the_traceback(kernel: RealKernel) -> None:
    kernel.reset()
    assert kernel.run("import numpy as np\nprices = np.array([1.5, 2.0, 3.25])\nrates = {'vat': 0.2}\n"
                      "def net(x, rate=0.2):\n    return x / (1 + rate)") is None
    error = kernel.run("gross = prices * rates['vta']")
    assert error is not None and "\x1b[" in "".join(error.traceback)
    ctx = EditContext(NOTEBOOK, 3, None, "fix this error", kernel.namespace(), error.text())
    text = user(build_messages(ctx, count, 2000))
    assert "- `prices`: ndarray, shape (3,), dtype float64" in text
    assert "- `rates`: dict, len 1, keys ['vat']" in text
    assert "- `def net(x, rate=0.2)`" in text
    assert text.index("Variables in the running kernel") < text.index("The cell:") < text.index("raised this error")
    assert "\x1b" not in text
    assert "KeyError: 'vta'" in text and "----> 1 gross = prices * rates['vta']" in text
    assert text.index("raised this error") < text.index("Instruction: fix this error")


def test_a_dataframe_as_the_kernel_reports_it(kernel: RealKernel) -> None:
    pytest.importorskip("pandas")  # not among the test dependencies
    kernel.reset()
    assert kernel.run("import pandas as pd\ndf = pd.DataFrame({'price': [1.5, 2.0], 'qty': [3, 1]})") is None
    text = user(build_messages(EditContext(NOTEBOOK, 3, None, "x", kernel.namespace()), count, 2000))
    assert "- `df`: DataFrame, shape (2, 2), columns [price: float64, qty: int64]" in text


def test_kernel_lines() -> None:
    assert kernel_line("df: DataFrame shape=(100, 2) columns=[price: float64, qty: int64]") == \
        "- `df`: DataFrame, shape (100, 2), columns [price: float64, qty: int64]"
    assert kernel_line("n: int = 3") == "- `n`: int = 3"
    assert kernel_line("s: str len=5 = 'hello'") == "- `s`: str, len 5 = 'hello'"
    assert kernel_line("class Model(x, y)") == "- `class Model(x, y)`"
    assert kernel_line("...") == "- (more names not shown)"


def test_the_kernel_state_gets_a_share_of_the_budget_in_whole_lines() -> None:
    lines = [f"value_{i}: float = {i}.5" for i in range(200)]
    text = user(build_messages(EditContext(NOTEBOOK, 3, None, "x", lines), count, 1000))
    shown = [line for line in text.split("\n") if line.startswith("- `value_")]
    assert 0 < len(shown) < 200 and shown[0] == "- `value_0`: float = 0.5"
    assert all(line.endswith(".5") for line in shown)


def test_a_long_traceback_keeps_its_head_and_tail() -> None:
    frames = [f'File "lib.py", line {i}, in level_{i}\n    call_{i}()' for i in range(400)]
    error = "Traceback (most recent call last):\n" + "\n".join(frames) + "\nValueError: the end"
    text = user(build_messages(EditContext(NOTEBOOK, 3, None, "fix", error=error), count, 100_000))
    shown = text[text.index("raised this error"): text.index("Instruction:")]
    assert "Traceback (most recent call last)" in shown and "ValueError: the end" in shown
    assert "lines left out" in shown and len(shown) < 3300
    assert cut_middle("short", 10) == "short"


FAILING = "print(f'{total_area:.2f}')"
NAME_ERROR = "NameError: name 'total_area' is not defined"


def test_a_fix_after_an_accepted_change_shows_the_cell_before_it_and_what_was_asked() -> None:
    before = "df['total'] = df.price * df.qty\nprint(df.total.sum())"
    notebook = [*NOTEBOOK[:3], CellText("code", FAILING)]
    cause = ChangeCause(before, "print the total\nwith two decimals")
    text = user(build_messages(EditContext(notebook, 3, None, "fix this error", error=NAME_ERROR, cause=cause),
                               count, 100_000))
    section = text[text.index("The user just changed this cell"):text.index("Instruction:")]
    assert "asking “print the total with two decimals”" in section  # one line, whatever its newlines
    assert f"Before that change the cell was:\n```python\n{before}\n```" in section
    assert text.index("raised this error") < text.index("The user just changed") < text.index("Instruction:")
    assert text.index(f"The cell:\n```python\n{FAILING}\n```") < text.index("raised this error")


def test_a_fix_of_a_cell_the_change_added_says_the_cell_is_new() -> None:
    notebook = [*NOTEBOOK[:3], CellText("code", FAILING)]
    ctx = EditContext(notebook, 3, None, "fix this error", error=NAME_ERROR, cause=ChangeCause("", "add a summary"))
    messages = build_messages(ctx, count, 100_000)
    assert messages[0]["content"] == SYSTEM_CELL  # a fix of the new cell, not Generate
    assert "The cell is new: the user asked “add a summary” and accepted this cell" in user(messages)


def test_a_long_text_before_the_change_keeps_its_head_and_tail_and_no_cause_says_nothing() -> None:
    before = "\n".join(f"step_{i} = {i}" for i in range(2000))
    notebook = [*NOTEBOOK[:3], CellText("code", FAILING)]
    ctx = EditContext(notebook, 3, None, "fix", error=NAME_ERROR, cause=ChangeCause(before, "shorten it"))
    section = user(build_messages(ctx, count, 100_000)).split("Before that change the cell was:")[1]
    assert "step_0 = 0" in section and "step_1999 = 1999" in section and len(section) < 3300
    plain = user(build_messages(EditContext(notebook, 3, None, "fix", error=NAME_ERROR), count, 100_000))
    assert "changed this cell" not in plain and "The cell is new" not in plain


def test_a_selection_is_marked_in_the_cell_and_given_as_the_lines_to_rewrite() -> None:
    cell = "for i in range(3):\n    x = i * 2\n    print(x)\nprint('done')"
    notebook = [*NOTEBOOK[:3], CellText("code", cell)]
    ctx = EditContext(notebook, 3, (cell.index("x ="), cell.index("print(x)") + 2), "use an f-string")
    messages = build_messages(ctx, count, 2000)
    assert messages[0]["content"] == SYSTEM_SELECTION
    text = user(messages)
    marked = f"for i in range(3):\n{SELECTION_START}\n    x = i * 2\n    print(x)\n{SELECTION_END}\nprint('done')"
    assert f"```python\n{marked}\n```" in text
    assert "(your answer replaces exactly these):\n```python\n    x = i * 2\n    print(x)\n```" in text
    assert text.endswith("Answer with the whole rewritten selection in one ```python block.")


def test_a_selection_of_the_whole_cell_is_the_cell() -> None:
    ctx = EditContext(NOTEBOOK, 3, (0, len(NOTEBOOK[3].source)), "x")
    assert build_messages(ctx, count, 2000)[0]["content"] == SYSTEM_CELL


def test_a_follow_up_refines_the_previous_proposal() -> None:
    previous = "df['total'] = df.price * df.qty\ndf.total.sum().round(2)"
    ctx = EditContext(NOTEBOOK, 3, None, "and print it", previous=previous, history=["round the sum"])
    text = user(build_messages(ctx, count, 2000))
    assert f"Your previous proposal for the cell:\n```python\n{previous}\n```" in text
    assert "It followed these instructions:\n- round the sum" in text
    assert text.index("The cell:") < text.index("previous proposal") < text.index("Change your proposal as follows: "
                                                                                  "and print it")
    assert "Instruction:" not in text
