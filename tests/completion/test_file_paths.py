"""Ghost text at `pd.read_csv(` names a file the kernel's working folder has: a real ipykernel, the
shipped model (`completion.file_paths`, `decoding.paths`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ghostbook import protocol as p
from ghostbook.completion.file_paths import choices, only_file, path_rests, with_paths
from ghostbook.completion.namespace_provider import KernelNamespace
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.kernel.adapter import KernelAdapter

from tests.completion.conftest import FakeCell, Outbox

pytestmark = pytest.mark.timeout(120)

FILES = ["notes.md", "sales_2024.csv", "../data/gapminder.tsv", "../data/tips.csv"]


def test_the_rests_name_files_of_the_kind_the_call_reads_first_in_the_notebooks_quotes() -> None:
    assert path_rests("df = pd.read_csv(", FILES, "x = 1\n") == [
        "'sales_2024.csv')", "'../data/tips.csv')", "'../data/gapminder.tsv', sep='\\t')"]
    # the file the notebook read last first (it reads its data again); double quotes where it writes them
    assert path_rests("df = pd.read_csv(", FILES, 'a = pd.read_csv("../data/tips.csv")\n')[0] == '"../data/tips.csv")'
    assert path_rests("pd.DataFrame(pd.read_csv('../data/g", FILES, "") == ["apminder.tsv', sep='\\t'))"]
    assert path_rests("x = np.load(", FILES, "") == []  # no .npy here: the file is elsewhere, or made later
    assert path_rests("with open(", FILES, "")[0] == "'notes.md')"
    assert path_rests("df = pd.DataFrame(", FILES, "") == []
    assert path_rests("df = pd.read_csv(", FILES, "", ")")[0] == "'sales_2024.csv'"  # the editor closed the call


def test_the_notebooks_own_reads_come_first_and_the_folders_files_where_it_has_none() -> None:
    above = "import pandas as pd\nurl = 'https://example.org/x.csv'\n"
    notebook = ["'sales_2024.csv', index_col='region')", "'examples/macrodata.csv')", "url)", "df)"]
    # a training notebook's file, and a name nothing binds, go; the notebook's read keeps its arguments
    assert with_paths(notebook, "df = pd.read_csv(", FILES, above) == ["'sales_2024.csv', index_col='region')", "url)"]
    assert with_paths(["url)"], "df = pd.read_csv(", FILES, above) == [
        "url)", "'sales_2024.csv')", "'../data/tips.csv')", "'../data/gapminder.tsv', sep='\\t')"]
    assert with_paths(["x + 1"], "y = f(", FILES, above) == ["x + 1"]  # no reading call: as it was


def test_only_the_one_file_of_the_likeliest_kind_is_sure() -> None:
    assert only_file("df = pd.read_csv(", FILES) == "sales_2024.csv"  # the folder's own CSV before those beside it
    assert only_file("df = pd.read_csv(", [*FILES, "b.csv"]) is None  # two could be meant
    assert only_file("df = pd.read_csv(", ["notes.txt", "../data/gapminder.tsv"]) == "../data/gapminder.tsv"
    assert only_file("with open(", FILES) is None  # open reads any file
    assert only_file("df = pd.read_csv(", None) is None
    assert only_file("x = pd.read_excel(", ["a.xlsx"]) == "a.xlsx"
    assert choices("x = pd.read_excel(", ["a.xlsx", "b.csv"]) == ("a.xlsx",)
    assert choices("with open(", ["a.xlsx", "b.csv"]) == ("a.xlsx", "b.csv")


@pytest.fixture
async def project(tmp_path: Path) -> AsyncIterator[tuple[Path, KernelAdapter]]:
    """A project folder: data beside the notebooks' folder, where a real kernel runs."""
    notebooks, data = tmp_path / "project" / "notebooks", tmp_path / "project" / "data"
    for folder in (notebooks / ".ipynb_checkpoints", data, notebooks / "__pycache__"):
        folder.mkdir(parents=True)
    (data / "gapminder.tsv").write_text("country\tyear\nChad\t1952\n")
    (data / "helper.py").write_text("")  # code, not data
    (notebooks / "sales_2024.csv").write_text("region,revenue\nnorth,1.0\n")
    (notebooks / "analysis.ipynb").write_text("{}")
    (notebooks / ".secret.csv").write_text("")
    adapter = KernelAdapter(lambda event: None, cwd=str(notebooks), quiet=True)
    await adapter.start()
    try:
        yield notebooks, adapter
    finally:
        await adapter.shutdown()


async def test_the_kernel_lists_its_folders_files_and_the_data_beside_it(
        project: tuple[Path, KernelAdapter]) -> None:
    notebooks, kernel = project
    namespace = KernelNamespace(lambda: kernel)
    assert await namespace.files() == ("sales_2024.csv", "../data/gapminder.tsv")
    (notebooks / "made.csv").write_text("")
    assert "made.csv" not in (await namespace.files() or ())  # asked once between runs
    namespace.outdated()  # a run ended: it may have written files
    assert "made.csv" in (await namespace.files() or ())
    reply = await kernel.run_silent("", 30, {"names": "sorted(n for n in dir() if not n.startswith('_'))"})
    assert "data_files" not in reply["user_expressions"]["names"]["data"]["text/plain"]  # no user name made


async def suggest(tmp_path: Path, kernel: KernelAdapter, source: str, trigger: str) -> str:
    """The shipped model's suggestion at the end of `source` (a cell below `import pandas as pd`)."""
    cells = [FakeCell("a", "code", "import pandas as pd"), FakeCell("b", "code", source)]
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"model": "default"})
    out = Outbox()
    service = CompletionService(lambda: cells, out.send, out.broadcast, KernelNamespace(lambda: kernel), store=store)
    try:
        await service.suggest("t", p.Suggest(type="suggest", ref="r", cell_id="b", cursor=len(source),
                                             trigger=trigger))  # type: ignore[arg-type]
    finally:
        await service.close()
        await service.registry.close()
    return str(out.of("suggestion", "r")[-1]["text"])


async def test_ctrl_space_at_read_csv_names_the_file_there(
        tmp_path: Path, project: tuple[Path, KernelAdapter]) -> None:
    """Without the kernel's files the shipped model writes a path of its own (`'movie_data.csv', encoding='utf-8')`)."""
    _, kernel = project
    assert await suggest(tmp_path, kernel, "df = pd.read_csv(", "forced") == "'sales_2024.csv')"
    assert await suggest(tmp_path, kernel, "df = pd.read_csv('../", "forced") == "data/gapminder.tsv', sep='\\t')"


async def test_the_one_file_of_its_kind_shows_after_a_pause(
        tmp_path: Path, project: tuple[Path, KernelAdapter]) -> None:
    notebooks, kernel = project
    (notebooks / "data.xlsx").write_text("")
    assert await suggest(tmp_path, kernel, "sheet = pd.read_excel(", "auto") == "'data.xlsx')"
