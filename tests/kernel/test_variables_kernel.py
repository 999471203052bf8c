"""The Variables panel's kernel-side code (kernels/ghostbook_kernel/namespace.py: `variables`, `data_page`),
run silently in a real ipykernel the way the server runs it."""

from __future__ import annotations

import time
from typing import Any

import pytest
from ghostbook import protocol as p
from ghostbook.completion.namespace_provider import install_code, kernel_source_path
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.session.variables import KernelError, expression_json, list_expression, page_expression

from .conftest import Recorder

pytestmark = pytest.mark.timeout(120)

SETUP = """
import numpy as np, pandas as pd
n = 3
ratio = 0.25
name = "x" * 500
items = [1, 2, 3]
conf = {"a": 1}
df = pd.DataFrame({"price": [3.5, 1.0, None, 2.0], "city": ["b", "a", "d", "c"]}, index=list("wxyz"))
df.index.name = "key"
s = df["price"]
arr = np.arange(12).reshape(4, 3)
cube = np.zeros((2, 2, 2))
class Slow:
    def __repr__(self):
        while True:
            pass
class Broken:
    def __repr__(self):
        raise RuntimeError("no")
slow = Slow()
broken = Broken()
def helper():
    pass
"""


async def call(kernel: KernelAdapter, expression: str, timeout: float = 30) -> Any:
    code = install_code(kernel_source_path().read_text())
    return expression_json(await kernel.run_silent(code, timeout, {"r": expression}), "r")


async def setup(kernel: KernelAdapter, rec: Recorder, code: str = SETUP) -> None:
    finished = await rec.finished(kernel.execute(code), seconds=60)
    assert finished.status == "ok", rec.outputs(finished.msg_id)


def page(**kw: Any) -> str:
    return page_expression(p.GetDataPage(type="get_data_page", **kw))


async def test_variables_lists_names_types_shapes_sizes_and_short_values(fresh: tuple[KernelAdapter, Recorder]) -> None:
    kernel, rec = fresh
    await setup(kernel, rec)
    started = time.perf_counter()
    found = await call(kernel, list_expression())
    assert time.perf_counter() - started < 2  # the never-ending __repr__ was cut off
    rows = {row["name"]: row for row in found["variables"]}
    assert sorted(rows) == ["arr", "broken", "conf", "cube", "df", "items", "n", "name", "ratio", "s", "slow"]
    assert "np" not in rows and "Slow" not in rows and "helper" not in rows  # modules, classes, functions
    assert rows["n"] | {"size": 0} == {"name": "n", "type": "int", "shape": None, "length": None, "size": 0,
                                       "value": "3", "viewer": False}
    assert rows["df"]["type"] == "DataFrame" and rows["df"]["shape"] == [4, 2] and rows["df"]["viewer"]
    assert rows["df"]["value"] == "columns: price, city" and rows["df"]["size"] > 0
    assert rows["arr"]["shape"] == [4, 3] and rows["arr"]["size"] == 96 and rows["arr"]["viewer"]
    assert rows["cube"]["viewer"] is False and rows["s"]["viewer"] is True
    assert rows["items"]["length"] == 3 and rows["items"]["value"] == "[1, 2, 3]"
    assert rows["name"]["length"] == 500 and len(rows["name"]["value"]) <= 120
    assert rows["slow"]["value"] == "<repr too slow>"
    assert rows["broken"]["value"] == "<Broken instance at " + rows["broken"]["value"].split(" at ")[1]
    assert found["total"] == 11
    again = await call(kernel, list_expression())  # a type found slow is not asked again
    assert {row["name"]: row["value"] for row in again["variables"]}["slow"] == "<repr too slow>"
    names = await kernel.run_silent("", 5.0, {"g": "sorted(k for k in globals() if not k.startswith('_'))"})
    assert "variables" not in names["user_expressions"]["g"]["data"]["text/plain"]  # nothing added to the user's names


