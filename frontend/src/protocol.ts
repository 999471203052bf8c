// Wire messages between this UI and the Ghostbook server, one websocket per (tab, notebook).
// Twin of notebook/ghostbook/protocol.py: change both together (the Python module is the
// authority; this file only mirrors it).

export type CellType = "code" | "markdown" | "raw";
export type CellState = "idle" | "queued" | "running";
export type KernelStatus = "starting" | "idle" | "busy" | "dead" | "restarting";
/** conflict: the file changed on disk; nothing is saved until a tab sends resolve_file_change. */
export type SaveStatus = "saved" | "dirty" | "saving" | "error" | "conflict";

// ---- client -> server ----------------------------------------------------------------------

interface Base {
  ref?: string | null;
}

export interface InsertCell extends Base {
  type: "insert_cell";
  index: number;
  cell_type?: CellType;
  source?: string;
  cell_id?: string | null;
}
export interface DeleteCells extends Base {
  type: "delete_cells";
  cell_ids: string[];
}
export interface RestoreDeleted extends Base {
  type: "restore_deleted";
}
export interface MoveCell extends Base {
  type: "move_cell";
  cell_id: string;
  delta: number;
}
/** Move cells (gathered, in document order) to `index` of the list without them, or by `delta`: one undoable step. */
export interface MoveCells extends Base {
  type: "move_cells";
  cell_ids: string[];
  index?: number | null;
  delta?: number | null;
}
export interface NewCell {
  cell_type?: CellType;
  source?: string;
  metadata?: Record<string, unknown>;
  cell_id?: string | null;
}
/** Insert several cells at `index`, in order (a paste): one undoable step. */
export interface InsertCells extends Base {
  type: "insert_cells";
  index: number;
  cells: NewCell[];
}
/** Merge cells into one new cell (Shift+M): the type and metadata of `primary`, no outputs. */
export interface MergeCells extends Base {
  type: "merge_cells";
  cell_ids: string[];
  primary?: string | null;
  new_cell_id?: string | null;
}
/** Split a cell at `offsets` (code points: the cursor, or each selection's start and end). */
export interface SplitCell extends Base {
  type: "split_cell";
  cell_id: string;
  offsets: number[];
  new_cell_ids?: string[] | null;
}
/** Change the type of several cells: one undoable step. */
export interface SetCellsType extends Base {
  type: "set_cells_type";
  cell_ids: string[];
  cell_type: CellType;
}
export interface SetSource extends Base {
  type: "set_source";
  cell_id: string;
  source: string;
  /** Where the editor's cursor is after the edit: the server reads the completion prompt there. */
  cursor?: number;
}
/** Typing: a Yjs update of the cells' texts (collab/), merged by the server and passed to the other tabs. */
export interface TextUpdate extends Base {
  type: "y_update";
  /** base64 of the update's bytes */
  update: string;
  /** The cell typed in and the cursor after it: the server reads the completion prompt there. */
  cell_id?: string;
  cursor?: number;
}
/** This tab's presence (cursor, selection, cell, name): a Yjs awareness update, passed to the other tabs. */
export interface Presence extends Base {
  type: "awareness";
  update: string;
  /** This tab's Yjs client id: the others drop its presence when it leaves. */
  y_client: number;
}
/** Set several cells' sources as one step (Replace all, and its undo): all or none, one revision. */
export interface ReplaceSources extends Base {
  type: "replace_sources";
  changes: { cell_id: string; source: string }[];
}
export interface SetCellType extends Base {
  type: "set_cell_type";
  cell_id: string;
  cell_type: CellType;
}
/** Set some top-level keys of a cell's metadata (JupyterLab's keys); a key set to null is removed. */
export interface SetCellMetadata extends Base {
  type: "set_cell_metadata";
  cell_id: string;
  metadata: Record<string, unknown>;
}
/** Attach an image to a Markdown cell (nbformat `attachments`), referenced as `attachment:name`. */
export interface AddAttachment extends Base {
  type: "add_attachment";
  cell_id: string;
  name: string;
  mime: string;
  /** base64, at most MAX_ATTACHMENT_BASE64 characters */
  data: string;
}
export const MAX_ATTACHMENT_BASE64 = 4_000_000;
export interface ExecuteCells extends Base {
  type: "execute_cells";
  cell_ids: string[];
}
export interface RunAll extends Base {
  type: "run_all";
}
/** The code cells above `cell_id` (not it): JupyterLab's notebook:run-all-above. */
export interface RunAbove extends Base {
  type: "run_above";
  cell_id: string;
}
/** `cell_id` and the code cells below it: notebook:run-all-below. */
export interface RunBelow extends Base {
  type: "run_below";
  cell_id: string;
}
/** Restart the kernel, then run every cell once the new kernel is up: notebook:restart-run-all. */
export interface RestartAndRunAll extends Base {
  type: "restart_and_run_all";
}
export interface InterruptKernel extends Base {
  type: "interrupt_kernel";
}
export interface RestartKernel extends Base {
  type: "restart_kernel";
}
export interface ChangeKernel extends Base {
  type: "change_kernel";
  name: string;
}
export interface ClearOutputs extends Base {
  type: "clear_outputs";
  cell_ids?: string[] | null;
}
export interface StdinReply extends Base {
  type: "stdin_reply";
  value: string;
}
export interface Save extends Base {
  type: "save";
}
/** The answer to file_changed_on_disk (JupyterLab's "File Changed"): overwrite the file with the session's
 * version, or load the file's version (revert; every tab gets a fresh snapshot). Ignored with no change pending. */
