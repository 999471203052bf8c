"""More training code from PyPI: download packages (pip, no dependencies) and unpack each into a
folder that keeps its metadata, so the corpus builder reads its licence and uses it only if permissive."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Sequence
from pathlib import Path


def fetch_packages(specs: Sequence[str], dest: Path, pip_args: Sequence[str] = ()) -> list[Path]:
    """Download `specs` (e.g. "algorithms==1.0.1") into `dest/downloads` and unpack each wheel or sdist
    into `dest/src/NAME`; returns those folders. `pip_args` go to `pip download` (e.g. a local index)."""
    downloads = dest / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(downloads), *pip_args,
           *specs]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip download failed for {', '.join(specs)}:\n{done.stderr.strip()[-2000:]}")
    wanted = {_normalise(s.split("==")[0].split(">")[0].split("<")[0]) for s in specs}
    folders = []
    for archive in sorted(downloads.iterdir()):
        name = _normalise(archive.name.split("-")[0])
        if name in wanted:
            folders.append(unpack(archive, dest / "src" / name))
    return folders


def unpack(archive: Path, target: Path) -> Path:
    """Extract a wheel (zip) or an sdist (tar.gz) into `target` (kept if already there)."""
    if target.exists():
        return target
    tmp = target.with_name(target.name + ".tmp")
    if archive.suffix == ".whl" or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp)
    elif archive.name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(archive) as t:
            t.extractall(tmp, filter="data")
    else:
        raise ValueError(f"not a wheel or an sdist: {archive}")
    tmp.rename(target)
    return target


def _normalise(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")