async def test_data_page_sorts_in_the_kernel_and_reports_errors(fresh: tuple[KernelAdapter, Recorder]) -> None:
    kernel, rec = fresh
    await setup(kernel, rec)
    first = await call(kernel, page(name="df", start=0, count=2))
    assert first["total"] == 4 and first["index_name"] == "key" and first["column_count"] == 2
    assert [c["name"] for c in first["columns"]] == ["price", "city"] and first["columns"][0]["dtype"] == "float64"
    assert first["rows"] == [["w", "3.5", "b"], ["x", "1.0", "a"]]
    by_price = await call(kernel, page(name="df", start=0, count=10, sort=0))
    assert [row[0] for row in by_price["rows"]] == ["x", "z", "w", "y"]  # missing last
    by_city = await call(kernel, page(name="df", start=1, count=2, sort=1, ascending=False))
    assert [row[2] for row in by_city["rows"]] == ["c", "b"]
    by_index = await call(kernel, page(name="df", start=0, count=1, sort=-1, ascending=False))
    assert by_index["rows"] == [["z", "2.0", "c"]]
    series = await call(kernel, page(name="s", start=0, count=4, sort=0, ascending=False))
    assert series["columns"][0]["name"] == "price" and [r[1] for r in series["rows"]] == ["3.5", "2.0", "1.0", "nan"]
    array = await call(kernel, page(name="arr", start=0, count=2, sort=2, ascending=False))
    assert array["rows"] == [["3", "9", "10", "11"], ["2", "6", "7", "8"]]
    with pytest.raises(KernelError, match="NameError: 'gone' is no longer defined"):
        await call(kernel, page(name="gone"))
    with pytest.raises(KernelError, match="TypeError: 'items' is a list, not a table"):
        await call(kernel, page(name="items"))
    with pytest.raises(KernelError, match="TypeError: 'cube' is a ndarray"):
        await call(kernel, page(name="cube"))
    with pytest.raises(KernelError, match="IndexError: 'df' has no column 7"):
        await call(kernel, page(name="df", sort=7))


async def test_without_pandas_or_numpy_imported(fresh: tuple[KernelAdapter, Recorder]) -> None:
    kernel, rec = fresh
    await setup(kernel, rec, "import sys\nplain = [1, 2]\n"
                             "loaded = sorted(m for m in ('numpy', 'pandas') if m in sys.modules)")
    reply = await kernel.run_silent("", 5.0, {"m": "loaded"})
    if reply["user_expressions"]["m"]["data"]["text/plain"] != "[]":
        pytest.skip("this kernel imports numpy at start-up")
    found = await call(kernel, list_expression())
    assert [row["name"] for row in found["variables"]] == ["loaded", "plain"]
    with pytest.raises(KernelError, match="not a table"):
        await call(kernel, page(name="plain"))


@pytest.mark.parametrize("ascending", [True, False])
def test_first_pages_of_a_big_numeric_column_are_found_in_pandas_order(ascending: bool,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The first pages of a sorted numeric column come from argpartition, not a whole sort: the same rows in
    the same order as pandas' stable sort_values (ties in row order, NaN last), for floats, ints, unsigned,
    booleans, the index, and a text column (which always takes pandas' way)."""
    import numpy as np
    import pandas as pd
    from ghostbook_kernel import namespace as kernel_side

    monkeypatch.setattr(kernel_side, "PARTIAL_ROWS", 1000)
    rng = np.random.default_rng(1)
    n = 20_000
    floats = rng.integers(0, 50, n).astype(float)
    floats[rng.random(n) < 0.05] = np.nan
    frame = pd.DataFrame({"f": floats, "i": rng.integers(-5, 5, n), "u": rng.integers(0, 7, n).astype(np.uint8),
                          "b": rng.random(n) < 0.5, "s": rng.integers(0, 9, n).astype(str)},
                         index=rng.permutation(n))
    table = kernel_side._Table(frame, "frame")
    for column in range(-1, 5):
        keys = pd.Series(frame.index) if column == -1 else frame.iloc[:, column].reset_index(drop=True)
        expected = keys.sort_values(ascending=ascending, kind="stable", na_position="last").index.to_numpy()
        for stop in (1, 50, 3000):
            found, complete = table.order(column, ascending, stop)
            assert found[:stop].tolist() == expected[:stop].tolist(), (column, stop)
            assert complete is (column == 4)
        whole, complete = table.order(column, ascending, n)
        assert complete and whole.tolist() == expected.tolist()
    floats_only = np.full(n, np.nan)
    floats_only[:10] = 1.0  # fewer numbers than rows asked: the whole sort
    assert kernel_side._Table(floats_only, "array").order(0, ascending, 50)[1] is True