export interface ResolveFileChange extends Base {
  type: "resolve_file_change";
  choice: "overwrite" | "revert";
}
/** Kernel intellisense at `cursor` (a character offset, in code points) in the server's copy. */
export interface Complete extends Base {
  type: "complete";
  cell_id: string;
  cursor: number;
}
export interface Inspect extends Base {
  type: "inspect";
  cell_id: string;
  cursor: number;
  detail_level?: 0 | 1;
}
/** Ask for ghost text at `cursor`; a newer Suggest from the same tab cancels the older one. */
export interface Suggest extends Base {
  type: "suggest";
  ref: string;
  cell_id: string;
  cursor: number;
  trigger?: "auto" | "forced";
}
/** Stop generating for `ref` (the user typed on, moved away or pressed Esc). */
export interface SuggestCancel extends Base {
  type: "suggest_cancel";
  ref: string;
}
/** Where the cursor was when a suggestion was asked for (ghost-text/logic.ts `cursorKind`). */
export type SuggestionKind = "new_line" | "end_of_line" | "mid_line";
/** The key that first took some of a suggestion: Tab, Ctrl+→, Ctrl+↓. */
export type AcceptKind = "whole" | "word" | "line";
/** What became of a suggestion: counted in the live stats and the user's own statistics. */
export interface SuggestFeedback extends Base {
  type: "suggest_feedback";
  ref: string;
  event: "shown" | "accepted" | "partial" | "dismissed";
  latency_ms?: number | null;
  kind?: SuggestionKind | null;
  /** accepted / partial only. */
  accept?: AcceptKind | null;
}
/** The user's completion statistics over the last `days` (1..30), of `kind` / `model` only if given. */
export interface GetTelemetry extends Base {
  type: "get_telemetry";
  days?: number;
  kind?: SuggestionKind | null;
  model?: string | null;
}
/** Forget every recorded completion event (answered by `telemetry`). */
export interface ResetTelemetry extends Base {
  type: "reset_telemetry";
}
export interface GetSettings extends Base {
  type: "get_settings";
}
/** Change some completion settings (keys of CompletionSettings); the rest stay as they are. */
export interface UpdateSettings extends Base {
  type: "update_settings";
  settings: Partial<CompletionSettings>;
}
/** The model catalogue: curated hub models, the built-in default, local models; what is downloaded. */
export interface GetCatalogue extends Base {
  type: "get_catalogue";
}
/** Stop the model download in progress. */
export interface CancelDownload extends Base {
  type: "cancel_download";
}
/** Ask the edit model to rewrite the cell, or the whole lines of `selection` (code points), as
 * `instruction` says (1..4000 characters); `fix`: fix the cell's error output. `previous`: the proposal a
 * follow-up refines (null for a fresh request or a Retry). A newer request from the tab cancels the older. */
