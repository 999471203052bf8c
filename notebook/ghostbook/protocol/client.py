"""Client -> server messages: what a tab may send, validated on arrival (`parse_client_message`)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, WithJsonSchema

CellType = Literal["code", "markdown", "raw"]
CellId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Source = Annotated[str, Field(max_length=2_000_000)]
Base64 = Annotated[str, Field(max_length=4_000_000, pattern=r"^[A-Za-z0-9+/]*={0,2}$")]
# [from, to]: character offsets (its JSON Schema in the tuple form TypeScript generators read)
Range = Annotated[tuple[int, int], WithJsonSchema({"type": "array", "items": [{"type": "integer"}, {"type": "integer"}],
                                                   "minItems": 2, "maxItems": 2})]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ref: str | None = Field(default=None, max_length=64)


class InsertCell(_Message):
    type: Literal["insert_cell"]
    index: int = Field(ge=0)
    cell_type: CellType = "code"
    source: Source = ""
    cell_id: CellId | None = None  # the client may choose the id so it can focus the new cell


class DeleteCells(_Message):
    type: Literal["delete_cells"]
    cell_ids: list[CellId] = Field(min_length=1, max_length=10_000)


class RestoreDeleted(_Message):
    """Undo the most recent structural step (`z`): deleted cells come back where they were; a merge, split,
    paste, multi-cell move or type change is taken back (session/structure.py)."""

    type: Literal["restore_deleted"]


class MoveCell(_Message):
    type: Literal["move_cell"]
    cell_id: CellId
    delta: int  # -1 moves up one place, +1 down one place


class MoveCells(_Message):
    """Move cells (gathered, in document order) to `index` of the list without them, or by `delta`
    places (the block's first cell moves from where it is): one undoable step (`z`)."""

    type: Literal["move_cells"]
    cell_ids: list[CellId] = Field(min_length=1, max_length=10_000)
    index: int | None = Field(default=None, ge=0)
    delta: int | None = None


class NewCell(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    cell_type: CellType = "code"
    source: Source = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    cell_id: CellId | None = None


class InsertCells(_Message):
    """Insert several cells at `index`, in order (a paste): one undoable step."""

    type: Literal["insert_cells"]
    index: int = Field(ge=0)
    cells: list[NewCell] = Field(min_length=1, max_length=10_000)


class MergeCells(_Message):
    """Merge cells into one new cell (JupyterLab's Shift+M): sources joined by a blank line, the type and
    metadata of `primary` (the active cell; default the first), no outputs. One undoable step."""

    type: Literal["merge_cells"]
    cell_ids: list[CellId] = Field(min_length=2, max_length=10_000)
    primary: CellId | None = None
    new_cell_id: CellId | None = None


class SplitCell(_Message):
    """Split a cell at `offsets` (code points: the cursor, or each selection's start and end), as
    JupyterLab's Ctrl+Shift+-. `new_cell_ids`: the ids the client would like the pieces to have."""

    type: Literal["split_cell"]
    cell_id: CellId
    offsets: list[Annotated[int, Field(ge=0)]] = Field(min_length=1, max_length=1000)
    new_cell_ids: list[CellId] | None = Field(default=None, max_length=1001)


class SetCellsType(_Message):
    """Change the type of several cells (m, y, r on a selection): one undoable step."""

    type: Literal["set_cells_type"]
    cell_ids: list[CellId] = Field(min_length=1, max_length=10_000)
    cell_type: CellType


class SetSource(_Message):
    type: Literal["set_source"]
    cell_id: CellId
    source: Source
    cursor: int | None = Field(default=None, ge=0)  # the editor's cursor after the edit (completion reads there)


class TextUpdate(_Message):
    """Typing: a Yjs update of the cells' texts (`collab.shared_text`), merged and passed to the other tabs."""

    type: Literal["y_update"]
    update: Base64
    cell_id: CellId | None = None  # the cell typed in, and the cursor after it (completion reads there)
    cursor: int | None = Field(default=None, ge=0)


class Presence(_Message):
    """The tab's cursor, selection, cell and name: a Yjs awareness update, passed to the other tabs."""

    type: Literal["awareness"]
    update: Annotated[str, Field(max_length=65_536, pattern=r"^[A-Za-z0-9+/]*={0,2}$")]
    y_client: int = Field(ge=0, le=2**53)  # the tab's Yjs client id: the others drop its presence when it leaves


class SourceChange(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    cell_id: CellId
    source: Source


class ReplaceSources(_Message):
    """Set the sources of several cells at once (find and replace: Replace all, and its undo): applied
    whole or not at all, broadcast as one `sources_replaced` with one revision."""

    type: Literal["replace_sources"]
    changes: list[SourceChange] = Field(min_length=1, max_length=10_000)


class CellChange(BaseModel):
    """One change of `apply_cell_changes`: `modify` sets cell `cell_id`'s source; `insert` adds a code cell
    after cell `after` (None: at the top); `delete` removes cell `cell_id`. `expected`: the cell's source
    the change was reviewed against (a cell changed since is refused)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["modify", "insert", "delete"]
    cell_id: CellId | None = None
    after: CellId | None = None
    source: Source = ""
    expected: Source | None = None


class ApplyCellChanges(_Message):
    """Changes to several cells (an Ask answer's, as reviewed): applied whole or not at all, as one
    undoable step (`z`)."""

    type: Literal["apply_cell_changes"]
    changes: list[CellChange] = Field(min_length=1, max_length=1000)


class SetCellType(_Message):
    type: Literal["set_cell_type"]
    cell_id: CellId
    cell_type: CellType


class SetCellMetadata(_Message):
    """Change some top-level keys of a cell's metadata (JupyterLab's own keys: `jupyter`, `execution`,
    `collapsed`, `heading_collapsed`, ...); a key set to null is removed. The rest stay as they are."""

    type: Literal["set_cell_metadata"]
    cell_id: CellId
    metadata: dict[str, Any] = Field(max_length=32)


MAX_ATTACHMENT_BASE64 = 4_000_000  # about 3 MB of image: a notebook is not a photo album


class AddAttachment(_Message):
    """Attach an image to a Markdown (or raw) cell as nbformat's `attachments: {name: {mime: base64}}`
    (pasted or dropped into its editor, referenced as `attachment:name`, as JupyterLab does)."""

    type: Literal["add_attachment"]
    cell_id: CellId
    name: str = Field(min_length=1, max_length=200, pattern=r"^[^/\\\x00-\x1f]+$")
    mime: str = Field(pattern=r"^image/(png|jpeg|gif|webp|bmp|svg\+xml)$")
    data: str = Field(max_length=MAX_ATTACHMENT_BASE64, pattern=r"^[A-Za-z0-9+/]*={0,2}$")


class ExecuteCells(_Message):
    type: Literal["execute_cells"]
    cell_ids: list[CellId] = Field(min_length=1, max_length=10_000)


class RunAll(_Message):
    type: Literal["run_all"]


class RunAbove(_Message):
    """Run the code cells above `cell_id` (not it): JupyterLab's notebook:run-all-above."""

    type: Literal["run_above"]
    cell_id: CellId


class RunBelow(_Message):
    """Run `cell_id` and the code cells below it: JupyterLab's notebook:run-all-below."""

    type: Literal["run_below"]
    cell_id: CellId


class RestartAndRunAll(_Message):
    """Restart the kernel, then run every cell once the new kernel is up: notebook:restart-run-all."""

    type: Literal["restart_and_run_all"]


class InterruptKernel(_Message):
    type: Literal["interrupt_kernel"]


class RestartKernel(_Message):
    type: Literal["restart_kernel"]


class ChangeKernel(_Message):
    type: Literal["change_kernel"]
    name: str = Field(min_length=1, max_length=200)


class ClearOutputs(_Message):
    type: Literal["clear_outputs"]
    cell_ids: list[CellId] | None = None  # None: every cell


class StdinReply(_Message):
    type: Literal["stdin_reply"]
    value: str = Field(max_length=1_000_000)


class Save(_Message):
    type: Literal["save"]


class ResolveFileChange(_Message):
    """The answer to `file_changed_on_disk` (JupyterLab's "File Changed"): `overwrite` saves the session's
    version over the file; `revert` loads the file's version into the session (the kernel runs on) and
    every tab gets a fresh snapshot. Ignored when no change is pending (another tab answered first)."""

    type: Literal["resolve_file_change"]
    choice: Literal["overwrite", "revert"]


class Complete(_Message):
    """Kernel intellisense at `cursor` (a character offset) in the server's copy of the cell."""

    type: Literal["complete"]
    cell_id: CellId
    cursor: int = Field(ge=0)


class Inspect(_Message):
    type: Literal["inspect"]
    cell_id: CellId
    cursor: int = Field(ge=0)
    detail_level: Literal[0, 1] = 0


class Suggest(_Message):
    """Ask for ghost text at `cursor` in the server's copy of the cell. A newer Suggest from the same
    tab cancels the older one; replies for it stop."""

    type: Literal["suggest"]
    ref: str = Field(min_length=1, max_length=64)
    cell_id: CellId
    cursor: int = Field(ge=0)
    trigger: Literal["auto", "forced"] = "auto"


class SuggestCancel(_Message):
    """Stop generating for `ref` (the user typed on, moved away or pressed Esc)."""

    type: Literal["suggest_cancel"]
    ref: str = Field(min_length=1, max_length=64)


# Where the cursor was when a suggestion was asked for (the client's `cursorKind`, ghost-text/logic.ts):
# nothing but indentation left of it; code left and nothing but closers right; code on both sides.
SuggestionKind = Literal["new_line", "end_of_line", "mid_line"]


class SuggestFeedback(_Message):
    """What became of a suggestion: counted in the live stats and kept in the user's own statistics
    (`completion.telemetry`). `accept`: the key that first took some of it (Tab, Ctrl+→, Ctrl+↓)."""

    type: Literal["suggest_feedback"]
    ref: str = Field(min_length=1, max_length=64)
    event: Literal["shown", "accepted", "partial", "dismissed"]
    latency_ms: float | None = Field(default=None, ge=0)  # end of debounce -> ghost text visible
    kind: SuggestionKind | None = None
    accept: Literal["whole", "word", "line"] | None = None  # accepted / partial only


class GetTelemetry(_Message):
    """The user's completion statistics per day over the last `days`, only of `kind` / `model` if given."""

    type: Literal["get_telemetry"]
    days: int = Field(default=14, ge=1, le=30)
    kind: SuggestionKind | None = None
    model: str | None = Field(default=None, min_length=1, max_length=200)


class ResetTelemetry(_Message):
    """Forget every recorded completion event (answered by `telemetry` for the default 14 days)."""

    type: Literal["reset_telemetry"]


class GetSettings(_Message):
    type: Literal["get_settings"]


class UpdateSettings(_Message):
    """Change some completion settings (keys of `CompletionSettings`); the rest stay as they are."""

    type: Literal["update_settings"]
    settings: dict[str, Any]


class GetCatalogue(_Message):
    """The model catalogue: curated hub models, the built-in default, local models; what is downloaded."""

    type: Literal["get_catalogue"]


class CancelDownload(_Message):
    """Stop the model download in progress."""

    type: Literal["cancel_download"]


class AcceptedChange(BaseModel):
    """The change the user accepted into a cell (an Ask answer's): the cell's source `before` it ("" for a new
    cell) and the `instruction` (the question) that asked for it. A Fix of the cell tells the model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    before: Source
    instruction: str = Field(max_length=4000)


class EditRequest(_Message):
    """Ask the edit model to rewrite the cell (or the lines of `selection`, character offsets) as
    `instruction` says; `fix`: the instruction is to fix the cell's error output. `previous`: the proposal a
    follow-up instruction refines. `cause`: the accepted change that made the cell what it is (a Fix after
    Ask's "Run changed cells"). A newer request from the same tab cancels the older one."""

    type: Literal["edit_request"]
    ref: str = Field(min_length=1, max_length=64)
    cell_id: CellId
    instruction: str = Field(max_length=4000)
    selection: Range | None = None
    trigger: Literal["edit", "fix"] = "edit"
    previous: Source | None = None
    cause: AcceptedChange | None = None


class EditCancel(_Message):
    """Stop the edit `ref` (the user rejected it, edited the cell or closed the prompt)."""

    type: Literal["edit_cancel"]
    ref: str = Field(min_length=1, max_length=64)


class AskQuestion(_Message):
    """Ask the notebook (the Ask panel): `question` about the notebook, the cells of `cell_ids` (the tab's
    selection: their code and errors go to the model) or the kernel's data. The answer streams to every tab
    as `ask_turn`; a question while another is answered stops that one."""

    type: Literal["ask_question"]
    ref: str = Field(min_length=1, max_length=64)
    question: str = Field(max_length=4000)
    cell_ids: list[CellId] = Field(default_factory=list, max_length=10_000)


class AskStop(_Message):
    """Stop the answer of turn `turn_id` (the Stop button); what was written so far stays."""

    type: Literal["ask_stop"]
    turn_id: str = Field(min_length=1, max_length=64)


class AskClear(_Message):
    """New conversation: the notebook's conversation is forgotten (an answer being written stops)."""

    type: Literal["ask_clear"]


class GetConversation(_Message):
    """The notebook's conversation so far (`ask_conversation`, answering `ref`)."""

    type: Literal["get_conversation"]


class InstallPackage(_Message):
    """Install the distribution `package` into the kernel's interpreter (the Install button on a cell's
    ModuleNotFoundError); progress goes to every tab as `install_progress` for `cell_id`."""

    type: Literal["install_package"]
    cell_id: CellId
    package: str = Field(min_length=1, max_length=100)


CommId = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")]


class _Comm(_Message):
    """A comm message for the kernel (the Jupyter comm protocol, as ipywidgets speaks it). `msg_id` is
    the tab's: the kernel's echo and idle status for it name it. `buffers` are base64."""

    msg_id: CommId
    comm_id: CommId
    data: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    buffers: list[Base64] = Field(default_factory=list, max_length=64)


class CommOpen(_Comm):
    type: Literal["comm_open"]
    target_name: str = Field(min_length=1, max_length=200)


class CommMsg(_Comm):
    type: Literal["comm_msg"]


class CommClose(_Comm):
    type: Literal["comm_close"]


class CommInfoRequest(_Message):
    """The kernel's open comms (of `target_name`, or all): answered by `comm_info_reply`."""

    type: Literal["comm_info_request"]
    target_name: str | None = Field(default=None, max_length=200)


class GetVariables(_Message):
    """The kernel's names for the Variables panel, answered by `variables`; `watch`: this tab also gets a
    fresh `variables` (ref null) after each run, until `unwatch_variables` (the panel closed)."""

    type: Literal["get_variables"]
    watch: bool = True


class UnwatchVariables(_Message):
    type: Literal["unwatch_variables"]


class GetDataPage(_Message):
    """Rows [start, start + count) of the table `name` (a DataFrame, Series or 1-D/2-D array in the kernel),
    sorted in the kernel by column number `sort` (-1: the index; null: as it is); answered by `data_page`."""

    type: Literal["get_data_page"]
    name: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    start: int = Field(default=0, ge=0)
    count: int = Field(default=50, ge=1, le=500)
    sort: int | None = Field(default=None, ge=-1)
    ascending: bool = True


class Ping(_Message):
    type: Literal["ping"]


ClientMessage = Annotated[
    InsertCell
    | DeleteCells
    | RestoreDeleted
    | MoveCell
    | MoveCells
    | InsertCells
    | MergeCells
    | SplitCell
    | SetCellsType
    | SetSource
    | TextUpdate
    | Presence
    | ReplaceSources
    | ApplyCellChanges
    | SetCellType
    | SetCellMetadata
    | AddAttachment
    | ExecuteCells
    | RunAll
    | RunAbove
    | RunBelow
    | RestartAndRunAll
    | InterruptKernel
    | RestartKernel
    | ChangeKernel
    | ClearOutputs
    | StdinReply
    | Save
    | ResolveFileChange
    | Complete
    | Inspect
    | Suggest
    | SuggestCancel
    | SuggestFeedback
    | GetTelemetry
    | ResetTelemetry
    | GetSettings
    | UpdateSettings
    | GetCatalogue
    | CancelDownload
    | EditRequest
    | EditCancel
    | AskQuestion
    | AskStop
    | AskClear
    | GetConversation
    | InstallPackage
    | CommOpen
    | CommMsg
    | CommClose
    | CommInfoRequest
    | GetVariables
    | UnwatchVariables
    | GetDataPage
    | Ping,
    Field(discriminator="type"),
]

_client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


class ProtocolError(ValueError):
    """A client message that is not valid JSON or does not match any message type."""

    def __init__(self, message: str, ref: str | None = None) -> None:
        super().__init__(message)
        self.ref = ref


def parse_client_message(raw: str | bytes) -> ClientMessage:
    """Validate one incoming websocket frame; raise ProtocolError with a readable reason."""
    try:
        return _client_adapter.validate_json(raw)
    except ValidationError as exc:
        ref = _guess_ref(raw)
        errors = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise ProtocolError(f"invalid message: {errors}", ref) from None


def _guess_ref(raw: str | bytes) -> str | None:
    try:
        value = json.loads(raw)
    except (ValueError, TypeError, RecursionError):  # RecursionError: deeply nested arrays or objects
        return None
    ref = value.get("ref") if isinstance(value, dict) else None
    return ref if isinstance(ref, str) and len(ref) <= 64 else None
