"""The attribute fixes' look at the kernel: what the objects an AttributeError names have
(`completion.kernel_attributes`)."""

from __future__ import annotations

import dataclasses
import re

from ghostbook.completion.kernel_attributes import kernel_attributes
from ghostbook.completion.silent_runner import SilentRunner
from ghostbook.editing.engine import EditRequest
from ghostbook.editing.errors_text import ErrorInfo
from ghostbook.editing.fixes import NamespaceFacts, attribute_owners


async def with_kernel_attributes(request: EditRequest, runner: SilentRunner | None) -> EditRequest:
    """For an AttributeError: `request` with what the kernel's objects of that type have (the
    misspelt-attribute fix reads them)."""
    if request.error is None or runner is None:
        return request
    owners = attribute_owners(request.error, NamespaceFacts.from_lines(request.namespace))
    owners += [name for name in owners_in_source(request.source, request.error) if name not in owners]
    if not owners:
        return request
    return dataclasses.replace(request, attributes=await kernel_attributes(runner, owners))


def owners_in_source(source: str, error: ErrorInfo) -> list[str]:
    """The names the cell writes just before the missing attribute (`m.predcit` → m): the kernel's
    namespace summary may not have caught up with the run that failed."""
    missing = re.search(r"has no attribute '(\w+)'", error.evalue) if error.ename == "AttributeError" else None
    if missing is None:
        return []
    return list(dict.fromkeys(re.findall(rf"\b([A-Za-z_]\w*)\.{missing.group(1)}\b", source)))