export interface EditRequest extends Base {
  type: "edit_request";
  ref: string;
  cell_id: string;
  instruction: string;
  selection: [number, number] | null;
  trigger: "edit" | "fix";
  previous: string | null;
}
/** Stop the edit `ref` (rejected, the cell edited, the prompt closed). */
export interface EditCancel extends Base {
  type: "edit_cancel";
  ref: string;
}
/** Install `package` into the kernel's interpreter (the Install button on a ModuleNotFoundError). */
export interface InstallPackage extends Base {
  type: "install_package";
  cell_id: string;
  package: string;
}
export interface Ping extends Base {
  type: "ping";
}
/** The kernel's names (the Variables panel); `watch`: also a fresh list after each run, until unwatched. */
export interface GetVariables extends Base {
  type: "get_variables";
  watch?: boolean;
}
export interface UnwatchVariables extends Base {
  type: "unwatch_variables";
}
/** Rows [start, start + count) of table `name`, sorted in the kernel by column `sort` (-1: the index). */
export interface GetDataPage extends Base {
  type: "get_data_page";
  name: string;
  start: number;
  count: number;
  sort: number | null;
  ascending: boolean;
}

export type ClientMessage =
  | InsertCell
  | TextUpdate
  | Presence
  | DeleteCells
  | RestoreDeleted
  | MoveCell
  | MoveCells
  | InsertCells
  | MergeCells
  | SplitCell
  | SetCellsType
  | SetSource
  | ReplaceSources
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
  | InstallPackage
  | CommOpen
  | CommMsg
  | CommClose
  | CommInfoRequest
  | GetVariables
  | UnwatchVariables
  | GetDataPage
  | Ping;

/** A comm message for the kernel (ipywidgets). `msg_id` is this tab's own: the kernel's echo_update and
 * the server's `comm_done` name it. Buffers are base64. */
interface CommBase extends Base {
  msg_id: string;
  comm_id: string;
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  buffers?: string[];
}
export interface CommOpen extends CommBase {
  type: "comm_open";
  target_name: string;
}
export interface CommMsg extends CommBase {
  type: "comm_msg";
}
export interface CommClose extends CommBase {
  type: "comm_close";
}
export interface CommInfoRequest extends Base {
  type: "comm_info_request";
  target_name?: string | null;
}

// ---- server -> client ----------------------------------------------------------------------

/** An nbformat v4 output dict (stream, execute_result, display_data, error). */
export interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  execution_count?: number | null;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  /** Wire only (never saved): a stream whose middle was dropped keeps its whole text on the server,
   * read page by page at /outputs/{id} (session/full_outputs.py). */
  full_text?: { id: string; lines: number };
  [key: string]: unknown;
}

export interface Cell {
  id: string;
  cell_type: CellType;
  source: string;
  outputs: Output[];
  execution_count: number | null;
  state: CellState;
  metadata: Record<string, unknown>;
  /** Markdown images referenced as `attachment:NAME`: {NAME: {mime: base64}}. */
  attachments?: Attachments;
}

export type Attachments = Record<string, Record<string, string | string[]>>;

export interface KernelInfo {
  status: KernelStatus;
  name: string;
  display_name: string;
  reason: string | null;
  /** A local Python kernel with pip or uv: a ModuleNotFoundError gets an Install button. */
  can_install?: boolean;
}

export interface KernelSpecInfo {
  name: string;
  display_name: string;
  language: string;
}

