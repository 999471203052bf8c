"""The copy model (`decoding.copy_model`): the notebook's own tokens as a second model, mixed into the
network's distribution for the first line's beam."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
from ghostbook.completion.context import Context
from ghostbook.completion.prompt import make_prompt
from ghostbook.decoding import copy_model
from ghostbook.decoding.copy_model import CopyModel, Mixed, mix, weight
from ghostbook.decoding.tokens import index_of
from ghostbook.eval.notebook_data import load_notebooks, packaged_split
from ghostbook.eval.notebook_tasks import notebook_tasks
from ghostbook.models.backend import Evaluation, TokenOut
from ghostbook.models.llamacpp_backend import LlamaCppBackend

from tests.decoding.conftest import probe


def test_it_predicts_what_followed_the_longest_run() -> None:
    model = CopyModel([1, 2, 3, 4, 5, 9, 2, 3], [])
    w, ids, probs = model.predict(()) or (0, [], [])
    assert w == weight(2) and list(ids) == [4] and list(probs) == [1.0]
    # (7, 2, 3) is longer than (2, 3): only what followed it counts, with a larger share
    model = CopyModel([7, 2, 3, 4, 8, 2, 3, 5, 7, 2, 3], [])
    w, ids, _ = model.predict(()) or (0, [], [])
    assert list(ids) == [4] and w == weight(3) > weight(2)
    # two places with the same run: both followers, by count
    _, ids, probs = CopyModel([2, 3, 4, 2, 3, 6, 2, 3, 4, 1, 2, 3], []).predict(()) or (0, [], [])
    assert list(ids) == [4, 6] and np.allclose(probs, [2 / 3, 1 / 3])


def test_the_suffix_counts_but_no_run_crosses_the_cursor() -> None:
    assert list(CopyModel([5, 1, 2], [3, 1, 2, 6]).predict(())[1]) == [6]  # type: ignore[index]
    assert CopyModel([1, 2], [3]).predict(()) is None  # (1, 2) only ends at the cursor
    assert CopyModel([8, 1], [1, 9]).predict(()) is None  # one token is no run


def test_a_branchs_run_grown_from_its_parents_is_the_one_found_from_scratch() -> None:
    rng = random.Random(7)
    for _ in range(300):
        vocab = rng.choice([3, 5, 20])
        context = [rng.randrange(vocab) for _ in range(rng.randrange(1, 60))]
        suffix = [rng.randrange(vocab) for _ in range(rng.randrange(0, 60))]
        grown = CopyModel(context, suffix)
        branch: list[int] = []
        for _ in range(12):
            branch.append(rng.randrange(vocab))
            a, b = grown.predict(branch), CopyModel(context, suffix).predict(branch)
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert a[0] == b[0] and list(a[1]) == list(b[1]) and np.allclose(a[2], b[2])


def test_the_share_grows_with_the_run_up_to_a_cap() -> None:
    shares = [weight(n) for n in range(0, 40)]
    assert shares[: copy_model.SHORTEST] == [0.0] * copy_model.SHORTEST
    assert all(a <= b for a, b in zip(shares, shares[1:], strict=False))
    assert max(shares) == copy_model.TOP < 1


def test_mixing_keeps_a_distribution() -> None:
    row = np.array([2.0, 0.5, -1.0, 0.0])
    out = mix(row, (0.4, np.array([2]), np.array([1.0])))
    p = np.exp(out)
    assert abs(p.sum() - 1) < 1e-9
    base = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
    assert abs(p[2] - (0.6 * base[2] + 0.4)) < 1e-9 and abs(p[0] - 0.6 * base[0]) < 1e-9
    assert mix(row, None) is row


def test_a_draft_check_reads_what_step_by_step_reads(shipped: LlamaCppBackend) -> None:
    """`Mixed.logits_along` (speculative decoding's check) and `Mixed.logits` agree row by row."""
    text = "import pandas as pd\ndf = pd.read_csv('a.csv')\ndf.head()\ndf = df.dropna()\ndf."
    prompt = shipped.tokenize(text)
    branch = shipped.tokenize("head()\ndf = df")

    breaks = index_of(shipped.vocab).breaks

    def look(model: Evaluation) -> tuple[float, list[bool]]:
        mixed = Mixed(model, CopyModel(prompt, []), breaks)
        along = mixed.logits_along(branch, len(branch))
        steps = mixed.logits([branch[:i] for i in range(len(branch) + 1)])
        alone = model.logits([branch[:i] for i in range(len(branch) + 1)])
        norm = [r - np.log(np.exp(r - r.max()).sum()) - r.max() for r in (*along, *steps)]
        gap = max(float(np.abs(a - b).max()) for a, b in zip(norm[: len(along)], norm[len(along):], strict=True))
        return gap, [bool(np.array_equal(a, b)) for a, b in zip(steps, alone, strict=True)]

    gap, unmixed = probe(shipped, prompt, look)
    assert gap < 1e-3
    line_end = next(i for i, t in enumerate(branch) if t in breaks)
    assert not unmixed[0] and all(unmixed[line_end + 1 :])  # the first line mixed, nothing after it


VALIDATION_FLIPS = (  # notebook benchmark, validation split: the first line the notebook itself suggests
    "pandas_exercises/09_Time_Series/Investor_Flow_of_Funds_US/Exercises_with_code_and_solutions.ipynb#2",  # df.head()
    "pandas_exercises/10_Deleting/Wine/Exercises_code_and_solutions.ipynb#2",  # wine.head()
    "statsmodels/examples/notebooks/statespace_local_linear_trend.ipynb#2",  # ax.fill_between(
    "statsmodels/examples/notebooks/distributed_estimation.ipynb#4",  # base.distributed_estimation import (
    "lmfit/lmfit-1.0.2/examples/doc_fitting_emcee.py#1",  # for i, par in enumerate(p):
)


def test_the_plan_carries_it_and_it_turns_notebook_lines_right(shipped: LlamaCppBackend) -> None:
    """On real notebook tasks (three cells above, one below) the first line is right with the copy model
    and wrong without it; the plan has none when the notebook candidates are off."""
    tasks = [t for t in notebook_tasks(load_notebooks(packaged_split("validation"))) if t.task_id in VALIDATION_FLIPS]
    assert len(tasks) == len(VALIDATION_FLIPS)
    right = {True: 0, False: 0}
    for task in tasks:
        cell = task.cells[task.index]
        above = "".join(c + "\n\n" for c in task.cells[max(0, task.index - 3) : task.index])
        below = "".join("\n\n" + c for c in task.cells[task.index + 1 : task.index + 2])
        head, rest = cell[: task.cursor], cell[task.cursor :]
        ctx = Context(above + head, rest + below, head, rest, above, below)
        prompt = make_prompt(shipped, ctx, 32, beam=8)
        assert prompt.plan.copy_model is not None
        assert make_prompt(shipped, ctx, 32, beam=8, copies=False).plan.copy_model is None
        for on in (True, False):
            plan = prompt.plan if on else dataclasses.replace(prompt.plan, copy_model=None)
            out: list[TokenOut] = []
            shipped.generate(prompt.ids, plan, lambda: False, out.append)
            first = b"".join(t.piece for t in out)[len(plan.heal) :].decode("utf-8", "replace").split("\n")[0].strip()
            right[on] += first == task.expected.strip()
    assert right[True] >= 4 and right[False] <= 1, right
