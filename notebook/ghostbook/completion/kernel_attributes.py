"""What the kernel's objects have: the public attribute names of named objects (`dir()`), asked silently.

Ghost text after `df.` keeps to what `df` has (`completion.prompt.known_names`); in `from X import `
the first name is one that the module X, as the kernel has imported it, has (nothing is imported to
ask: a module the kernel has not imported is unknown); Edit with AI's misspelt-attribute fix reads the
same names (`editing.kernel_attributes`).
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
_FROM_IMPORT = re.compile(r"^\s*from\s+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s+import\s+\w*$")
# the owner of `from X import `: the module X, spelled so that no name of the namespace is
MODULE = "module "


def owner_at_cursor(cell_prefix: str) -> str | None:
    """The dotted name whose attribute the cursor (at the end of `cell_prefix`, its cell up to it) is
    taking, as the kernel has it: outside strings, comments and imports (`df` in `x = df.gro`), and
    not a name the cell binds above the cursor (not run yet: the kernel's object is an older one). In a
    from-import's first name, the module (`MODULE` + `sklearn.metrics`)."""
    lines = cell_prefix.rsplit("\n", 1)
    head = lines[-1]
    if (m := _FROM_IMPORT.match(head)) is not None:
        return MODULE + m.group(1)
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
    owners = [name for name in names if _DOTTED.fullmatch(name.removeprefix(MODULE))][:MAX_OWNERS]
    if not owners:
        return {}
    expressions = {f"a{i}": _names_of(name) for i, name in enumerate(owners)}
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


def _names_of(owner: str) -> str:
    """The expression for the public names of `owner`: a dotted name's attributes; for `MODULE` + a
    module's name, the module's and its submodules' (listed, not imported: `from sklearn import
    metrics` before any `sklearn.metrics`), only if the kernel has imported the module (else an error)."""
    if not owner.startswith(MODULE):
        return f"[n for n in dir({owner}) if not n.startswith('_')]"
    module = f"__import__('sys').modules[{owner.removeprefix(MODULE)!r}]"
    return (f"(lambda m: sorted({{n for n in dir(m) if not n.startswith('_')}} | {{i.name for i in "
            f"__import__('pkgutil').iter_modules(getattr(m, '__path__', [])) if not i.name.startswith('_')}}))"
            f"({module})")