export interface SaveInfo {
  status: SaveStatus;
  message: string | null;
}

export interface Snapshot {
  type: "snapshot";
  client_id: string;
  revision: number;
  path: string;
  notebook: { cells: Cell[]; metadata: Record<string, unknown> };
  kernel: KernelInfo;
  kernelspecs: KernelSpecInfo[];
  save: SaveInfo;
  /** The widget models the session keeps (Jupyter's widget-state format); `live`: the kernel has it. */
  widgets?: Record<string, WidgetModelState>;
  /** The cells' texts as one Yjs document: its id and whole state (base64). On the browser's socket
   * (`texts=shared`) `update` is null and the state comes as the next frame, binary: the connection puts it in
   * `state` before anyone sees the snapshot. */
  text: { guid: string; update: string | null; state?: Uint8Array };
  /** After a Revert: the file's text wins over this tab's unacknowledged edits (a reconnect rebases them). */
  reloaded?: boolean;
}
/** Another tab's typing, or an operation's change of texts (`origin` null: the server's). */
export interface TextUpdated {
  type: "y_update";
  update: string;
  origin: string | null;
}
/** Another tab's presence (a Yjs awareness update). */
export interface PresenceUpdated {
  type: "awareness";
  update: string;
}
/** A tab closed: drop its presence. */
export interface PresenceLeft {
  type: "presence_left";
  y_client: number;
}
export interface WidgetModelState {
  model_name: string;
  model_module: string;
  model_module_version: string;
  state: Record<string, unknown>;
  buffers?: { path: (string | number)[]; data: string; encoding: "base64" | "hex" }[];
  live: boolean;
}
/** The kernel's comm messages, relayed to every tab. `parent_msg_id`: the request that caused it ("" for
 * the server's own, e.g. an Output widget's captured outputs). */
