"""The notebook's habits (#40): what it writes right after an assignment, where its last assignments
were each followed alike (`x = np.arange(5)` then `print(x)`, `y = ...` then `print(y)`; `df = ...`
then `df.head()`). Below the cursor's assignment the habit gives the line with the new name
(`seq = np.arange(5, 12)` then `print(seq)`): a candidate for `completion.candidates`, at the line's
start and once it has begun as the habit does (`print(` -> `seq)`). Pure text, no model here.
"""

from __future__ import annotations

import re

# the last this many assignments followed alike make a habit
HABIT = 2
# lines read for the habit (nearest first)
HABIT_LINES = 400

_ASSIGNED = re.compile(r"([A-Za-z_]\w*)[ \t]*=(?!=)")
_HOLE = "\x00"


def habit_rest(head: str, before: str) -> str | None:
    """The rest of the cursor's line (`head`, its text before the cursor, at the top level; `before`
    the notebook's text above that line) that the notebook's habit writes right below the assignment
    above it; None where the line above assigns no name, the last `HABIT` assignments followed by a
    line were not followed alike, or the habit's line does not begin as `head` does."""
    if head[:1].isspace() or not before.endswith("\n") or before.endswith("\n\n"):
        return None
    lines = before[:-1].split("\n")[-HABIT_LINES:]
    name = _assigned(lines[-1])
    if name is None:
        return None
    habits: list[str | None] = []
    for j in range(len(lines) - 2, -1, -1):  # each assignment and the line right below it, nearest first
        if (assigned := _assigned(lines[j])) is None or not _top_level_code(lines[j + 1]):
            continue
        habits.append(_template(lines[j + 1], assigned))
        if len(habits) == HABIT:
            break
    if len(habits) < HABIT or habits[0] is None or habits.count(habits[0]) < HABIT:
        return None
    line = habits[0].replace(_HOLE, name)
    typed = head.lstrip()
    return line[len(typed):] if line.startswith(typed) and len(line) > len(typed) else None


def _assigned(line: str) -> str | None:
    """The one name a top-level line assigns (`x = ...`), or None."""
    m = _ASSIGNED.match(line)
    return m.group(1) if m is not None else None


def _top_level_code(line: str) -> bool:
    return bool(line.strip()) and not line[:1].isspace() and not line.startswith(("#", "%", "!"))


def _template(line: str, name: str) -> str | None:
    """`line` (trailing spaces off) with `name` (a whole word, not an attribute) as the hole; None where
    it has no `name`."""
    out = re.sub(rf"(?<![\w.]){re.escape(name)}(?!\w)", _HOLE, line.rstrip())
    return out if _HOLE in out else None
