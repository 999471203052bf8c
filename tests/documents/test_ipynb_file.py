import errno
import json
import os
from pathlib import Path

import nbformat
import pytest
from ghostbook.documents.ipynb_file import NotebookFormatError, read_notebook, write_atomic, write_notebook
from ghostbook.session.state import NotebookData

RICH_NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "md1", "metadata": {"tags": ["intro"], "custom": {"x": 1}},
         # the text names its attachment: an unused one is dropped on save, as JupyterLab does
         "source": ["# Title\n", "text ![a](attachment:a.png)"],
         "attachments": {"a.png": {"image/png": "iVBORw0KGgo="}}},
        {"cell_type": "code", "id": "c1", "execution_count": 3, "metadata": {"collapsed": False, "foo": "bar"},
         "source": "print('hi')\n1+1",
         "outputs": [
             {"output_type": "stream", "name": "stdout", "text": ["hi\n"]},
             {"output_type": "execute_result", "execution_count": 3, "metadata": {"m": 1},
              "data": {"text/plain": ["2"], "application/vnd.custom+json": {"k": [1, 2]}}},
             {"output_type": "display_data", "metadata": {},
              "data": {"image/png": "iVBORw0KGgo=\n", "text/plain": ["<Figure>"]}},
             {"output_type": "error", "ename": "ValueError", "evalue": "bad",
              "traceback": ["\x1b[31mValueError\x1b[0m"]},
         ]},
        {"cell_type": "raw", "id": "r1", "metadata": {"format": "text/x-rst"}, "source": "raw text"},
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                 "language_info": {"name": "python"}, "unknown_tool": {"nested": [1, {"deep": True}]}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def test_round_trip_keeps_unknown_metadata_and_outputs(tmp_path: Path) -> None:
    source = tmp_path / "rich.ipynb"
    write_json(source, RICH_NOTEBOOK)
    data = NotebookData.from_nbformat("rich.ipynb", read_notebook(source))
    target = tmp_path / "out.ipynb"
    write_notebook(target, data.to_nbformat())
    original = nbformat.reads(source.read_text(), as_version=4)
    again = nbformat.reads(target.read_text(), as_version=4)
    assert again == original
    # and it stays a valid notebook
    nbformat.validate(again)


def test_saved_file_is_stable(tmp_path: Path) -> None:
    source = tmp_path / "rich.ipynb"
    write_json(source, RICH_NOTEBOOK)
    first = tmp_path / "first.ipynb"
    second = tmp_path / "second.ipynb"
    write_notebook(first, NotebookData.from_nbformat("x", read_notebook(source)).to_nbformat())
    write_notebook(second, NotebookData.from_nbformat("x", read_notebook(first)).to_nbformat())
    assert first.read_text() == second.read_text()


def test_old_notebook_without_ids_gets_ids(tmp_path: Path) -> None:
    old = nbformat.v4.new_notebook()
    old.nbformat_minor = 4
    old.cells = [nbformat.v4.new_code_cell("1"), nbformat.v4.new_markdown_cell("m")]
    for cell in old.cells:
        del cell["id"]
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(old))
    data = NotebookData.from_nbformat("old.ipynb", read_notebook(path))
    assert len({cell.id for cell in data.cells}) == 2
    assert data.to_nbformat()["nbformat_minor"] == 5


@pytest.mark.parametrize("content, reason", [
    ("{not json", "not valid JSON"),
    ('{"cells": 5, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', "not a valid notebook"),
    ('{"cells": [{"cell_type": "weird", "metadata": {}, "source": ""}], "metadata": {}, "nbformat": 4,'
     ' "nbformat_minor": 5}', "not a valid notebook|malformed"),
    ("[1, 2, 3]", "not a valid notebook"),
])
def test_corrupt_file_raises_and_is_left_untouched(tmp_path: Path, content: str, reason: str) -> None:
    path = tmp_path / "broken.ipynb"
    path.write_text(content)
    before = path.stat().st_mtime_ns
    with pytest.raises(NotebookFormatError, match=reason):
        read_notebook(path)
    assert path.read_text() == content
    assert path.stat().st_mtime_ns == before


def test_binary_garbage_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "bin.ipynb"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(NotebookFormatError, match="UTF-8"):
        read_notebook(path)


