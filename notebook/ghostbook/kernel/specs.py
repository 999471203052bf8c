"""Installed kernelspecs, as plain dicts for the kernel chooser."""

from __future__ import annotations

from typing import Any

from jupyter_client.kernelspec import KernelSpecManager


def list_kernelspecs(ksm: KernelSpecManager | None = None) -> list[dict[str, str]]:
    """Return `[{name, display_name, language}]` for every installed kernelspec, sorted by name."""
    specs: dict[str, Any] = (ksm or KernelSpecManager()).get_all_specs()
    out = []
    for name, entry in sorted(specs.items()):
        spec = entry.get("spec", {})
        out.append(
            {
                "name": name,
                "display_name": spec.get("display_name", name),
                "language": spec.get("language", ""),
            }
        )
    return out


def default_kernel_name(ksm: KernelSpecManager | None = None) -> str | None:
    """`python3` when installed, else the first installed kernelspec, else None."""
    names = [s["name"] for s in list_kernelspecs(ksm)]
    if "python3" in names:
        return "python3"
    return names[0] if names else None
