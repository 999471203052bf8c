"""Server -> client messages. Document events carry the session's increasing `revision` and the `origin`
tab (null: the server's own) so a tab can skip the echo of its own edits; replies repeat the request's `ref`.

Build them with `Model.model_construct(...)` (no validation: the hot path) and send them through
`wire.encode`, which serialises once per broadcast.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from ghostbook.protocol.client import CellType, Range
from ghostbook.protocol.shapes import (
    Attachments,
    CatalogueModel,
    Cell,
    CellState,
    CommTarget,
    CompletionSettings,
    DataColumn,
    DayTally,
    EditStats,
    KernelInfo,
    KernelSpecInfo,
    KindTally,
    ModelStatus,
    ModelTally,
    NotebookContent,
    Output,
    SaveInfo,
    Shape,
    SharedTexts,
    SourceChanged,
    StdinPrompt,
    SuggestionStats,
    Tally,
    TelemetryFilter,
    Variable,
    WidgetModelState,
    omitted,
)


class ServerEvent(Shape):
    """Any server -> client message."""


class DocumentEvent(ServerEvent):
    revision: int
    origin: str | None = Field(description="the tab whose operation it was; null: the server's own")


# ---- the document ------------------------------------------------------------------------------


class Snapshot(ServerEvent):
    """The whole state, first thing on every (re)connection."""

    type: Literal["snapshot"] = "snapshot"
    client_id: str
    revision: int
    path: str
    notebook: NotebookContent
    kernel: KernelInfo
    kernelspecs: list[KernelSpecInfo]
    save: SaveInfo
    widgets: dict[str, WidgetModelState] = Field(description="the widget models the session keeps, by model id")
    stdin: StdinPrompt | None = Field(description="the prompt waiting for an answer, if any")
    text: SharedTexts
    reloaded: bool | None = omitted("sent to every tab after a Revert: the file's text wins over this tab's "
                                    "unacknowledged edits (a reconnect's snapshot would rebase them)")


class CellInserted(DocumentEvent):
    type: Literal["cell_inserted"] = "cell_inserted"
    index: int
    cell: Cell


class CellsDeleted(DocumentEvent):
    type: Literal["cells_deleted"] = "cells_deleted"
    cell_ids: list[str]


class CellMoved(DocumentEvent):
    type: Literal["cell_moved"] = "cell_moved"
    cell_id: str
    index: int


class CellsReplaced(DocumentEvent):
    """Remove `removed`, then insert `cells` at `index`: a merge, a split, a paste, or the undo of one."""

    type: Literal["cells_replaced"] = "cells_replaced"
    removed: list[str]
    index: int
    cells: list[Cell]


class CellsReordered(DocumentEvent):
    """The whole new order of the cells; `cell_ids`: those that moved."""

    type: Literal["cells_reordered"] = "cells_reordered"
    order: list[str]
    cell_ids: list[str]


class SourceSet(DocumentEvent):
    type: Literal["source_set"] = "source_set"
    cell_id: str
    source: str


class SourcesReplaced(DocumentEvent):
    """One `replace_sources`: every changed cell, in one revision."""

    type: Literal["sources_replaced"] = "sources_replaced"
    changes: list[SourceChanged]


class CellTypeSet(DocumentEvent):
    type: Literal["cell_type_set"] = "cell_type_set"
    cell_id: str
    cell_type: CellType


class CellMetadataSet(DocumentEvent):
    """A cell's whole metadata after a `set_cell_metadata`."""

    type: Literal["cell_metadata_set"] = "cell_metadata_set"
    cell_id: str
    metadata: dict[str, Any]


class AttachmentsSet(DocumentEvent):
    """A cell's whole attachments after a change."""

    type: Literal["attachments_set"] = "attachments_set"
    cell_id: str
    attachments: Attachments


class CellStateEvent(DocumentEvent):
    """A cell was queued, started or finished (`origin` is always null: the kernel's)."""

    type: Literal["cell_state"] = "cell_state"
    cell_id: str
    state: CellState
    execution_count: int | None


class CellOutputs(ServerEvent):
    """The cell's whole, capped output list."""

    type: Literal["cell_outputs"] = "cell_outputs"
    revision: int
    cell_id: str
    outputs: list[Output]


class TextUpdated(ServerEvent):
    """Another tab's typing, or an operation's change of the texts: a Yjs update (base64)."""

    type: Literal["y_update"] = "y_update"
    update: str
    origin: str | None = Field(description="the tab that typed; null: the server's own")


class PresenceUpdated(ServerEvent):
    """Another tab's presence (cursor, selection, name): a Yjs awareness update."""

    type: Literal["awareness"] = "awareness"
    update: str


class PresenceLeft(ServerEvent):
    """A tab closed: drop its presence."""

    type: Literal["presence_left"] = "presence_left"
    y_client: int


# ---- kernel, saving, the file ---------------------------------------------------------------------


class KernelStatusEvent(ServerEvent):
    type: Literal["kernel_status"] = "kernel_status"
    kernel: KernelInfo


class StdinRequest(ServerEvent):
    type: Literal["stdin_request"] = "stdin_request"
    cell_id: str
    prompt: str
    password: bool


