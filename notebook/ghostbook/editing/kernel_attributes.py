"""What the kernel's objects have: `dir()` of named objects, asked silently, for the attribute fixes."""

from __future__ import annotations

import ast
import dataclasses
import logging
import re
from collections.abc import Mapping, Sequence

from ghostbook.completion.namespace_provider import SilentRunner
from ghostbook.editing.engine import EditRequest
from ghostbook.editing.errors_text import ErrorInfo
from ghostbook.editing.fixes import NamespaceFacts, attribute_owners

log = logging.getLogger(__name__)

MAX_OWNERS = 4


async def kernel_attributes(runner: SilentRunner, names: Sequence[str],
                            timeout: float = 3.0) -> Mapping[str, tuple[str, ...]]:
    """The public attribute names of each of `names` (plain identifiers of the kernel's namespace) in
    one silent request; {} where the kernel cannot say (busy, dead, not Python)."""
    owners = [name for name in names if name.isidentifier()][:MAX_OWNERS]
    if not owners:
        return {}
    expressions = {f"a{i}": f"[n for n in dir({name}) if not n.startswith('_')]" for i, name in enumerate(owners)}
    try:
        reply = await runner.run_silent("", timeout, expressions)
    except Exception as exc:
        log.info("attributes unavailable: %s", exc)
        return {}
    found: dict[str, tuple[str, ...]] = {}
    results = reply.get("user_expressions", {}) if isinstance(reply, dict) else {}
    for key, name in zip(expressions, owners, strict=True):
        result = results.get(key, {})
        if result.get("status") != "ok":
            continue
        try:
            value = ast.literal_eval(result["data"]["text/plain"])
        except (KeyError, ValueError, SyntaxError):
            continue
        if isinstance(value, list):
            found[name] = tuple(str(item) for item in value)
    return found


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
