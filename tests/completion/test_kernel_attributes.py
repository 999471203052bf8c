"""Ghost text after `df.` keeps to what the kernel's `df` has: a real ipykernel, the shipped model."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ghostbook import protocol as p
from ghostbook.completion.kernel_attributes import owner_at_cursor
from ghostbook.completion.namespace_provider import KernelNamespace
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.kernel.adapter import KernelAdapter

from tests.completion.conftest import FakeCell, Outbox

pytestmark = pytest.mark.timeout(120)

SETUP = 'import pandas as pd\ndf = pd.DataFrame({"revenue": [1.0, 2.5], "region": ["north", "south"]})'


@pytest.fixture
async def kernel(tmp_path: Path) -> AsyncIterator[KernelAdapter]:
    """A real kernel that ran `SETUP`."""
    adapter = KernelAdapter(lambda event: None, cwd=str(tmp_path), quiet=True)
    await adapter.start()
    try:
        reply = await adapter.run_silent(SETUP, timeout=60)
        assert reply["status"] == "ok", reply
        yield adapter
    finally:
        await adapter.shutdown()


def test_the_owner_is_a_dotted_name_outside_strings_comments_imports_and_names_the_cell_binds() -> None:
    assert owner_at_cursor("x = df.gro") == "df"
    assert owner_at_cursor("np.random.") == "np.random"
    assert owner_at_cursor("df[df.") == "df"
    assert owner_at_cursor("df.groupby('a').") is None  # an expression: nothing is evaluated
    assert owner_at_cursor("pd.read_csv('data.") is None
    assert owner_at_cursor("x = 1  # see df.") is None
    assert owner_at_cursor("from sklearn.") is None
    assert owner_at_cursor("df = load()\ndf.") is None  # the cell has not run: the kernel's df is older


async def test_the_kernel_says_what_an_object_has_and_which_objects_it_lacks(kernel: KernelAdapter) -> None:
    namespace = KernelNamespace(lambda: kernel)
    has = await namespace.attributes("df")
    assert has is not None and {"revenue", "region", "groupby", "head"} <= set(has)
    assert "pandas" not in has and all(not name.startswith("_") for name in has)
    assert await namespace.attributes("missing") is None
    assert await namespace.attributes("pd.DataFrame") is not None


async def suggest(tmp_path: Path, kernel: KernelAdapter, cells: list[FakeCell], cell: str, cursor: int) -> str:
    """A forced suggestion of the shipped model at `cursor` in `cell`, the kernel as context provider."""
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"model": "default"})
    out = Outbox()
    service = CompletionService(lambda: cells, out.send, out.broadcast, KernelNamespace(lambda: kernel), store=store)
    try:
        await service.suggest("t", p.Suggest(type="suggest", ref="r", cell_id=cell, cursor=cursor, trigger="forced"))
    finally:
        await service.close()
        await service.registry.close()
    done = [m for m in out.of("suggestion", "r") if m["done"]]
    assert done, out.sent
    return str(done[-1]["text"])


def leading_name(text: str) -> str:
    m = re.match(r"[A-Za-z_]\w*", text)
    return m.group() if m else ""


async def test_after_df_dot_only_what_df_has(tmp_path: Path, kernel: KernelAdapter) -> None:
    """In `df[df.` the small model alone writes a name `df` lacks (`fit_revenue`); the suggestion takes
    one of the kernel's `df`'s own attributes."""
    cells = [FakeCell("a", "code", SETUP), FakeCell("b", "code", "df[df.")]
    text = await suggest(tmp_path, kernel, cells, "b", len(cells[1].source))
    has = await KernelNamespace(lambda: kernel).attributes("df")
    assert has is not None and leading_name(text) in has, text


async def test_a_column_being_typed_is_completed_from_the_kernel(tmp_path: Path, kernel: KernelAdapter) -> None:
    cells = [FakeCell("a", "code", SETUP), FakeCell("b", "code", "total = df.reve")]
    text = await suggest(tmp_path, kernel, cells, "b", len(cells[1].source))
    assert text.startswith("nue"), text