def test_atomic_write_replaces_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text("old")
    os.chmod(path, 0o640)
    write_atomic(path, "new")
    assert path.read_text() == "new"
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.ipynb"]


def test_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text("precious")

    # A write error in the middle (here: text that cannot be encoded) must leave the original intact.
    with pytest.raises(UnicodeEncodeError):
        write_atomic(path, "ok \udcff surrogate")
    assert path.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.ipynb"]


def test_full_disk_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text("precious")

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)  # the disk fills up while the new copy is written
    with pytest.raises(OSError, match="No space"):
        write_atomic(path, "new")
    assert path.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.ipynb"]


@pytest.mark.parametrize("notebook, reason", [
    ({"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# kept"}], "metadata": {}},
     "no nbformat version"),
    ({"cells": [], "metadata": {}, "nbformat": 1, "nbformat_minor": 0}, "version 1"),
    ({"cells": [], "metadata": {}, "nbformat": "4", "nbformat_minor": 5}, "version '4'"),
    ({"cells": [], "metadata": {}, "nbformat": 5, "nbformat_minor": 0}, "version 5"),
    ({"metadata": {}, "nbformat": 4, "nbformat_minor": 5}, "'cells' is a required property"),
    ({"cells": [{"cell_type": "code", "id": "a", "metadata": {}, "source": 5, "outputs": [],
                 "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
     "at cells/0/source"),
    ({"cells": [{"cell_type": "markdown", "id": "a", "source": "x"}], "metadata": {}, "nbformat": 4,
      "nbformat_minor": 5}, "'metadata' is a required property"),
])
def test_a_file_that_is_not_valid_nbformat_4_is_refused(tmp_path: Path, notebook: dict[str, object],
                                                        reason: str) -> None:
    """#14.3: no `nbformat` key was read as version 1 (cells lost); schema errors went unnoticed."""
    path = tmp_path / "bad.ipynb"
    write_json(path, notebook)
    before = path.read_bytes(), path.stat().st_mtime_ns
    with pytest.raises(NotebookFormatError, match=reason):
        read_notebook(path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_a_schema_error_is_one_short_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.ipynb"
    huge = {"output_type": "stream", "name": "stdout", "text": "x" * 100_000, "bogus": True}
    write_json(path, {"cells": [{"cell_type": "code", "id": "a", "metadata": {}, "source": "", "outputs": [huge],
                                 "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    with pytest.raises(NotebookFormatError) as caught:
        read_notebook(path)
    assert len(str(caught.value)) < 400 and "\n" not in str(caught.value)


def test_nbformat_3_is_upgraded_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "v3.ipynb"
    write_json(path, {"metadata": {"name": "", "custom": 1}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [
        {"metadata": {}, "cells": [
            {"cell_type": "code", "input": "print(1)", "language": "python", "metadata": {}, "outputs": [],
             "collapsed": False},
            {"cell_type": "markdown", "source": "# Title", "metadata": {}}]}]})
    data = NotebookData.from_nbformat("v3.ipynb", read_notebook(path))
    assert [(c.cell_type, c.source) for c in data.cells] == [("code", "print(1)"), ("markdown", "# Title")]
    assert data.metadata["custom"] == 1
    nbformat.validate(nbformat.from_dict(json.loads(tmp_path.joinpath("v3.ipynb").read_text())), version=3)


def test_cells_without_ids_in_4_5_are_given_ids(tmp_path: Path) -> None:
    path = tmp_path / "noid.ipynb"
    write_json(path, {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "m"}], "metadata": {},
                      "nbformat": 4, "nbformat_minor": 5})
    data = NotebookData.from_nbformat("noid.ipynb", read_notebook(path))
    assert data.cells[0].id and data.cells[0].source == "m"


@pytest.mark.parametrize("stem", ["n" * 249, "é" * 124 + "n"])  # 255 bytes with ".ipynb"
def test_a_notebook_named_with_255_bytes_saves(tmp_path: Path, stem: str) -> None:
    """#14.12: the temporary file's name (".~NAME.XXXXXXXX.tmp") went past the 255-byte limit."""
    path = tmp_path / f"{stem}.ipynb"
    assert len(os.fsencode(path.name)) == 255
    write_notebook(path, nbformat.v4.new_notebook())
    write_notebook(path, nbformat.v4.new_notebook())  # over an existing file too
    assert read_notebook(path).cells == []
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
