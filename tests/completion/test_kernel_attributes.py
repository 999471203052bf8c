"""Ghost text after `df.` keeps to what the kernel's `df` has: a real ipykernel, the shipped model."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ghostbook import protocol as p
from ghostbook.completion.kernel_attributes import MODULE, owner_at_cursor
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
    assert owner_at_cursor("from sklearn.metrics import ") == MODULE + "sklearn.metrics"
    assert owner_at_cursor("    from os import pa") == MODULE + "os"
    assert owner_at_cursor("from . import ") is None and owner_at_cursor("from os import path, ") is None


async def test_the_kernel_says_what_an_object_has_and_which_objects_it_lacks(kernel: KernelAdapter) -> None:
    namespace = KernelNamespace(lambda: kernel)
    has = await namespace.attributes("df")
    assert has is not None and {"revenue", "region", "groupby", "head"} <= set(has)
    assert "pandas" not in has and all(not name.startswith("_") for name in has)
    assert await namespace.attributes("missing") is None
    assert await namespace.attributes("pd.DataFrame") is not None


async def test_the_kernel_says_what_a_module_it_imported_has_and_imports_nothing_to_say_it(
        kernel: KernelAdapter) -> None:
    """`from pandas import `: the module's names and its submodules' (`plotting`, listed whether or not
    imported); a module the kernel has not imported is unknown, and asking does not import it."""
    namespace = KernelNamespace(lambda: kernel)
    has = await namespace.attributes(MODULE + "pandas")
    assert has is not None and {"DataFrame", "read_csv", "plotting", "io"} <= set(has)
    assert await namespace.attributes(MODULE + "this") is None  # `import this` would print the Zen
    reply = await kernel.run_silent("", 30, {"imported": "'this' in __import__('sys').modules"})
    assert reply["user_expressions"]["imported"]["data"]["text/plain"] == "False"


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


async def test_a_from_import_of_a_module_the_kernel_imported_takes_one_of_its_names(
        tmp_path: Path, kernel: KernelAdapter) -> None:
    """`from statsmodels import ` after a cell that imported statsmodels: the small model alone writes
    `sns`, a name of the notebook; the suggestion is one the kernel's statsmodels has."""
    setup = "import seaborn as sns\nimport statsmodels.api as sm"
    assert (await kernel.run_silent(setup, timeout=60))["status"] == "ok"
    cells = [FakeCell("a", "code", setup), FakeCell("b", "code", "from statsmodels import ")]
    text = await suggest(tmp_path, kernel, cells, "b", len(cells[1].source))
    has = await KernelNamespace(lambda: kernel).attributes(MODULE + "statsmodels")
    assert has is not None and leading_name(text) in has, text
