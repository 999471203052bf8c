"""The kernel-side namespace summary: as a plain function, and run silently in a real ipykernel."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

import numpy as np
import pytest
from ghostbook.completion.namespace_provider import KernelNamespace, kernel_source_path, parse_reply
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.events import ExecutionFinished, KernelEvent


def load_kernel_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gb_namespace_under_test", kernel_source_path())
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeFrame:
    """Quacks like a DataFrame: shape, columns, dtypes."""

    shape = (100, 2)
    columns = ["price", "name"]
    dtypes = {"price": "float64", "name": "object"}


def test_summary_lines() -> None:
    ns_module = load_kernel_module()

    def load(path, sep=","):  # type: ignore[no-untyped-def]
        ...

    class Point:
        def __init__(self, x, y):  # type: ignore[no-untyped-def]
            ...

    user_ns = {"n": 3, "name": "abc", "items": [1, 2, 3], "conf": {"a": 1}, "arr": np.zeros((4, 5)),
               "df": FakeFrame(), "load": load, "Point": Point, "np": np, "_hidden": 1, "In": [], "exit": None,
               "x_big": "y" * 10_000}
    lines = json.loads(ns_module.summary(user_ns, {"exit"}))
    assert lines == [
        "class Point(x, y)",
        "arr: ndarray shape=(4, 5) dtype=float64",
        "conf: dict len=1 keys=['a']",
        "df: FakeFrame shape=(100, 2) columns=[price: float64, name: object]",
        "items: list len=3",
        "def load(path, sep=',')",
        "n: int = 3",
        "name: str len=3 = 'abc'",
        "x_big: str len=10000 = " + repr("y" * 10_000)[:37] + "...",
    ]
    assert all(len(line) <= ns_module.MAX_LINE for line in lines)


def test_summary_is_bounded() -> None:
    ns_module = load_kernel_module()
    lines = json.loads(ns_module.summary({f"v{i:04d}": "x" * 30 for i in range(1000)}))
    assert len(lines) <= ns_module.MAX_ENTRIES + 1 and lines[-1] == "..."
    assert sum(map(len, lines)) <= ns_module.MAX_TOTAL + 3


def test_parse_reply_errors() -> None:
    with pytest.raises(ValueError, match="NameError"):
        parse_reply({"user_expressions": {"ns": {"status": "error", "ename": "NameError", "evalue": "x"}}})


@pytest.mark.timeout(60)
async def test_runs_in_a_real_kernel_without_touching_user_names() -> None:
    events: list[KernelEvent] = []
    kernel = KernelAdapter(events.append)
    await kernel.start()
    try:
        msg_id = kernel.execute("import math\nvalues = [1.5, 2.5]\ndef area(r, pi=math.pi):\n    return pi * r * r\n")
        for _ in range(200):
            if any(isinstance(e, ExecutionFinished) and e.msg_id == msg_id for e in events):
                break
            await __import__("asyncio").sleep(0.05)
        namespace = KernelNamespace(lambda: kernel)
        await namespace.refresh()
        assert namespace.namespace_lines() == ["def area(r, pi=3.141592653589793)", "values: list len=2"]
        reply = await kernel.run_silent("", 5.0, {"names": "sorted(k for k in globals() if not k.startswith('_'))"})
        names = reply["user_expressions"]["names"]["data"]["text/plain"]
        assert "summary" not in names and "json" not in names and "'values'" in names
    finally:
        await kernel.shutdown()


async def test_no_kernel_keeps_empty_summary() -> None:
    namespace = KernelNamespace(lambda: None)
    await namespace.refresh()
    assert namespace.namespace_lines() == []


@pytest.mark.timeout(60)
async def test_settled_waits_for_a_summary_taken_after_the_run() -> None:
    """A refresh in flight began before the last run finished: `settled` waits for the one after it; one
    begun after it: for that one."""
    import asyncio

    events: list[KernelEvent] = []
    kernel = KernelAdapter(events.append)
    await kernel.start()
    try:
        namespace = KernelNamespace(lambda: kernel, settle_timeout=20)
        in_flight = asyncio.ensure_future(namespace.refresh())  # the summary of an empty namespace
        await asyncio.sleep(0)
        kernel.execute("late = 1\n")  # queued behind it in the kernel
        namespace.outdated()
        await namespace.settled()
        assert "late: int" in " ".join(namespace.namespace_lines())
        await in_flight
        await namespace.settled()  # nothing owed now: no wait, no refresh
        assert namespace._task is None or namespace._task.done()

        kernel.execute("later = 2\n")
        namespace.outdated()
        after = asyncio.ensure_future(namespace.refresh())  # begun after the run: nothing more owed
        await asyncio.sleep(0)
        await namespace.settled()  # ... but its summary is not made yet: wait for it
        assert "later: int" in " ".join(namespace.namespace_lines())
        await after
    finally:
        await kernel.shutdown()