class StdinClosed(ServerEvent):
    """The prompt was answered (maybe in another tab), or its cell finished."""

    type: Literal["stdin_closed"] = "stdin_closed"
    cell_id: str


class SaveStatusEvent(ServerEvent):
    type: Literal["save_status"] = "save_status"
    save: SaveInfo


class NotebookRenamed(ServerEvent):
    """Renamed or moved, here or in the file browser: the tab follows `path`."""

    type: Literal["notebook_renamed"] = "notebook_renamed"
    path: str


class NotebookDeleted(ServerEvent):
    """The file was deleted: nothing saves any more; the tab keeps its text."""

    type: Literal["notebook_deleted"] = "notebook_deleted"
    path: str


class FileChangedOnDisk(ServerEvent):
    """The file changed outside the session since it was opened or saved: to every tab, with save_status
    "conflict"; edits are kept, not saved, until a tab answers resolve_file_change."""

    type: Literal["file_changed_on_disk"] = "file_changed_on_disk"
    path: str


class InstallProgress(ServerEvent):
    """pip's (or uv's) output while installing `package` for `cell_id`, to every tab: `text` is the whole log
    so far; the last has `done`, and `ok` when it worked. A refusal: one failed message, to the asker only."""

    type: Literal["install_progress"] = "install_progress"
    ref: str | None
    cell_id: str
    package: str
    text: str
    done: bool
    ok: bool


# ---- replies ---------------------------------------------------------------------------------------


class CompleteReply(ServerEvent):
    type: Literal["complete_reply"] = "complete_reply"
    ref: str | None
    matches: list[str]
    cursor_start: int
    cursor_end: int
    types: list[str | None] = Field(description="each match's type, where the kernel knows it")


class InspectReply(ServerEvent):
    type: Literal["inspect_reply"] = "inspect_reply"
    ref: str | None
    found: bool
    data: dict[str, str] = Field(description="a mime bundle")


class Pong(ServerEvent):
    type: Literal["pong"] = "pong"
    ref: str | None


class ErrorMessage(ServerEvent):
    type: Literal["error"] = "error"
    ref: str | None
    message: str


class Fatal(ServerEvent):
    """The notebook cannot be opened; the socket closes after it."""

    type: Literal["fatal"] = "fatal"
    message: str


# ---- completion and editing -------------------------------------------------------------------------


class Suggestion(ServerEvent):
    """Streamed ghost text: `text` is the whole post-processed suggestion so far; the last has done=true. An
    empty text with done=true means "nothing to suggest"."""

    type: Literal["suggestion"] = "suggestion"
    ref: str
    cell_id: str
    cursor: int
    text: str
    done: bool
    source: Literal["model", "cache", "typed_through"]
    confidence: float | None = omitted("the estimate that the user types the first line exactly "
                                       "(completion/confidence.py)")


class SuggestionError(ServerEvent):
    type: Literal["suggestion_error"] = "suggestion_error"
    ref: str
    message: str


class CompletionStats(ServerEvent):
    type: Literal["completion_stats"] = "completion_stats"
    stats: SuggestionStats


class SettingsMessage(ServerEvent):
    type: Literal["settings"] = "settings"
    ref: str | None
    settings: CompletionSettings
    model: ModelStatus


class ModelStatusEvent(ServerEvent):
    type: Literal["model_status"] = "model_status"
    model: ModelStatus


class EditModelStatusEvent(ServerEvent):
    """The edit model's status: after each `settings` reply, and whenever it changes."""

    type: Literal["edit_model_status"] = "edit_model_status"
    model: ModelStatus


class CatalogueMessage(ServerEvent):
    type: Literal["catalogue"] = "catalogue"
    ref: str | None
    models: list[CatalogueModel]
    free_ram_mb: float | None
    models_dir: str


class TelemetryMessage(ServerEvent):
    """The user's own completion statistics (`completion.telemetry`). enabled=false: GHOSTBOOK_TELEMETRY=off;
    `error`: why the file cannot be used; `models`: every model of the window, whatever the filter."""

    type: Literal["telemetry"] = "telemetry"
    ref: str | None
    enabled: bool
    path: str | None
    error: str | None
    keep_days: int
    filter: TelemetryFilter
    days: list[DayTally] = Field(description="one per day, oldest first")
    total: Tally
    by_kind: list[KindTally]
    by_model: list[ModelTally]
    models: list[str]


class EditProposal(ServerEvent):
    """Streamed to the requesting tab only: `text` is the whole replacement of the cell's `range` so far (the
    whole cell without a selection; a selection widened to whole lines). Nothing changes until Accept."""

    type: Literal["edit_proposal"] = "edit_proposal"
    ref: str
    cell_id: str
    range: Range
    text: str
    done: bool
    source: Literal["model", "rules"]
    warning: str | None = Field(description="e.g. the proposal does not parse: shown, never applied silently")
    description: str | None = Field(description="rules: what the offline fix does")
    stats: EditStats | None


EditErrorReason = Literal["no_model", "empty", "no_code", "model", "cell_gone", "no_fix"]


