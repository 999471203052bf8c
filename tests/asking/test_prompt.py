"""The Ask prompt: the notebook's cells within the budget, the kernel's names (a real kernel's summary
lines: types, shapes, DataFrame columns), the selected cells and their errors (a real traceback, its ANSI
colours stripped), and the earlier turns within the budget, the oldest dropped first."""

from __future__ import annotations

from ghostbook.asking.prompt import SYSTEM, AskContext, build_messages, earlier_turns
from ghostbook.completion.context import CellText

from tests.editing.conftest import RealKernel, kernel  # noqa: F401  (the session's real ipykernel)

LOAD = "import pandas as pd\nsales = pd.DataFrame({'city': ['Oslo', 'Lima', 'Pune'], 'amount': [3, 4, 5]})"
BROKEN = "total = sales['amount'].sum()\nprint(totl)"
AFTER = "print('the end')"


def words(text: str) -> int:
    return len(text.split())


def test_the_question_sees_the_cells_the_kernel_and_the_selected_cells_error(kernel: RealKernel) -> None:  # noqa: F811
    kernel.reset()
    assert kernel.run(LOAD) is None
    error = kernel.run(BROKEN)
    assert error is not None and "\x1b[" in "".join(error.traceback)  # IPython colours it
    cells = [CellText("markdown", "# Sales"), CellText("code", LOAD), CellText("code", BROKEN), CellText("code", AFTER)]
    ctx = AskContext(cells, "why does this fail?", selected=[2], errors={2: error.text()},
                     namespace_lines=kernel.namespace())
    messages = build_messages(ctx, words, 2000)
    assert [m["role"] for m in messages] == ["system", "user"] and messages[0]["content"] == SYSTEM
    user = messages[1]["content"]
    assert "The notebook's cells above the selected cell:" in user and "pd.DataFrame({'city'" in user
    assert "# # Sales" in user  # a markdown cell as a comment, as the completion shows it
    assert "The notebook's cells below the selected cell:" in user and AFTER in user
    assert "- `sales`: DataFrame, shape (3, 2), columns [city: str, amount: int64]" in user
    assert f"The selected cell (3 of 4):\n```python\n{BROKEN}\n```" in user
    assert "Running it raised this error:" in user and "NameError: name 'totl' is not defined" in user
    assert "\x1b" not in user
    assert user.endswith("Question: why does this fail?")
    assert user.index("Variables in the running kernel") < user.index("The selected cell") < user.index("Question:")


def test_without_a_selection_the_whole_notebook_is_shown() -> None:
    cells = [CellText("code", f"x{i} = {i}") for i in range(4)]
    user = build_messages(AskContext(cells, "what does this notebook do?"), words, 1000)[-1]["content"]
    assert user.startswith("The notebook's cells:\n```python\nx0 = 0\n\nx1 = 1\n\nx2 = 2\n\nx3 = 3\n```")
    assert "selected" not in user


def test_the_budget_keeps_the_cells_nearest_the_selection_and_always_the_question() -> None:
    cells = [CellText("code", f"far_{i} = " + " + ".join(["1"] * 30)) for i in range(20)]
    cells[10] = CellText("code", "chosen = 1")
    budget = 190 + words(SYSTEM)  # the question, the selected cell and a few cells around it
    messages = build_messages(AskContext(cells, "explain", selected=[10]), words, budget)
    user = messages[-1]["content"]
    assert "chosen = 1" in user and user.endswith("Question: explain")
    assert "far_9 =" in user and "far_11 =" in user  # the neighbours
    assert "far_0 =" not in user and "far_19 =" not in user  # too far for the budget
    assert sum(words(m["content"]) for m in messages) <= budget + 10


def test_earlier_turns_go_in_oldest_dropped_first() -> None:
    history = [(f"question {i}?", f"answer {i} " + "word " * 40) for i in range(6)]
    cells = [CellText("code", "x = 1")]
    messages = build_messages(AskContext(cells, "and now?", history=history), words, 400)
    assert [m["role"] for m in messages[1:-1]] == ["user", "assistant"] * (len(messages[1:-1]) // 2)
    asked = [m["content"] for m in messages if m["role"] == "user"][:-1]
    assert asked and asked[-1] == "question 5?"  # the newest turn first to stay
    assert "question 0?" not in asked  # the oldest gave way
    kept = [int(q.split()[1][:-1]) for q in asked]
    assert kept == list(range(6 - len(kept), 6))  # oldest first, with no gaps
    assert messages[-1]["content"].endswith("Question: and now?") and "x = 1" in messages[-1]["content"]


def test_earlier_turns_keep_whole_turns_within_their_budget() -> None:
    history = [("a?", "one two"), ("b?", "three four five")]
    assert earlier_turns(history, words, 100) == [
        {"role": "user", "content": "a?"}, {"role": "assistant", "content": "one two"},
        {"role": "user", "content": "b?"}, {"role": "assistant", "content": "three four five"}]
    assert earlier_turns(history, words, 4) == [{"role": "user", "content": "b?"},
                                                {"role": "assistant", "content": "three four five"}]
    assert earlier_turns(history, words, 3) == []


def test_each_cell_opens_with_its_id_and_the_system_message_asks_for_changes_by_id() -> None:
    cells = [CellText("markdown", "# Sales"), CellText("code", LOAD), CellText("code", BROKEN), CellText("code", AFTER)]
    ctx = AskContext(cells, "fix it", ids=["md1", "load1", "broken1", "after1"], selected=[2])
    messages = build_messages(ctx, words, 2000)
    user = messages[1]["content"]
    assert "# cell md1\n# # Sales" in user and "# cell load1\nimport pandas" in user and "# cell after1\nprint" in user
    assert f"The selected cell (3 of 4):\n```python\n# cell broken1\n{BROKEN}\n```" in user
    assert "`Cell <id>:`" in messages[0]["content"] and "`New cell after <id>:`" in messages[0]["content"]
