"""Resolve user-supplied paths strictly inside the notebook root."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

NAME_MAX = 255  # bytes in one path component (Linux, macOS)
PATH_MAX = 4096  # bytes in a whole path (Linux)


class PathError(ValueError):
    """A path that is malformed or points outside the notebook root."""


def resolve_in_root(root: Path, relative: str) -> Path:
    """Return the absolute path of `relative` (a "/"-separated path under `root`).

    Rejects absolute paths, `..` components, NUL bytes, backslashes, names the OS cannot hold,
    symlink loops and anything that resolves (through symlinks included) outside `root`. The
    comparison is component-wise, so a sibling folder whose name merely starts with the root's name
    is outside too.
    """
    return _resolve(root, _checked(relative))


def locate_in_root(root: Path, relative: str) -> Path:
    """Like `resolve_in_root`, but a symlink in the last component is not followed: the path of the
    entry itself (the link, for a link), to rename or delete it rather than what it points to.

    The entry, followed, must still lie inside `root`.
    """
    pure = _checked(relative)
    resolved = _resolve(root, pure)
    if pure.name in ("", "."):
        return resolved
    return _resolve(root, pure.parent) / pure.name


def relative_to_root(root: Path, path: Path) -> str:
    """The "/"-separated path of `path` relative to `root` ("" for the root itself); a symlink in
    the last component is not followed."""
    root_resolved = root.resolve()
    if path == root_resolved or path.name in ("", "."):
        rel = path.resolve().relative_to(root_resolved)
    else:
        rel = (path.parent.resolve() / path.name).relative_to(root_resolved)
    return "" if rel == Path(".") else rel.as_posix()


def _checked(relative: str) -> PurePosixPath:
    if not isinstance(relative, str) or "\x00" in relative or "\\" in relative:
        raise PathError("invalid path")
    try:
        encoded = os.fsencode(relative)
    except UnicodeEncodeError:
        raise PathError("invalid path: not valid text") from None
    if len(encoded) > PATH_MAX:
        raise PathError(f"path too long: more than {PATH_MAX} bytes")
    pure = PurePosixPath(relative)
    if pure.is_absolute() or relative.startswith("~"):
        raise PathError("absolute paths are not allowed")
    if any(part == ".." for part in pure.parts):
        raise PathError("'..' is not allowed in paths")
    if any(len(os.fsencode(part)) > NAME_MAX for part in pure.parts):
        raise PathError(f"name too long: a file or folder name may have at most {NAME_MAX} bytes")
    return pure


def _resolve(root: Path, pure: PurePosixPath) -> Path:
    root_resolved = root.resolve()
    try:
        candidate = (root_resolved / pure).resolve()
    except RuntimeError:  # Python < 3.13 reports a loop this way
        raise PathError("symbolic link loop") from None
    except OSError as exc:
        raise PathError(f"invalid path: {exc.strerror or exc}") from None
    if candidate != root_resolved and root_resolved not in candidate.parents:
        raise PathError("path is outside the notebook folder")
    return candidate