export interface CommEvent {
  type: "comm_open" | "comm_msg" | "comm_close";
  comm_id: string;
  target_name?: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  buffers: string[];
  parent_msg_id: string;
}
/** The kernel handled this tab's comm message `msg_id`. */
export interface CommDone {
  type: "comm_done";
  msg_id: string;
}
export interface CommInfoReply {
  type: "comm_info_reply";
  ref: string;
  comms: Record<string, { target_name: string }>;
}
export interface CellInserted {
  type: "cell_inserted";
  revision: number;
  origin: string | null;
  index: number;
  cell: Cell;
}
export interface CellsDeleted {
  type: "cells_deleted";
  revision: number;
  origin: string | null;
  cell_ids: string[];
}
export interface CellMoved {
  type: "cell_moved";
  revision: number;
  origin: string | null;
  cell_id: string;
  index: number;
}
/** Remove `removed`, then insert `cells` at `index`: a merge, a split, a paste, or the undo of one. */
export interface CellsReplaced {
  type: "cells_replaced";
  revision: number;
  origin: string | null;
  removed: string[];
  index: number;
  cells: Cell[];
}
/** The whole new order of the cells; `cell_ids`: those that moved. */
export interface CellsReordered {
  type: "cells_reordered";
  revision: number;
  origin: string | null;
  order: string[];
  cell_ids: string[];
}
export interface SourceSet {
  type: "source_set";
  revision: number;
  origin: string | null;
  cell_id: string;
  source: string;
}
/** One `replace_sources`: the cells that changed, in one revision. */
export interface SourcesReplaced {
  type: "sources_replaced";
  revision: number;
  origin: string | null;
  changes: { cell_id: string; source: string }[];
}
export interface CellTypeSet {
  type: "cell_type_set";
  revision: number;
  origin: string | null;
  cell_id: string;
  cell_type: CellType;
}
/** A cell's whole metadata after a `set_cell_metadata`. */
export interface CellMetadataSet {
  type: "cell_metadata_set";
  revision: number;
  origin: string | null;
  cell_id: string;
  metadata: Record<string, unknown>;
}
/** A cell's whole attachments after an `add_attachment`. */
export interface AttachmentsSet {
  type: "attachments_set";
  revision: number;
  origin: string | null;
  cell_id: string;
  attachments: Attachments;
}
export interface CellStateEvent {
  type: "cell_state";
  revision: number;
  cell_id: string;
  state: CellState;
  execution_count: number | null;
}
export interface CellOutputs {
  type: "cell_outputs";
  revision: number;
  cell_id: string;
  outputs: Output[];
}
export interface KernelStatusEvent {
  type: "kernel_status";
  kernel: KernelInfo;
}
export interface StdinRequest {
  type: "stdin_request";
  cell_id: string;
  prompt: string;
  password: boolean;
}
export interface SaveStatusEvent {
  type: "save_status";
  save: SaveInfo;
}
export interface CompleteReply {
  type: "complete_reply";
  ref: string;
  matches: string[];
  cursor_start: number;
  cursor_end: number;
  types: (string | null)[];
}
export interface InspectReply {
  type: "inspect_reply";
  ref: string;
  found: boolean;
  data: Record<string, string>;
}
/** The prompt was answered (maybe in another tab), or its cell finished. */
export interface StdinClosed {
  type: "stdin_closed";
  cell_id: string;
}
/** Streamed ghost text: `text` is the whole post-processed suggestion so far; the last has done. */
export interface Suggestion {
  type: "suggestion";
  ref: string;
  cell_id: string;
  cursor: number;
  text: string;
  done: boolean;
  source: "model" | "cache" | "typed_through";
  /** The server's estimate that the user types the first line exactly (completion/confidence.py). */
  confidence?: number;
}
export interface SuggestionError {
  type: "suggestion_error";
  ref: string;
  message: string;
}
export interface CompletionSettings {
  enabled: boolean;
  debounce_ms: number;
  debounce_mode: string;
  /** Which automatic suggestions show: "often", "balanced" or "confident" (Ctrl+Space always shows). */
  suggest: string;
  max_new_tokens: number;
  context_tokens: number;
  model: string;
  beam_width: number;
  read_check: boolean;
  /** The beam's time per line (ms; 0: no limit), the prompt's reading included for the first. */
  search_ms: number;
  /** Masked ("********") when set: the key stays on the server. */
  api_key: string;
  /** openai: servers: "suffix" (the API's suffix field) or a FIM family written into the prompt. */
  remote_fim: string;
  /** transformers models: "auto" (CUDA where torch sees it), "cpu" or "cuda". */
  device: string;
  /** Greedy with speculative drafts from the notebook's own text (the same output). */
  speculative: boolean;
  /** Candidate lines copied from the notebook compete with the beam's line (server completion/candidates.py). */
  notebook_candidates: boolean;
  /** transformers models: a draft model's folder for speculative greedy ("" : prompt lookup). */
  draft_model: string;
  /** Edit with AI: a chat or instruct model spec ("" : none chosen). */
  edit_model: string;
}
export interface ModelStatus {
  state: "off" | "downloading" | "loading" | "ready" | "error";
  name: string;
  path: string | null;
  /** 0..1 while downloading or loading; null when unknown. */
  progress: number | null;
  message: string | null;
  bytes_done?: number | null;
  bytes_total?: number | null;
  /** The spec of the model answering requests now (while another downloads or loads, and after one
   * failed: the one before; "ready" then carries a message naming both); null when none serves. */
  serving?: string | null;
  serving_name?: string;
}
/** One line of the model catalogue (server: models/catalogue.py Offer). */
export interface CatalogueModel {
  spec: string;
  name: string;
  family: string;
  params: string;
  size_mb: number;
  ram_mb: number;
  licence: string;
  backends: string;
  source: "builtin" | "hub" | "local";
  downloaded: boolean;
  gated: boolean;
  speed: string;
  /** "fim": completes code (listed for the completion model); "chat": an instruct model (listed for
   * the edit model); "both": a local file, listed under both (the user knows what it is). */
  role: "fim" | "chat" | "both";
}
export interface CatalogueMessage {
  type: "catalogue";
  ref: string | null;
  models: CatalogueModel[];
  free_ram_mb: number | null;
  models_dir: string;
}
export interface SettingsMessage {
  type: "settings";
  ref: string | null;
  settings: CompletionSettings;
  model: ModelStatus;
  /** The edit model's status (also sent as `edit_model_status`). */
  edit_model_status?: ModelStatus;
}
export interface ModelStatusEvent {
  type: "model_status";
  model: ModelStatus;
}
/** The edit model's status: after each `settings` reply, and whenever it changes. */
export interface EditModelStatusEvent {
  type: "edit_model_status";
  model: ModelStatus;
}
/** Streamed to the requesting tab only: `text` is the whole replacement of the cell's `range` (code
 * points; whole lines) so far; the last has done. Nothing in the document changes until Accept. */
