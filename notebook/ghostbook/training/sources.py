"""Where the default corpus comes from: the standard library and permissively licensed site-packages."""

from __future__ import annotations

import email
import re
import sysconfig
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

PERMISSIVE = re.compile(r"\b(MIT|BSD|Apache|PSF|Python Software Foundation|ISC|Unlicense|Zlib|0BSD)\b", re.I)
COPYLEFT = re.compile(r"\b(GPL|LGPL|AGPL|MPL|Mozilla|EPL|CDDL)\b", re.I)


@dataclass(frozen=True)
class Source:
    """A folder of Python files with the licence that covers it."""

    root: Path
    name: str
    licence: str


def stdlib_source() -> Source:
    return Source(Path(sysconfig.get_paths()["stdlib"]), "python-stdlib", "PSF-2.0")


def distribution_licence(dist: metadata.Distribution) -> str:
    """Best-effort licence string from a distribution's metadata (expression, field or classifiers)."""
    return metadata_licence(dist.metadata)


def metadata_licence(meta: Any) -> str:
    """Best-effort licence string from core metadata (an email-style message)."""
    expr = meta.get("License-Expression") or ""
    if expr:
        return expr.strip()
    classifiers = [c.split("::")[-1].strip() for c in meta.get_all("Classifier") or [] if "License ::" in c]
    field = (meta.get("License") or "").strip()
    if classifiers:
        return "; ".join(classifiers)
    return field.splitlines()[0][:80] if field else ""


def is_permissive(licence: str) -> bool:
    """True for MIT/BSD/Apache/PSF-style licences with no copyleft component."""
    return bool(licence) and bool(PERMISSIVE.search(licence)) and not COPYLEFT.search(licence)


def _top_level_dirs(dist: metadata.Distribution, site: Path) -> list[Path]:
    tops: set[str] = set()
    for f in dist.files or []:
        parts = Path(str(f)).parts
        if parts and not parts[0].endswith((".dist-info", ".egg-info", ".data")) and parts[0] != "..":
            if len(parts) > 1 or parts[0].endswith(".py"):
                tops.add(parts[0])
    return sorted(site / t for t in tops if (site / t).exists())


def folder_source(root: Path) -> tuple[Source, bool]:
    """A folder given on the command line, paired with whether to use it: an unpacked wheel or sdist
    carries its licence in its metadata (used only if permissive); any other folder is the user's own."""
    for meta_file in [*sorted(root.glob("*.dist-info/METADATA")), *sorted(root.glob("*/PKG-INFO")),
                      *sorted(root.glob("PKG-INFO"))]:
        meta = email.message_from_bytes(meta_file.read_bytes())
        licence = metadata_licence(meta)
        return Source(root.resolve(), meta.get("Name") or root.name, licence or "unknown"), is_permissive(licence)
    return Source(root.resolve(), root.name, "user-supplied"), True


def site_package_sources(exclude: frozenset[str] = frozenset({"ghostbook"})) -> list[tuple[Source, bool]]:
    """Every installed distribution's top-level folders, paired with whether its licence is permissive."""
    site = Path(sysconfig.get_paths()["purelib"])
    out: list[tuple[Source, bool]] = []
    seen: set[Path] = set()
    for dist in metadata.distributions():
        meta: Any = dist.metadata
        name = meta.get("Name") or "?"
        if name.lower() in exclude:
            continue
        licence = distribution_licence(dist)
        ok = is_permissive(licence)
        for top in _top_level_dirs(dist, site):
            if top not in seen:
                seen.add(top)
                out.append((Source(top, name, licence or "unknown"), ok))
    return out
