// Wire messages between this UI and the Ghostbook server, one websocket per (tab, notebook).
// The message types are generated from the server's pydantic models (notebook/ghostbook/protocol/) into
// protocol.generated.ts by `make protocol`; this file adds what a schema cannot say: names for parts of
// them, constants and helpers.

import type {
  AskConversation,
  AskError,
  Cell,
  CommDone,
  CommEvent,
  CommInfoReply,
  CompleteReply,
  DataPage,
  EditError,
  ErrorMessage,
  InspectReply,
  KernelInfo,
  Pong,
  SaveInfo,
  ServerMessage,
  SharedTexts,
  SuggestFeedback,
  VariablesMessage,
  WidgetModelState,
} from "./protocol.generated";

export type * from "./protocol.generated";

export type CellType = Cell["cell_type"];
export type CellState = Cell["state"];
export type KernelStatus = KernelInfo["status"];
/** conflict: the file changed on disk; nothing is saved until a tab sends resolve_file_change. */
export type SaveStatus = SaveInfo["status"];
/** Markdown images referenced as `attachment:NAME`: {NAME: {mime: base64}}. */
export type Attachments = Cell["attachments"];
/** Where the cursor was when a suggestion was asked for (ghost-text/logic.ts `cursorKind`). */
export type SuggestionKind = NonNullable<SuggestFeedback["kind"]>;
/** The key that first took some of a suggestion: Tab, Ctrl+→, Ctrl+↓. */
export type AcceptKind = NonNullable<SuggestFeedback["accept"]>;
export type EditErrorReason = EditError["reason"];

/** base64 characters an attachment may have (server: protocol/client.py MAX_ATTACHMENT_BASE64). */
export const MAX_ATTACHMENT_BASE64 = 4_000_000;

/** A snapshot's shared texts as the connection hands them on: on the browser's socket (`texts=shared`)
 * `update` is null and the state, the binary frame after the snapshot, is put in `state`. */
export type ReceivedTexts = SharedTexts & { state?: Uint8Array };

/** Replies that answer a request by its `ref`. */
export type ReplyMessage = CompleteReply | InspectReply | CommInfoReply | VariablesMessage | DataPage | Pong | ErrorMessage
  | AskConversation | AskError;

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
