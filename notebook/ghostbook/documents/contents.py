"""The notebook root as a file browser sees it: list, create, rename, delete."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ghostbook.documents.ipynb_file import notebook_to_json, write_atomic
from ghostbook.documents.paths import NAME_MAX, PathError, locate_in_root, relative_to_root, resolve_in_root


class ContentsError(ValueError):
    """A file operation the user asked for cannot be done (message is shown to the user)."""


@dataclass(frozen=True)
class Entry:
    name: str
    path: str
    type: str  # "directory" | "notebook" | "file"
    size: int
    modified: float


class Contents:
    """File operations confined to `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def resolve(self, relative: str) -> Path:
        try:
            return resolve_in_root(self.root, relative)
        except PathError as exc:
            raise ContentsError(str(exc)) from None

    def locate(self, relative: str) -> Path:
        """The entry itself (a symlink is not followed): what a rename or delete acts on."""
        try:
            return locate_in_root(self.root, relative)
        except PathError as exc:
            raise ContentsError(str(exc)) from None

    def relative(self, path: Path) -> str:
        return relative_to_root(self.root, path)

    def list_dir(self, relative: str) -> list[Entry]:
        folder = self.resolve(relative)
        with _os_errors("list the folder"):
            if not folder.is_dir():
                raise ContentsError(f"no such folder: {relative or '/'}")
            children = list(folder.iterdir())
        entries: list[Entry] = []
        for child in children:
            if child.name.startswith("."):
                continue
            path = f"{relative.rstrip('/')}/{child.name}" if relative else child.name
            try:
                inside = resolve_in_root(self.root, path)
            except PathError:
                continue  # symlinks that leave the root are not shown
            try:
                if inside.is_dir():
                    kind = "directory"
                elif inside.is_file():
                    kind = "notebook" if child.suffix == ".ipynb" else "file"
                else:
                    continue
                stat = inside.stat()
            except OSError:
                continue  # unreadable entries are not shown
            entries.append(Entry(child.name, path, kind, stat.st_size, stat.st_mtime))
        entries.sort(key=lambda e: (e.type != "directory", e.name.lower()))
        return entries

    def create(self, directory: str, kind: str, name: str | None = None) -> str:
        folder = self.resolve(directory)
        if name is not None:
            if kind == "notebook" and not name.endswith(".ipynb"):
                name += ".ipynb"
            _check_name(name)
        with _os_errors("create the notebook or folder"):
            if not folder.is_dir():
                raise ContentsError(f"no such folder: {directory or '/'}")
            if name is None:
                name = self._free_name(folder, "Untitled.ipynb" if kind == "notebook" else "Untitled Folder")
            target = folder / name
            if os.path.lexists(target):
                raise ContentsError(f"{name} already exists")
            if kind == "directory":
                target.mkdir()
            elif kind == "notebook":
                notebook = nbformat.v4.new_notebook()
                notebook.cells.append(nbformat.v4.new_code_cell(""))
                notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                                   "language": "python"}
                write_atomic(target, notebook_to_json(notebook))
            else:
                raise ContentsError(f"unknown type {kind!r}")
        return relative_to_root(self.root, target)

    def rename(self, old: str, new: str) -> str:
        """Rename or move a file or folder (a notebook keeps its .ipynb); a symlink is renamed itself, not
        what it points to."""
        source = self.locate(old)
        target = self.locate(new)
        if source == self.root or not os.path.lexists(source):
            raise ContentsError(f"no such file: {old}")
        if target == self.root:
            raise ContentsError(f"{new or '/'} already exists")
        _check_name(target.name)
        with _os_errors(f"rename {source.name}"):
            if source.is_file() and source.suffix == ".ipynb" and target.suffix != ".ipynb":
                raise ContentsError("a notebook's name must end in .ipynb")
            if os.path.lexists(target):
                raise ContentsError(f"{target.name} already exists")
            if not target.parent.is_dir():
                raise ContentsError(f"no such folder: {target.parent.name}")
            if not source.is_symlink() and source.is_dir() and source in (target, *target.parents):
                raise ContentsError("cannot move a folder into itself")
            os.rename(source, target)
        return relative_to_root(self.root, target)

    def delete(self, relative: str) -> None:
        """Delete a file or a folder with its contents; a symlink is removed, never its target."""
        target = self.locate(relative)
        if target == self.root:
            raise ContentsError("cannot delete the notebook folder itself")
        with _os_errors(f"delete {target.name}"):
            if target.is_symlink() and (target.is_dir() or target.is_file()):
                target.unlink()
            elif target.is_dir():
                shutil.rmtree(target)
            elif target.is_file():
                target.unlink()
            else:
                raise ContentsError(f"no such file or folder: {relative}")

    @staticmethod
    def _free_name(folder: Path, base: str) -> str:
        stem, dot, suffix = base.partition(".")
        candidate, number = base, 0
        while (folder / candidate).exists():
            number += 1
            candidate = f"{stem}{number}{dot}{suffix}"
        return candidate


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise ContentsError(f"invalid name: {name[:80]!r}")
    if len(os.fsencode(name)) > NAME_MAX:
        raise ContentsError(f"name too long: a file or folder name may have at most {NAME_MAX} bytes")
    if name.startswith("."):
        raise ContentsError("names may not start with '.'")


@contextlib.contextmanager
def _os_errors(action: str) -> Iterator[None]:
    """Turn an operating-system error into a ContentsError the user can read."""
    try:
        yield
    except OSError as exc:
        raise ContentsError(f"cannot {action}: {exc.strerror or exc}") from None
