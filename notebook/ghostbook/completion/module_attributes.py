"""What a module's attributes are, for the cursor after `module.` (`plt.`, `np.random.`) or in
`from module import `.

The table (`data/attributes.json`, counted in the training corpus by `ghostbook train attribute-table`)
lists for each common module the attributes code writes after it or imports from it, commonest first,
each with how often it starts a statement, is a value, and is a from-import's first name, and the
commonest rest of its line in each role (`plt.` + `show()` as a statement, `fig, ax = plt.` +
`subplots()` as a value, `from sklearn.model_selection import ` + `train_test_split`). A module is
found by the notebook's own imports (`import matplotlib.pyplot as plt`), else by its usual alias
(`np`). The decoding's attribute rule (`decoding.attributes`) keeps the beam's lines to these
attributes; the candidates (`completion.candidates`) offer the commonest rests. Pure text, no model.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

_IMPORT_AS = re.compile(r"^[ \t]*import[ \t]+([A-Za-z_][\w.]*)(?:[ \t]+as[ \t]+([A-Za-z_]\w*))?[ \t]*$", re.M)
_FROM_AS = re.compile(r"^[ \t]*from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+([A-Za-z_]\w*)"
                      r"(?:[ \t]+as[ \t]+([A-Za-z_]\w*))?[ \t]*$", re.M)
_CHAIN = re.compile(r"(?<![\w.])([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)*)\.([A-Za-z_]\w*)?$")
_FROM_IMPORT = re.compile(r"^\s*from\s+([A-Za-z_][\w.]*)\s+import\s+\w*$")
# where the cursor takes a name from a module: a chain that starts a statement (`plt.show()`), one that
# is a value (`fig, ax = plt.subplots()`), a from-import's first name
ROLES = ("statement", "value", "import")
# a module's usual alias, where the notebook does not import it (yet)
USUAL = {"np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "sns": "seaborn", "nx": "networkx",
         "sm": "statsmodels.api", "tf": "tensorflow", "mpl": "matplotlib", "xr": "xarray", "sp": "scipy"}


def aliases(text: str) -> dict[str, str]:
    """The modules `text` imports, by the name it binds (`plt` -> `matplotlib.pyplot`; `import os.path`
    binds `os` -> `os`; `from matplotlib import pyplot as plt` -> `matplotlib.pyplot`)."""
    out: dict[str, str] = {}
    for m in _IMPORT_AS.finditer(text):
        module, alias = m.group(1), m.group(2)
        if alias:
            out[alias] = module
        else:
            out[module.split(".")[0]] = module.split(".")[0]
    for m in _FROM_AS.finditer(text):
        module, name, alias = m.groups()
        if name[0].islower():  # a submodule, likely; a class or a function is no module
            out[alias or name] = f"{module}.{name}"
    return out


@dataclass(frozen=True)
class ModuleAttributes:
    """The attributes of `module` (the one the cursor takes a name from) that the table lists, commonest
    first, and for each (files, commonest rest of the line) in the cursor's `role` (one of `ROLES`)."""

    module: str
    names: tuple[str, ...]
    seen: tuple[tuple[int, str], ...]
    role: str

    def rests(self) -> list[str]:
        """The commonest rests of the line in the cursor's role, the commonest attribute there first."""
        return [rest for n, rest in sorted(self.seen, key=lambda row: -row[0]) if rest]


def at_cursor(head: str, text: str) -> ModuleAttributes | None:
    """The table's attributes of the module that `head` (the cursor's line up to the cursor) takes a
    name from (`plt.`, `np.random.ra`, `from sklearn.metrics import `); `text` the notebook, whose
    imports name modules. None where no module is there or the table does not know it."""
    if (m := _FROM_IMPORT.search(head)) is not None:
        module, role = m.group(1), "import"
    elif (m := _CHAIN.search(head)) is not None:
        first = aliases(text).get(m.group(1)) or USUAL.get(m.group(1))
        if first is None:
            return None
        module, role = first + m.group(2), "value" if head[: m.start()].strip() else "statement"
    else:
        return None
    rows = table().get(module)
    if not rows:
        return None
    at = 1 + 2 * ROLES.index(role)
    try:
        return ModuleAttributes(module, tuple(str(r[0]) for r in rows),
                                tuple((int(r[at]), str(r[at + 1])) for r in rows), role)
    except (IndexError, TypeError, ValueError):  # a table of another shape
        return None


@functools.cache
def table() -> dict[str, list[list[str | int]]]:
    """module -> [[attribute, then per role: files, commonest rest], ...] (`ghostbook train
    attribute-table`); empty if the table is missing."""
    try:
        data = json.loads((resources.files("ghostbook.completion") / "data" / "attributes.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
