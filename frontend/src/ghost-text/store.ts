// The completion settings, model status and live stats of one notebook connection, shared by its
// editors (debounce, on/off) and the settings panel. Fed by the server's `settings`,
// `model_status` and `completion_stats` messages; asks for the settings on every (re)connect.

import type { Connection } from "../connection";
import type { CompletionSettings, CompletionStats, ModelStatus } from "../protocol";

export type Stats = CompletionStats["stats"];

export const DEFAULT_SETTINGS: CompletionSettings = {
  enabled: true,
  debounce_ms: 500,
  debounce_mode: "fixed",
  suggest: "balanced",
  max_new_tokens: 64,
  context_tokens: 1024,
  model: "default",
  beam_width: 8,
  read_check: false,
  search_ms: 15,
  api_key: "",
  remote_fim: "suffix",
  device: "auto",
  speculative: true,
  notebook_candidates: true,
  draft_model: "",
  edit_model: "",
};

let refCounter = 0;

/** A ref for messages whose replies are handled by listeners rather than `Connection.request`. */
export function nextRef(prefix: string): string {
  return `${prefix}${++refCounter}`;
}

export class CompletionStore {
  settings: CompletionSettings = { ...DEFAULT_SETTINGS };
  /** False until the server has sent its settings. */
  loaded = false;
  model: ModelStatus | null = null;
  stats: Stats | null = null;
  /** The last error answering an update_settings of ours. */
  settingsError: string | null = null;
  private readonly subscribers = new Set<() => void>();
  private readonly pendingUpdates = new Set<string>();

  constructor(readonly connection: Connection) {
    connection.addListener((message) => {
      switch (message.type) {
        case "snapshot":
          // Sent right after the snapshot's handling, once the socket is ready for requests.
          queueMicrotask(() => this.refresh());
          return;
        case "settings":
          this.settings = message.settings;
          this.model = message.model;
          this.loaded = true;
          if (message.ref && this.pendingUpdates.delete(message.ref)) this.settingsError = null;
          break;
        case "model_status":
          this.model = message.model;
          break;
        case "completion_stats":
          this.stats = message.stats;
          break;
        case "error":
          if (!message.ref || !this.pendingUpdates.delete(message.ref)) return;
          this.settingsError = message.message;
          break;
        default:
          return;
      }
      this.notify();
    });
    if (connection.state === "open") this.refresh();
  }

  refresh(): void {
    this.connection.send({ type: "get_settings", ref: nextRef("gs") });
  }

  update(changes: Partial<CompletionSettings>): void {
    const ref = nextRef("us");
    this.pendingUpdates.add(ref);
    this.connection.send({ type: "update_settings", ref, settings: changes });
  }

  subscribe(callback: () => void): () => void {
    this.subscribers.add(callback);
    return () => this.subscribers.delete(callback);
  }

  private notify(): void {
    for (const callback of this.subscribers) callback();
  }
}

const stores = new WeakMap<Connection, CompletionStore>();

export function storeFor(connection: Connection): CompletionStore {
  let store = stores.get(connection);
  if (!store) {
    store = new CompletionStore(connection);
    stores.set(connection, store);
  }
  return store;
}
