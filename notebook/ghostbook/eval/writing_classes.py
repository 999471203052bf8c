"""Where writing-mode suggestions miss: each task's cursor in a class, and per class how the requests did.

A class says what the cursor is taking and what the kernel knows of it there (the benchmark's own
`Prepared` task; its `NotebookResult`): an attribute of a kernel object (`df.`: the kernel answers what
`df` has), of a module (`np.`), of a module imported or a name bound in the cursor's own cell (not run
yet), of a name the kernel lacks (a cell failed) or of an expression (`df[cols].`); a dotted module in
an import (`from sklearn.`); after `(` or `,`, a call's argument or an item in
`[ ]` (a list or a subscript); a value after `=`, a module after `import `, a new line below an import
line, another new line, a new cell. Per class: forced requests exact, wrong (shown, not exact) and
empty; automatic ones shown and their precision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ghostbook.completion.calls import closers
from ghostbook.completion.kernel_attributes import owner_at_cursor
from ghostbook.completion.module_attributes import aliases
from ghostbook.decoding.attributes import owner_at
from ghostbook.eval.notebook_bench import NotebookResult
from ghostbook.eval.writing import Prepared
from ghostbook.eval.writing_report import summary

CLASSES = ("attribute: kernel object", "attribute: module", "attribute: module imported in its cell",
           "attribute: name bound in its cell", "attribute: name the kernel lacks", "attribute: expression",
           "dotted name in an import", "call argument", "list or subscript", "value after =", "after import",
           "line below an import", "new line", "new cell", "other")
_SUMMARY_NAME = re.compile(r"^(?:def |class )?([A-Za-z_]\w*)")
_IMPORT_LINE = re.compile(r"^\s*(?:import|from)\s")


def classify(prepared: Prepared) -> str:
    """The class (one of `CLASSES`) of the prepared task's cursor."""
    task = prepared.task
    cell = task.cells[task.index][: task.cursor]
    head = cell.rsplit("\n", 1)[-1]
    if task.kind == "after .":
        owner, above = owner_at_cursor(cell), cell[: len(cell) - len(head)]
        if _IMPORT_LINE.match(head):
            return "dotted name in an import"
        if owner is None and (named := owner_at(head)) is not None:
            in_cell = "module imported" if named.split(".", 1)[0] in aliases(above) else "name bound"
            return f"attribute: {in_cell} in its cell"
        if owner is None:
            return "attribute: expression"
        if owner not in prepared.attributes:
            return "attribute: name the kernel lacks"
        names = {m.group(1) for line in prepared.namespace if (m := _SUMMARY_NAME.match(line))}
        return "attribute: kernel object" if owner.split(".", 1)[0] in names else "attribute: module"
    if task.kind in ("after (", "after ,"):
        inner = closers(head)[:1]
        return {")": "call argument", "]": "list or subscript"}.get(inner, "other")
    if task.kind == "line":
        return "line below an import" if _IMPORT_LINE.match(task.line_above) else "new line"
    return {"after =": "value after =", "after import": "after import", "cell": "new cell"}.get(task.kind, "other")


def rows(prepared: Sequence[Prepared], results: Sequence[NotebookResult]) -> list[dict[str, object]]:
    """One row per class present (`CLASSES` order), over the tasks whose cells above all ran."""
    by_id = {r.task_id: r for r in results}
    groups: dict[str, list[NotebookResult]] = {}
    for p in prepared:
        if p.clean and p.task.task_id in by_id:
            groups.setdefault(classify(p), []).append(by_id[p.task.task_id])
    out = []
    for name in CLASSES:
        part = groups.get(name, [])
        if not part:
            continue
        forced, auto = summary(part, "forced"), summary(part, "auto")
        out.append({"class": name, "n": len(part), "forced exact": forced["exact"],
                    "forced wrong": _share(forced["shown"]) - _share(forced["exact"]),
                    "forced empty": forced["empty"], "auto shown": auto["shown"],
                    "auto precision": auto["precision"]})
    return out


def _share(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def format_rows(rows_: Sequence[dict[str, object]]) -> str:
    """The class table, as Markdown: n, then forced exact / wrong / empty, automatic shown / precision."""
    head = "| class | n | forced exact | forced wrong | forced empty | auto shown | auto precision |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    shares = ("forced exact", "forced wrong", "forced empty", "auto shown", "auto precision")
    for r in rows_:
        lines.append(f"| {r['class']} | {r['n']} | " + " | ".join(f"{100 * _share(r[k]):.1f}%" for k in shares) + " |")
    return "\n".join(lines)
