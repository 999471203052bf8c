"""Files in and out of the notebook root: a download of any file, an upload into a folder.

The same path rules as the rest of the file browser (documents/paths.py): nothing outside the root,
through symlinks included, and no hidden names (the listing does not show them either)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import IO

from ghostbook.documents.contents import Contents, ContentsError, _check_name, _os_errors


def _visible(relative: str) -> None:
    if any(part.startswith(".") for part in PurePosixPath(relative).parts):
        raise ContentsError("hidden files and folders (names starting with '.') cannot be downloaded")


def download_path(contents: Contents, relative: str) -> Path:
    """The file at `relative`, to send as it is."""
    _visible(relative)
    path = contents.resolve(relative)
    if not path.is_file():
        raise ContentsError(f"no such file: {relative}")
    return path


def save_upload(contents: Contents, directory: str, name: str, data: IO[bytes]) -> str:
    """Write `data` as `directory/name` (never over an existing entry) and return its path.

    The bytes go to a temporary file in the folder first, then take the name, so a failed upload
    leaves nothing half written under the name."""
    _check_name(name)
    _visible(directory)
    folder = contents.resolve(directory)
    with _os_errors(f"save {name}"):
        if not folder.is_dir():
            raise ContentsError(f"no such folder: {directory or '/'}")
        target = folder / name
        if os.path.lexists(target):
            raise ContentsError(f"{name} already exists here: rename or delete it first")
        fd, tmp_name = tempfile.mkstemp(prefix=".~upload.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                shutil.copyfileobj(data, handle)
            os.chmod(tmp_name, 0o644)
            os.link(tmp_name, target)  # fails if the name was taken meanwhile (never overwrites)
        except FileExistsError:
            raise ContentsError(f"{name} already exists here: rename or delete it first") from None
        finally:
            os.unlink(tmp_name)
    return contents.relative(target)
