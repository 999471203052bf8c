"""An answer's changes to the notebook, read leniently from its Markdown.

The system prompt asks for one marker line before each changed cell's code block, naming the cell by the
id the prompt showed it with:

    Cell 3f2a9c:              the cell's whole new code follows (```python block)
    New cell after 3f2a9c:    a new code cell below that one ("new cell at the top": above all)
    Delete cell 3f2a9c        the cell goes (no block)

Models dress markers up (a heading, bold, backticks, "Replace cell", "Insert after", "cell 2" by its number)
or copy the prompt's own `# cell <id>` line into the block (one block may hold several cells, each under
its line): all of that is read, and a cell copied back unchanged is no change (`drop_unchanged`). A block
whose marker names no known cell, and a block with no marker, is not a change: the panel offers it as an
insertion (its "Insert below" button), and `notes` says what was not understood.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

ChangeKind = Literal["modify", "insert", "delete"]

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
_ID = r"[`'\"*_]*(?P<id>[A-Za-z0-9_-]+?)[`'\"*_]*"
_TOP = re.compile(r"\b(?:new|insert|add)\b.*\b(?:at\s+the\s+(?:top|start|beginning)|first)\b", re.I)
_INSERT = re.compile(
    rf"\b(?:new|insert|add)\b.*?\b(?P<where>after|below|before|above)\s+(?:the\s+)?(?:cell\s+)?{_ID}\s*$", re.I)
_DELETE = re.compile(rf"^(?:delete|remove|drop)\s+(?:the\s+)?(?:cell\s+)?{_ID}\s*\.?$", re.I)
_MODIFY = re.compile(rf"^(?:(?:replace|modify|change|update|rewrite|edit)\s+)?(?:the\s+)?cell\s+{_ID}"
                     rf"(?:\s*\((?:[^)]*)\))?\s*$", re.I)
_INNER = re.compile(r"^#\s*(?:%%\s*)?cell\s+(?P<id>[A-Za-z0-9_-]+)\s*$", re.I)  # the prompt's own marker
MAX_MARKER_WORDS = 10


@dataclass(frozen=True)
class PlannedChange:
    """`modify`: cell `cell_id` gets `source`; `insert`: a new code cell with `source` after cell `cell_id`
    (None: at the top); `delete`: cell `cell_id` goes."""

    kind: ChangeKind
    cell_id: str | None
    source: str = ""


@dataclass
class Plan:
    changes: list[PlannedChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # markers that named no known cell, and the like


@dataclass(frozen=True)
class _Marker:
    kind: ChangeKind
    token: str | None  # the cell as the answer named it (an id or a number); None: the top


def unchanged_answer(cells: Sequence[tuple[str, str]]) -> str:
    """The draft an answer is decoded against (speculative edits, `decoding.edits`): every (id, source) code
    cell as a change that keeps it, in the asked-for form, its block opening with the `# cell <id>` line the
    prompt shows. Where the answer writes either marker, the drafter anchors there and drafts that cell's
    original code, as Edit with AI drafts its cell."""
    return "".join(f"Cell {cell_id}:\n```python\n# cell {cell_id}\n{source.strip(chr(10))}\n```\n\n"
                   for cell_id, source in cells)


def parse_plan(answer: str, cell_ids: Sequence[str]) -> Plan:
    """The changes `answer` proposes to the notebook whose cells are `cell_ids` (in order)."""
    plan = Plan()
    pending: _Marker | None = None
    lines = answer.split("\n")
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            marker = _marker(lines[i])
            if marker is not None and marker.kind == "delete":
                _delete(plan, marker, cell_ids)
            elif marker is not None:
                if pending is not None:
                    plan.notes.append(f"“{_name(pending)}” has no code block: left out.")
                pending = marker
            i += 1
            continue
        fence = opening.group(1)
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(fence)), len(lines))
        head, parts = _split_inner(lines[i + 1:end])
        if pending is not None and not "".join(head).strip() and parts:
            head, parts = parts[0][1], parts[1:]  # the block repeats its marker as the prompt's `# cell` line
        if pending is not None:
            _block(plan, pending, "\n".join(head).strip("\n"), cell_ids)
        for cell_id, body in parts:  # a block of several cells, each under its `# cell <id>` line
            _block(plan, _Marker("modify", cell_id), "\n".join(body).strip("\n"), cell_ids)
        pending = None
        i = end + 1
    return plan


def drop_unchanged(plan: Plan, sources: Mapping[str, str]) -> Plan:
    """`plan` without the cells it modifies into their own `sources` (cell id -> text): a model that copies
    the prompt's cells back proposes nothing for them."""
    def unchanged(change: PlannedChange) -> bool:
        known = sources.get(change.cell_id or "")
        return change.kind == "modify" and known is not None and change.source.strip() == known.strip()

    return Plan([change for change in plan.changes if not unchanged(change)], plan.notes)