export interface EditProposal {
  type: "edit_proposal";
  ref: string;
  cell_id: string;
  range: [number, number];
  text: string;
  done: boolean;
  source: "model" | "rules";
  /** e.g. the proposal does not parse as Python: shown, never applied silently. */
  warning: string | null;
  /** rules: what the offline fix does. */
  description: string | null;
  stats: { calls: number; tokens: number; ms: number; speculative?: boolean } | null;
}
export type EditErrorReason = "no_model" | "empty" | "no_code" | "model" | "cell_gone" | "no_fix";
export interface EditError {
  type: "edit_error";
  ref: string;
  message: string;
  reason: EditErrorReason;
}
export interface CompletionStats {
  type: "completion_stats";
  stats: {
    shown: number;
    accepted: number;
    acceptance_rate: number | null;
    p50_ms: number | null;
    p95_ms: number | null;
    requests: number;
    model_calls: number;
    cache_hits: number;
    /** The server's request -> done latencies (p50_ms/p95_ms prefer client-reported ones). */
    server_p50_ms: number | null;
    server_p95_ms: number | null;
  };
}
/** One group's counts: `accepted` = taken wholly or in part; whole/word/line by the key that first took some. */
export interface Tally {
  shown: number;
  accepted: number;
  whole: number;
  word: number;
  line: number;
  dismissed: number;
  acceptance_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}
/** The user's own completion statistics (kept on the server's machine only); `enabled` false when turned
 * off (GHOSTBOOK_TELEMETRY=off); `error`: why the file cannot be used. */
export interface TelemetryMessage {
  type: "telemetry";
  ref: string | null;
  enabled: boolean;
  path: string | null;
  error: string | null;
  keep_days: number;
  filter: { days: number; kind: SuggestionKind | null; model: string | null };
  /** One per day, oldest first; `ts`: the day's local midnight in seconds. */
  days: (Tally & { day: string; ts: number })[];
  total: Tally;
  by_kind: (Tally & { kind: string })[];
  by_model: (Tally & { model: string })[];
  /** Every model of the window, whatever the filter. */
  models: string[];
}
/** pip's (or uv's) output while installing a package for `cell_id`, to every tab: `text` is the whole log
 * so far; the last message has `done`, and `ok` when it worked. A refusal: one failed message, to the asker. */
export interface InstallProgress {
  type: "install_progress";
  ref: string | null;
  cell_id: string;
  package: string;
  text: string;
  done: boolean;
  ok: boolean;
}
export interface Pong {
  type: "pong";
  ref: string | null;
}
export interface ErrorMessage {
  type: "error";
  ref: string | null;
  message: string;
}
/** The notebook was renamed or moved (here or in the file browser): the tab follows `path`. */
export interface NotebookRenamed {
  type: "notebook_renamed";
  path: string;
}
/** The notebook's file was deleted: nothing saves any more; the tab keeps its text for copying. */
export interface NotebookDeleted {
  type: "notebook_deleted";
  path: string;
}
/** The file changed outside the session since it was opened or saved: edits are kept, not saved, until a
 * tab answers with resolve_file_change (save_status says "conflict" meanwhile). */
