"""The state of one open notebook: cells, kernel, execution queue, structural undo stack."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from ghostbook import protocol as p
from ghostbook.session.outputs import CellOutputs
from ghostbook.session.widgets import WidgetStore

CELL_KEYS = {"id", "cell_type", "source", "metadata", "outputs", "execution_count"}


def new_cell_id() -> str:
    return uuid.uuid4().hex[:12]


def used_attachments(source: str, attachments: dict[str, Any]) -> dict[str, Any]:
    """The attachments a Markdown cell's text still names: JupyterLab drops the others when it saves
    (packages/notebook/src/panel.ts, `_onSave`: a key that `source.includes` no more is removed)."""
    return {name: bundle for name, bundle in attachments.items() if name in source}


@dataclass
class Cell:
    id: str
    cell_type: str
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    outputs: CellOutputs = field(default_factory=CellOutputs)
    execution_count: int | None = None
    state: str = "idle"  # idle | queued | running (never saved)
    extra: dict[str, Any] = field(default_factory=dict)  # attachments and unknown keys, kept as is

    @classmethod
    def from_nbformat(cls, cell: dict[str, Any], taken: set[str]) -> Cell:
        cell_id = str(cell.get("id") or "")
        if not cell_id or cell_id in taken:
            cell_id = new_cell_id()
        taken.add(cell_id)
        source = cell.get("source", "")
        return cls(
            id=cell_id,
            cell_type=cell["cell_type"],
            source="".join(source) if isinstance(source, list) else str(source),
            metadata=dict(cell.get("metadata") or {}),
            outputs=CellOutputs.from_json(list(cell.get("outputs") or [])),
            execution_count=cell.get("execution_count"),
            extra={k: v for k, v in cell.items() if k not in CELL_KEYS},
        )

    def to_nbformat(self) -> dict[str, Any]:
        cell: dict[str, Any] = {"id": self.id, "cell_type": self.cell_type, "metadata": self.metadata,
                                "source": self.source, **self.extra}
        if self.cell_type == "markdown" and isinstance(cell.get("attachments"), dict):
            cell["attachments"] = used_attachments(self.source, cell["attachments"])
        if self.cell_type == "code":
            cell["outputs"] = self.outputs.to_json()
            cell["execution_count"] = self.execution_count
        return cell

    def to_wire(self, with_source: bool = True) -> p.Cell:
        return p.Cell.model_construct(id=self.id, cell_type=self.cell_type, source=self.source if with_source else "",
                                      metadata=self.metadata, outputs=self.outputs.to_wire(),
                                      execution_count=self.execution_count, state=self.state,
                                      attachments=self.extra.get("attachments") or {})


@dataclass
class KernelInfo:
    status: str = "starting"  # starting | idle | busy | restarting | dead
    name: str = ""
    display_name: str = ""
    reason: str | None = None
    can_install: bool = False  # a local Python kernel with pip or uv: missing packages get an Install button

    def to_wire(self) -> p.KernelInfo:
        return p.KernelInfo.model_construct(status=self.status, name=self.name, display_name=self.display_name,
                                            reason=self.reason, can_install=self.can_install)


@dataclass
class StdinPrompt:
    cell_id: str
    prompt: str
    password: bool


# ---- the structural undo stack (`z`): one step per operation, undone by session/structure.py ----


@dataclass
class Deleted:
    """Cells deleted, with the index each had (ascending)."""

    removed: list[tuple[int, Cell]]


@dataclass
class Replaced:
    """Cells removed (with their indices) and the ids of the cells put in their place: a merge, a split,
    a paste (nothing removed)."""

    removed: list[tuple[int, Cell]]
    added: list[str]


@dataclass
class Moved:
    """Cells moved, with the index each had before (ascending)."""

    before: list[tuple[int, str]]


@dataclass
class Retyped:
    """Cells whose type changed: id, old type, old outputs (nbformat) and execution count."""

    cells: list[tuple[str, str, list[dict[str, Any]], int | None]]


@dataclass
class Changed:
    """Changes to several cells (`apply_cell_changes`): the changed cells' old sources, the ids of the cells
    added, and the cells removed with their indices (ascending)."""

    sources: list[tuple[str, str]]
    added: list[str]
    removed: list[tuple[int, Cell]]


Step = Deleted | Replaced | Moved | Retyped | Changed


@dataclass
class NotebookData:
    path: str
    cells: list[Cell]
    metadata: dict[str, Any] = field(default_factory=dict)
    nbformat_minor: int = 5
    revision: int = 0
    kernel: KernelInfo = field(default_factory=KernelInfo)
    queue: list[str] = field(default_factory=list)  # cell ids waiting to run, in order
    running: str | None = None  # cell id whose request the kernel is running
    msg_cells: dict[str, str] = field(default_factory=dict)  # kernel msg_id -> cell id
    undo: list[Step] = field(default_factory=list)  # structural undo stack (session/structure.py)
    stdin: StdinPrompt | None = None
    display_cells: dict[str, set[str]] = field(default_factory=dict)  # display_id -> cell ids
    widgets: WidgetStore = field(default_factory=WidgetStore)  # saved in metadata.widgets
    # restart_and_run_all: "asked" until the kernel goes down, "down" until it is up again, then the cells run
    run_after_restart: str | None = None
    keep_full_outputs: bool = False  # long streams keep their dropped middle for the runtime to store

    @classmethod
    def from_nbformat(cls, path: str, notebook: dict[str, Any]) -> NotebookData:
        taken: set[str] = set()
        cells = [Cell.from_nbformat(cell, taken) for cell in notebook.get("cells", [])]
        spec = (notebook.get("metadata") or {}).get("kernelspec") or {}
        kernel = KernelInfo(name=str(spec.get("name") or ""), display_name=str(spec.get("display_name") or ""))
        metadata = dict(notebook.get("metadata") or {})
        widgets = WidgetStore.from_metadata(metadata.pop("widgets", None))
        return cls(path=path, cells=cells, metadata=metadata,
                   nbformat_minor=max(5, int(notebook.get("nbformat_minor") or 5)), kernel=kernel, widgets=widgets)

    def to_nbformat(self) -> dict[str, Any]:
        metadata = self.metadata
        widgets = self.widgets.to_metadata(self.all_outputs())
        if widgets is not None:
            metadata = {**metadata, "widgets": widgets}
        return {"cells": [cell.to_nbformat() for cell in self.cells], "metadata": metadata,
                "nbformat": 4, "nbformat_minor": self.nbformat_minor}

    def all_outputs(self) -> list[list[dict[str, Any]]]:
        """Every code cell's outputs, as saved."""
        return [cell.outputs.to_json() for cell in self.cells if cell.cell_type == "code"]

    def index_of(self, cell_id: str) -> int:
        for index, cell in enumerate(self.cells):
            if cell.id == cell_id:
                return index
        raise KeyError(cell_id)

    def find(self, cell_id: str) -> Cell | None:
        for cell in self.cells:
            if cell.id == cell_id:
                return cell
        return None

    def snapshot(self, with_sources: bool = True) -> dict[str, Any]:
        """The document's part of a `snapshot` message (its fields); without sources for a tab that reads
        them from the shared texts."""
        stdin = self.stdin
        cells = [cell.to_wire(with_sources) for cell in self.cells]
        return {
            "revision": self.revision,
            "path": self.path,
            "notebook": p.NotebookContent.model_construct(cells=cells, metadata=self.metadata),
            "kernel": self.kernel.to_wire(),
            "widgets": self.widgets.to_wire(),
            "stdin": None if stdin is None else p.StdinPrompt.model_construct(
                cell_id=stdin.cell_id, prompt=stdin.prompt, password=stdin.password),
        }
