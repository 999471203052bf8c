"""What the kernel's objects have: `dir()` of named objects, asked silently, for the attribute fixes."""

from __future__ import annotations

import ast
import logging
from collections.abc import Mapping, Sequence

from ghostbook.completion.namespace_provider import SilentRunner

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
