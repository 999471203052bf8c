"""The rest of a call from the notebook's other calls of the same function (`completion.calls`)."""

from __future__ import annotations

from ghostbook.completion.calls import call_rests, closers
from ghostbook.completion.candidates import candidates

ABOVE = """fig, ax = plt.subplots(2, 2, figsize=(10, 8))
sns.scatterplot(data=penguins, x="bill_length_mm", y="bill_depth_mm", hue="species")
plt.plot(x, np.sin(x), "r-", label="sin(x)")
plt.plot(
    x, y)
"""


def test_the_arguments_after_the_cursors_position_from_another_call() -> None:
    assert call_rests("fig, axes = plt.subplots(1, 3, ", ABOVE, "") == ["figsize=(10, 8))"]
    assert call_rests("fig, axes = plt.subplots(1, 3,", ABOVE, "") == [" figsize=(10, 8))"]
    assert call_rests("sns.scatterplot(data=tips, ", ABOVE, "") == [
        'x="bill_length_mm", y="bill_depth_mm", hue="species")']
    # keyword arguments the call already has are not repeated; the line's other brackets are closed
    assert call_rests('sns.scatterplot(hue="day", data=tips, ', ABOVE, "") == [
        'y="bill_depth_mm")']
    assert call_rests("print(plt.plot(t, ", ABOVE, "") == ['np.sin(x), "r-", label="sin(x)"))']


def test_a_call_with_fewer_arguments_gives_its_keyword_arguments() -> None:
    """`plt.subplots(1, 2, ` where the notebook has `plt.subplots(figsize=(8, 4))`: no third position
    there, but its keyword argument fits (seen in the browser: the model echoed the call instead)."""
    above = "fig, ax = plt.subplots(figsize=(8, 4))\n"
    assert call_rests("fig, axes = plt.subplots(1, 2, ", above, "") == ["figsize=(8, 4))"]
    assert call_rests("fig, axes = plt.subplots(1, 2, figsize=(3, 3), ", above, "") == []  # it has that one


def test_nearest_calls_first_and_none_where_there_is_nothing_to_copy() -> None:
    below = "\nplt.plot(t, y2, 'b--')\n"
    assert call_rests("plt.plot(t, ", ABOVE, below) == ['np.sin(x), "r-", label="sin(x)")', "y2, 'b--')"]
    assert call_rests("plt.plot(x, np.sin(x), \"r-\", label=\"a\", ", ABOVE, "") == []  # no more arguments
    assert call_rests("plt.plot(t", ABOVE, "") == []  # not at an argument's start
    assert call_rests("other(", ABOVE, "") == [] and call_rests("x = [1, ", ABOVE, "") == []
    assert call_rests("plt.plot(t, f(", ABOVE, "") == []  # the innermost call is `f`
    assert call_rests('print("plt.plot(", ', ABOVE, "") == []  # a string's bracket is no call


def test_closers_of_a_line() -> None:
    assert closers("print(np.mean(x[") == "]))" and closers("f('(', [1]") == ")"


def test_candidates_take_them_where_the_notebook_has_no_same_line() -> None:
    assert "figsize=(10, 8))" in candidates("fig, axes = plt.subplots(1, 3, ", ABOVE, "")
