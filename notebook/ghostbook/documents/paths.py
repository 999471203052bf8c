"""Resolve user-supplied paths strictly inside the notebook root."""

from __future__ import annotations

from pathlib import Path, PurePosixPath


class PathError(ValueError):
    """A path that is malformed or points outside the notebook root."""


def resolve_in_root(root: Path, relative: str) -> Path:
    """Return the absolute path of `relative` (a "/"-separated path under `root`).

    Rejects absolute paths, `..` components, NUL bytes, backslashes and anything that resolves
    (through symlinks included) outside `root`. The comparison is component-wise, so a sibling
    folder whose name merely starts with the root's name is outside too.
    """
    if not isinstance(relative, str) or "\x00" in relative or "\\" in relative:
        raise PathError("invalid path")
    pure = PurePosixPath(relative)
    if pure.is_absolute() or relative.startswith("~"):
        raise PathError("absolute paths are not allowed")
    if any(part == ".." for part in pure.parts):
        raise PathError("'..' is not allowed in paths")
    root_resolved = root.resolve()
    candidate = (root_resolved / pure).resolve()
    if candidate != root_resolved and root_resolved not in candidate.parents:
        raise PathError("path is outside the notebook folder")
    return candidate


def relative_to_root(root: Path, path: Path) -> str:
    """The "/"-separated path of `path` relative to `root` ("" for the root itself)."""
    rel = path.resolve().relative_to(root.resolve())
    return "" if rel == Path(".") else rel.as_posix()