def _split_inner(body: list[str]) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """A block's lines before its first `# cell <id>` line, and each such line's id with the lines under it."""
    head: list[str] = []
    parts: list[tuple[str, list[str]]] = []
    for line in body:
        if (inner := _INNER.match(line.strip())) is not None:
            parts.append((inner.group("id"), []))
        else:
            (parts[-1][1] if parts else head).append(line)
    return head, parts


def _marker(line: str) -> _Marker | None:
    text = re.sub(r"^(?:[\s#>*_-]|\d+[.)]\s)+|[\s:*_]+$", "", line.strip())
    if not text or len(text.split()) > MAX_MARKER_WORDS:
        return None
    if _TOP.search(text):
        return _Marker("insert", None)
    if (match := _INSERT.search(text)) is not None:
        where = match.group("where").lower()
        return _Marker("insert", match.group("id") if where in ("after", "below") else f"<{match.group('id')}")
    if (match := _DELETE.match(text)) is not None:
        return _Marker("delete", match.group("id"))
    if (match := _MODIFY.match(text)) is not None:
        return _Marker("modify", match.group("id"))
    return None


def _resolve(token: str, cell_ids: Sequence[str]) -> str | None:
    """The id of the cell `token` names: its id (any case) or its number (1-based); None when none."""
    by_lower = {cell_id.lower(): cell_id for cell_id in cell_ids}
    if token.lower() in by_lower:
        return by_lower[token.lower()]
    if token.isdigit() and 1 <= int(token) <= len(cell_ids):
        return cell_ids[int(token) - 1]
    return None


def _block(plan: Plan, marker: _Marker, code: str, cell_ids: Sequence[str]) -> None:
    if marker.token is None:
        plan.changes.append(PlannedChange("insert", None, code))
        return
    before = marker.token.startswith("<")
    cell_id = _resolve(marker.token.lstrip("<"), cell_ids)
    if cell_id is None:
        plan.notes.append(f"“{_name(marker)}” names no cell of this notebook: its code is offered as a new cell.")
        return
    if before:  # a new cell before one is a new cell after the one above it
        index = list(cell_ids).index(cell_id)
        plan.changes.append(PlannedChange("insert", cell_ids[index - 1] if index > 0 else None, code))
    elif marker.kind == "insert":
        plan.changes.append(PlannedChange("insert", cell_id, code))
    elif any(change.kind != "insert" and change.cell_id == cell_id for change in plan.changes):
        plan.notes.append(f"Cell {marker.token} is changed twice: the first change is kept.")
    else:
        plan.changes.append(PlannedChange("modify", cell_id, code))


def _delete(plan: Plan, marker: _Marker, cell_ids: Sequence[str]) -> None:
    cell_id = _resolve(marker.token or "", cell_ids)
    if cell_id is None:
        plan.notes.append(f"“{_name(marker)}” names no cell of this notebook: left out.")
    elif any(change.kind != "insert" and change.cell_id == cell_id for change in plan.changes):
        plan.notes.append(f"Cell {marker.token} is changed twice: the first change is kept.")
    else:
        plan.changes.append(PlannedChange("delete", cell_id))


def _name(marker: _Marker) -> str:
    token = (marker.token or "").lstrip("<")
    return {"modify": f"Cell {token}", "insert": f"New cell after {token}", "delete": f"Delete cell {token}"}[
        marker.kind]
