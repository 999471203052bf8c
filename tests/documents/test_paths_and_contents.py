import os
from pathlib import Path

import pytest
from ghostbook.documents.contents import Contents, ContentsError
from ghostbook.documents.paths import PathError, resolve_in_root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "notebooks"
    root.mkdir()
    (root / "sub").mkdir()
    (root / "sub" / "a.ipynb").write_text("{}")
    sibling = tmp_path / "notebooks-secret"  # starts with the root's name
    sibling.mkdir()
    (sibling / "s.ipynb").write_text("{}")
    return root


@pytest.mark.parametrize("bad", [
    "../notebooks-secret/s.ipynb", "sub/../../notebooks-secret/s.ipynb", "/etc/passwd", "..",
    "sub\\..\\x", "a\x00b", "~/x",
])
def test_paths_outside_root_are_refused(root: Path, bad: str) -> None:
    with pytest.raises(PathError):
        resolve_in_root(root, bad)


def test_symlink_out_of_root_is_refused(root: Path, tmp_path: Path) -> None:
    (root / "escape").symlink_to(tmp_path / "notebooks-secret")
    (root / "link.ipynb").symlink_to(tmp_path / "notebooks-secret" / "s.ipynb")
    with pytest.raises(PathError):
        resolve_in_root(root, "escape/s.ipynb")
    with pytest.raises(PathError):
        resolve_in_root(root, "link.ipynb")
    names = [entry.name for entry in Contents(root).list_dir("")]
    assert "escape" not in names and "link.ipynb" not in names


def test_inside_paths_resolve(root: Path) -> None:
    assert resolve_in_root(root, "sub/a.ipynb") == (root / "sub" / "a.ipynb").resolve()
    assert resolve_in_root(root, "") == root.resolve()


def test_list_create_rename_delete(root: Path) -> None:
    contents = Contents(root)
    (root / "notes.txt").write_text("any file is listed, to download it")
    (root / ".hidden.ipynb").write_text("{}")
    first = contents.create("", "notebook")
    second = contents.create("", "notebook")
    assert (first, second) == ("Untitled.ipynb", "Untitled1.ipynb")
    entries = contents.list_dir("")
    assert [(e.name, e.type) for e in entries] == [
        ("sub", "directory"), ("notes.txt", "file"), ("Untitled.ipynb", "notebook"), ("Untitled1.ipynb", "notebook")]
    assert contents.rename("Untitled.ipynb", "sub/Moved.ipynb") == "sub/Moved.ipynb"
    assert [e.path for e in contents.list_dir("sub")] == ["sub/a.ipynb", "sub/Moved.ipynb"]
    with pytest.raises(ContentsError, match="already exists"):
        contents.rename("Untitled1.ipynb", "sub/a.ipynb")
    with pytest.raises(ContentsError, match="not allowed"):
        contents.rename("Untitled1.ipynb", "../notebooks-secret/x.ipynb")
    with pytest.raises(ContentsError, match=".ipynb"):
        contents.rename("Untitled1.ipynb", "x.txt")
    contents.delete("Untitled1.ipynb")
    assert not (root / "Untitled1.ipynb").exists()
    assert contents.rename("notes.txt", "notes.md") == "notes.md"  # any file; only a notebook keeps .ipynb
    contents.delete("notes.md")
    assert not (root / "notes.md").exists()
    with pytest.raises(ContentsError):
        contents.delete("")
    folder = contents.create("", "directory", "data")
    assert (root / folder).is_dir()
    with pytest.raises(ContentsError, match="invalid name"):
        contents.create("", "notebook", "a/b")


def test_deleting_a_symlinked_folder_removes_the_link_only(root: Path) -> None:
    contents = Contents(root)
    (root / "real").mkdir()
    (root / "real" / "keep.ipynb").write_text("{}")
    (root / "link").symlink_to(root / "real", target_is_directory=True)
    (root / "nb-link.ipynb").symlink_to(root / "real" / "keep.ipynb")
    contents.delete("link")
    contents.delete("nb-link.ipynb")
    assert not os.path.lexists(root / "link") and not os.path.lexists(root / "nb-link.ipynb")
    assert (root / "real" / "keep.ipynb").read_text() == "{}"


def test_renaming_a_symlink_renames_the_link_only(root: Path) -> None:
    contents = Contents(root)
    (root / "real").mkdir()
    (root / "link").symlink_to(root / "real", target_is_directory=True)
    assert contents.rename("link", "link2") == "link2"
    assert (root / "link2").is_symlink() and (root / "real").is_dir() and not (root / "real").is_symlink()


def test_bad_names_and_paths_give_clear_errors(root: Path) -> None:
    contents = Contents(root)
    (root / "loop1").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop1")
    with pytest.raises(PathError, match="loop"):
        resolve_in_root(root, "loop1/x.ipynb")
    assert [e.name for e in contents.list_dir("")] == ["sub"]  # the loop is not listed, not an error
    long_name = "é" * 128 + ".ipynb"  # 262 bytes: more than a file name may have
    calls = [lambda: contents.create("", "notebook", long_name), lambda: contents.create("", "directory", "x" * 256),
             lambda: contents.rename("sub", "x" * 256), lambda: contents.list_dir("x" * 300),
             lambda: contents.list_dir("/".join(["d" * 200] * 25)), lambda: contents.delete("x" * 300)]
    for call in calls:
        with pytest.raises(ContentsError, match="too long"):
            call()
    assert contents.create("", "directory", "n" * 255) == "n" * 255  # the limit itself is fine
    (root / "sub" / "inner").mkdir()
    with pytest.raises(ContentsError, match="into itself"):
        contents.rename("sub", "sub/inner/sub")
    with pytest.raises(ContentsError, match="into itself"):
        contents.rename("sub", "sub/sub2")
    with pytest.raises(ContentsError, match="invalid path"):
        contents.list_dir("\ud800")
