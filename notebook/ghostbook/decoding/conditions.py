"""No `elif` repeats a condition its chain already tests: below `if dice_value == 1:` and `elif
dice_value == 2:`, the model wrote `elif dice_value == 2:` again (writing an unseen notebook in the
browser). That branch is dead code, never the line a user writes next."""

from __future__ import annotations

import re
from dataclasses import dataclass

_BRANCH = re.compile(r"^([ \t]*)(if|elif)\s+(.+?)\s*:\s*(?:#.*)?$")


@dataclass(frozen=True)
class RepeatedCondition:
    """A suggestion whose first line completes the cursor's line to an `elif` testing a condition
    (equal up to whitespace) that the `if`/`elif` chain above it, at the same indentation, already
    tests is no suggestion."""

    before: str  # the cursor's cell up to the cursor
    after: str  # and from the cursor on

    def cut(self, text: str) -> str:
        head, _, line = self.before.rpartition("\n")
        m = _BRANCH.match(line + text.split("\n", 1)[0] + self.after.split("\n", 1)[0])
        if m is None or m.group(2) != "elif" or not head:
            return text
        return "" if _bare(m.group(3)) in chain_conditions(head.split("\n"), m.group(1)) else text


def chain_conditions(lines: list[str], indent: str) -> set[str]:
    """The conditions (whitespace removed) of the `if`/`elif` chain that the lines above end with at
    `indent`; none where they end with something else at that indentation."""
    return {_bare(test) for test in _chain(lines, indent) or ()}


def next_branch(lines: list[str], indent: str) -> str | None:
    """The `elif` that goes on the chain the lines above end with at `indent`, where each of its tests
    compares one expression with whole numbers in steps (`dice_value == 1`, `== 2`, `== 3`: `elif
    dice_value == 4:`); None elsewhere."""
    found = [_EQUALS_INT.match(test) for test in _chain(lines, indent) or ()]
    if not found or not all(found) or len({_bare(m.group(1)) for m in found if m}) != 1:
        return None
    values = [int(m.group(2)) for m in found if m]
    step = values[1] - values[0] if len(values) > 1 else 1
    if step == 0 or any(b - a != step for a, b in zip(values, values[1:], strict=False)):
        return None
    lhs = found[-1].group(1) if found[-1] else ""
    return f"elif {lhs} == {values[-1] + step}:"


_EQUALS_INT = re.compile(r"^(.+?)\s*==\s*(-?\d+)$")


def _chain(lines: list[str], indent: str) -> list[str] | None:
    """The tests of the whole `if`/`elif` chain the lines end with at `indent`, from its `if` on (a
    branch's body, blank lines and comments between); None where they end with something else there."""
    tests: list[str] = []
    for line in reversed(lines):
        if not line.strip() or line.lstrip().startswith("#") or len(line) - len(line.lstrip()) > len(indent):
            continue
        m = _BRANCH.match(line)
        if m is None or m.group(1) != indent:
            return None
        tests.append(m.group(3))
        if m.group(2) == "if":
            return tests[::-1]
    return None


def _bare(code: str) -> str:
    return "".join(code.split())