export interface FileChangedOnDisk {
  type: "file_changed_on_disk";
  path: string;
}
/** One kernel name in the Variables panel (shape: arrays and frames; length: sized builtins; size: bytes). */
export interface Variable {
  name: string;
  type: string;
  shape: number[] | null;
  length: number | null;
  size: number | null;
  value: string;
  viewer: boolean;
}
/** The answer to get_variables, and (ref null) the list pushed after each run to a watching tab;
 * variables null with busy: a cell is running, the list follows its end. */
export interface VariablesMessage {
  type: "variables";
  ref: string | null;
  variables: Variable[] | null;
  total: number;
  ms: number | null;
  busy: boolean;
}
/** One page of a table, every cell as text; rows are [index, cell, ...]. */
export interface DataPage {
  type: "data_page";
  ref: string;
  name: string;
  type_name: string;
  total: number;
  start: number;
  columns: { name: string; dtype: string }[];
  column_count: number;
  index_name: string | null;
  rows: string[][];
  sort: number | null;
  ascending: boolean;
  ms: number;
}
/** The notebook cannot be opened; the socket closes after it. */
export interface Fatal {
  type: "fatal";
  message: string;
}

export type ServerMessage =
  | Snapshot
  | TextUpdated
  | PresenceUpdated
  | PresenceLeft
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
  | KernelStatusEvent
  | StdinRequest
  | SaveStatusEvent
  | CompleteReply
  | InspectReply
  | StdinClosed
  | Suggestion
  | SuggestionError
  | SettingsMessage
  | ModelStatusEvent
  | CatalogueMessage
  | EditModelStatusEvent
  | EditProposal
  | EditError
  | CompletionStats
  | TelemetryMessage
  | InstallProgress
  | Pong
  | ErrorMessage
  | NotebookRenamed
  | NotebookDeleted
  | FileChangedOnDisk
  | CommEvent
  | CommDone
  | CommInfoReply
  | VariablesMessage
  | DataPage
  | Fatal;

/** Replies that answer a request by its `ref`. */
export type ReplyMessage = CompleteReply | InspectReply | CommInfoReply | VariablesMessage | DataPage | Pong | ErrorMessage;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

/** A comm message from the server, checked field by field (its content is the kernel's, so untrusted):
 * the message, or null when it is malformed. */
export function readCommEvent(message: ServerMessage): CommEvent | CommDone | null {
  const m = message as unknown as Record<string, unknown>;
  if (m.type === "comm_done") return typeof m.msg_id === "string" ? (message as CommDone) : null;
  if (m.type !== "comm_open" && m.type !== "comm_msg" && m.type !== "comm_close") return null;
  if (typeof m.comm_id !== "string" || !isObject(m.data) || !isObject(m.metadata) || !isStrings(m.buffers)) return null;
  if (typeof m.parent_msg_id !== "string" || (m.type === "comm_open" && typeof m.target_name !== "string")) return null;
  return message as CommEvent;
}

/** The snapshot's widget models that are well formed (the others are left out). */
export function readWidgetModels(value: unknown): Record<string, WidgetModelState> {
  const models: Record<string, WidgetModelState> = {};
  if (!isObject(value)) return models;
  for (const [id, model] of Object.entries(value)) {
    if (!isObject(model) || !isObject(model.state) || typeof model.live !== "boolean") continue;
    if (typeof model.model_name !== "string" || typeof model.model_module !== "string") continue;
    if (typeof model.model_module_version !== "string") continue;
    const buffers = model.buffers ?? [];
    const goodBuffers = Array.isArray(buffers) && buffers.every((b) => isObject(b) && Array.isArray(b.path) && typeof b.data === "string");
    if (!goodBuffers) continue;
    models[id] = model as unknown as WidgetModelState;
  }
  return models;
}
