"""A plan accepted whole, as the review panel sends it (`frontend/src/ask/plan-review.ts`, `wire()`): each
change against the source it was reviewed on; a change that changes nothing is left out."""

from __future__ import annotations

from collections.abc import Mapping

from ghostbook import protocol as p
from ghostbook.asking.plan import Plan


def accepted_changes(plan: Plan, sources: Mapping[str, str]) -> list[p.CellChange]:
    """The `apply_cell_changes` changes of `plan` accepted as proposed (`sources`: cell id → its source)."""
    changes = []
    for change in plan.changes:
        if change.kind == "insert":
            if change.source.strip():
                changes.append(p.CellChange(kind="insert", after=change.cell_id, source=change.source))
            continue
        original = sources.get(change.cell_id or "", "")
        if change.kind == "delete":
            changes.append(p.CellChange(kind="delete", cell_id=change.cell_id, expected=original))
        elif change.source != original:
            changes.append(p.CellChange(kind="modify", cell_id=change.cell_id, source=change.source,
                                        expected=original))
    return changes
