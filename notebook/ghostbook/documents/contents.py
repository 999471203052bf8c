"""The notebook root as a file browser sees it: list, create, rename, delete."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ghostbook.documents.ipynb_file import notebook_to_json, write_atomic
from ghostbook.documents.paths import PathError, relative_to_root, resolve_in_root


class ContentsError(ValueError):
    """A file operation the user asked for cannot be done (message is shown to the user)."""


@dataclass(frozen=True)
class Entry:
    name: str
    path: str
    type: str  # "directory" | "notebook"
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

    def relative(self, path: Path) -> str:
        return relative_to_root(self.root, path)

    def list_dir(self, relative: str) -> list[Entry]:
        folder = self.resolve(relative)
        if not folder.is_dir():
            raise ContentsError(f"no such folder: {relative or '/'}")
        entries: list[Entry] = []
        for child in folder.iterdir():
            if child.name.startswith("."):
                continue
            path = f"{relative.rstrip('/')}/{child.name}" if relative else child.name
            try:
                inside = resolve_in_root(self.root, path)
            except PathError:
                continue  # symlinks that leave the root are not shown
            if inside.is_dir():
                kind = "directory"
            elif child.suffix == ".ipynb" and inside.is_file():
                kind = "notebook"
            else:
                continue
            stat = inside.stat()
            entries.append(Entry(child.name, path, kind, stat.st_size, stat.st_mtime))
        entries.sort(key=lambda e: (e.type != "directory", e.name.lower()))
        return entries

    def create(self, directory: str, kind: str, name: str | None = None) -> str:
        folder = self.resolve(directory)
        if not folder.is_dir():
            raise ContentsError(f"no such folder: {directory or '/'}")
        if name is not None:
            _check_name(name)
            if kind == "notebook" and not name.endswith(".ipynb"):
                name += ".ipynb"
        else:
            name = self._free_name(folder, "Untitled.ipynb" if kind == "notebook" else "Untitled Folder")
        target = folder / name
        if target.exists():
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
        source = self.resolve(old)
        target = self.resolve(new)
        if not source.exists() or source == self.root:
            raise ContentsError(f"no such file: {old}")
        _check_name(target.name)
        if source.is_file() and target.suffix != ".ipynb":
            raise ContentsError("a notebook's name must end in .ipynb")
        if target.exists():
            raise ContentsError(f"{new} already exists")
        if not target.parent.is_dir():
            raise ContentsError(f"no such folder: {target.parent.name}")
        os.rename(source, target)
        return relative_to_root(self.root, target)

    def delete(self, relative: str) -> None:
        target = self.resolve(relative)
        if target == self.root:
            raise ContentsError("cannot delete the notebook folder itself")
        if target.is_dir():
            shutil.rmtree(target)
        elif target.is_file() and target.suffix == ".ipynb":
            target.unlink()
        else:
            raise ContentsError(f"no such notebook or folder: {relative}")

    @staticmethod
    def _free_name(folder: Path, base: str) -> str:
        stem, dot, suffix = base.partition(".")
        candidate, number = base, 0
        while (folder / candidate).exists():
            number += 1
            candidate = f"{stem}{number}{dot}{suffix}"
        return candidate


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name or len(name) > 255:
        raise ContentsError(f"invalid name: {name!r}")
    if name.startswith("."):
        raise ContentsError("names may not start with '.'")