class EditError(ServerEvent):
    type: Literal["edit_error"] = "edit_error"
    ref: str
    message: str
    reason: EditErrorReason


# ---- Ask the notebook (asking/) ------------------------------------------------------------------


AskTurnState = Literal["answering", "done", "stopped", "error"]


class PlannedChange(Shape):
    """A change an answer proposes (`asking.plan`): `modify` cell `cell_id` to `source`, `insert` a code
    cell with `source` after cell `cell_id` (None: at the top), `delete` cell `cell_id`."""

    kind: Literal["modify", "insert", "delete"]
    cell_id: str | None
    source: str


class AskTurn(Shape):
    """One question and its answer (Markdown) so far; `error`: why the answer broke off (state "error")."""

    id: str
    question: str
    cell_ids: list[str] = Field(description="the cells selected when it was asked")
    answer: str
    state: AskTurnState
    error: str | None
    changes: list[PlannedChange] = Field(default_factory=list,
                                         description="the changes to the notebook the finished answer proposes")
    notes: list[str] = Field(default_factory=list, description="what of the answer's changes was not understood")


class AskTurnEvent(ServerEvent):
    """A turn of the notebook's conversation, new or grown: to every tab, at most every 50 ms while it
    streams (the last state always)."""

    type: Literal["ask_turn"] = "ask_turn"
    turn: AskTurn


class AskConversation(ServerEvent):
    """The notebook's whole conversation: the reply to `get_conversation`, and to every tab (`ref` null)
    when it is cleared. Kept in the server's memory only, never in the notebook's file."""

    type: Literal["ask_conversation"] = "ask_conversation"
    ref: str | None
    turns: list[AskTurn]


AskErrorReason = Literal["no_model", "empty"]


class AskError(ServerEvent):
    """A question that was not asked (to the asking tab only): no edit model chosen, or an empty question."""

    type: Literal["ask_error"] = "ask_error"
    ref: str
    message: str
    reason: AskErrorReason


# ---- widgets (the Jupyter comm protocol) -------------------------------------------------------------


class CommEvent(ServerEvent):
    """The kernel's comm messages, to every tab. `parent_msg_id`: the request that caused it ("" for the
    session's own: an Output widget's captured outputs; a tab's comm_close to the others). Buffers: base64."""

    type: Literal["comm_open", "comm_msg", "comm_close"]
    comm_id: str
    target_name: str | None = omitted("comm_open only")
    data: dict[str, Any]
    metadata: dict[str, Any]
    buffers: list[str]
    parent_msg_id: str


class CommDone(ServerEvent):
    """The kernel handled the tab's comm message `msg_id` (ipywidgets' throttle)."""

    type: Literal["comm_done"] = "comm_done"
    msg_id: str


class CommInfoReply(ServerEvent):
    type: Literal["comm_info_reply"] = "comm_info_reply"
    ref: str | None
    comms: dict[str, CommTarget]


# ---- the Variables panel ----------------------------------------------------------------------------


class VariablesMessage(ServerEvent):
    """The answer to get_variables, and (ref null) the list pushed to a watching tab after each run or a
    restart. variables null with busy: a cell is running, the list follows its end. total: how many names (at
    most 5000 listed); ms: the kernel's own time."""

    type: Literal["variables"] = "variables"
    ref: str | None
    variables: list[Variable] | None
    total: int
    ms: float | None
    busy: bool


class DataPage(ServerEvent):
    """One page of a table, every cell as text; rows are [index, cell, ...]."""

    type: Literal["data_page"] = "data_page"
    ref: str | None
    name: str
    type_name: str
    total: int
    start: int
    columns: list[DataColumn]
    column_count: int
    index_name: str | None
    rows: list[list[str]]
    sort: int | None
    ascending: bool
    ms: float


ServerMessage = Annotated[
    Snapshot
    | CellInserted
    | CellsDeleted
    | CellMoved
    | CellsReplaced
    | CellsReordered
    | SourceSet
    | SourcesReplaced
    | CellTypeSet
    | CellMetadataSet
    | AttachmentsSet
    | CellStateEvent
    | CellOutputs
    | TextUpdated
    | PresenceUpdated
    | PresenceLeft
    | KernelStatusEvent
    | StdinRequest
    | StdinClosed
    | SaveStatusEvent
    | NotebookRenamed
    | NotebookDeleted
    | FileChangedOnDisk
    | InstallProgress
    | CompleteReply
    | InspectReply
    | Pong
    | ErrorMessage
    | Fatal
    | Suggestion
    | SuggestionError
    | CompletionStats
    | SettingsMessage
    | ModelStatusEvent
    | EditModelStatusEvent
    | CatalogueMessage
    | TelemetryMessage
    | EditProposal
    | EditError
    | AskTurnEvent
    | AskConversation
    | AskError
    | CommEvent
    | CommDone
    | CommInfoReply
    | VariablesMessage
    | DataPage,
    Field(discriminator="type"),
]

server_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def error_message(message: str, ref: str | None = None) -> ErrorMessage:
    return ErrorMessage.model_construct(ref=ref, message=message)
