"""What the kernel's objects have: the public attribute names of named objects (`dir()`), asked silently.

Ghost text after `df.` keeps to what `df` has (`completion.prompt.known_names`); Edit with AI's
misspelt-attribute fix reads the same names (`editing.kernel_attributes`).
"""

from __future__ import annotations

import ast
import logging
import re
from collections.abc import Mapping, Sequence

from ghostbook.completion.calls import outside_strings
from ghostbook.completion.code_names import code_names
from ghostbook.completion.silent_runner import SilentRunner
from ghostbook.decoding.attributes import owner_at

log = logging.getLogger(__name__)

MAX_OWNERS = 4
# an owner asked about: a dotted name only (`df`, `np.random`), nothing that calls or indexes
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_IMPORT = re.compile(r"^\s*(?:from|import)\s")


def owner_at_cursor(cell_prefix: str) -> str | None:
    """The dotted name whose attribute the cursor (at the end of `cell_prefix`, its cell up to it) is
    taking, as the kernel has it: outside strings, comments and imports (`df` in `x = df.gro`), and
    not a name the cell binds above the cursor (not run yet: the kernel's object is an older one)."""
    lines = cell_prefix.rsplit("\n", 1)
    head = lines[-1]
    chars, in_string = outside_strings(head)
    if in_string or "#" in (ch for _, ch in chars) or _IMPORT.match(head):
        return None
    owner = owner_at(head)
    if owner is None or (len(lines) > 1 and owner.split(".", 1)[0] in code_names(lines[0]).bound):
        return None
    return owner


async def kernel_attributes(runner: SilentRunner, names: Sequence[str],
                            timeout: float = 3.0) -> Mapping[str, tuple[str, ...]]:
    """The public attribute names of each of `names` (dotted names of the kernel's namespace, at most
    `MAX_OWNERS`) in one silent request; {} where the kernel cannot say (busy, dead, not Python); a
    name the kernel does not have is left out."""
    owners = [name for name in names if _DOTTED.fullmatch(name)][:MAX_OWNERS]
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
