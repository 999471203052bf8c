// The cells' texts as one Yjs document shared with the server (pycrdt, `ghostbook.collab`) and, through
// it, with every other tab: each cell's editor is bound to its Y.Text by y-codemirror.next, so
// concurrent typing anywhere converges with nothing lost. Only the server adds or removes cells' texts
// (the session owns the structure); tabs only edit them.
//
// Local changes are merged into one update per microtask and always sent before any other message (so
// `execute_cells` runs what was typed). While the socket is down the document keeps the edits; the
// snapshot after a reconnect carries the server's state, and the tab sends back whatever the server
// lacks. A server that restarted has a new document (its guid): the tab then starts from it and types
// again, as the smallest change, the text of the cells it typed in just before the drop.

import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from "y-protocols/awareness";
import * as Y from "yjs";
import type { Connection } from "../connection";
import type { ReceivedTexts, ServerMessage, Snapshot } from "../protocol";
import { fromBase64, toBase64 } from "./base64";

/** The origin of changes that came from the server: never sent back, never undone by this tab. */
export const REMOTE = "remote";
/** The root map's name (the server's `collab.shared_text.SOURCES`). */
const SOURCES = "sources";
/** How long before a drop a cell must have been typed in for its text to be resent to a restarted server
 * (autosave writes about a second after typing stops). */
const UNSAVED_MS = 3000;

export interface Resync {
  /** The document was replaced (a restarted server): every editor must bind to the new texts. */
  replaced: boolean;
  /** Cells typed in while away that the server no longer has: their text, to add back. */
  orphans: Map<string, string>;
}

export class SharedText {
  doc = new Y.Doc();
  awareness = new Awareness(this.doc);
  private guid: string | null = null;
  private queue: Uint8Array[] = [];
  private scheduled = false;
  private online = false;
  private droppedAt = 0;
  /** When each cell was last typed in here (performance.now()). */
  private typed = new Map<string, number>();
  /** The cell and cursor of the latest local edit, sent with the next update (completion reads there). */
  private hint: { cellId: string; cursor: number } | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly connection: Connection) {
    connection.addBeforeSend(() => this.flush());
    this.watch();
  }

  /** True while edits are sent as they happen (a snapshot was loaded on the open socket). */
  get isOnline(): boolean {
    return this.online;
  }

  /** The shared text of a cell (undefined until the server has made it). */
  text(cellId: string): Y.Text | undefined {
    const value = this.doc.getMap(SOURCES).get(cellId);
    return value instanceof Y.Text ? value : undefined;
  }

  /** Run `listener` when the document is replaced (presence re-attaches to the new awareness). */
  onReplaced(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** The user typed in `cellId`; `cursor`: the selection's head after it. */
  typedIn(cellId: string, cursor: number): void {
    this.typed.set(cellId, performance.now());
    this.hint = { cellId, cursor };
  }

  handle(message: ServerMessage): void {
    switch (message.type) {
      case "y_update":
        Y.applyUpdate(this.doc, fromBase64(message.update), REMOTE);
        break;
      case "awareness":
        applyAwarenessUpdate(this.awareness, fromBase64(message.update), REMOTE);
        break;
      case "presence_left":
        removeAwarenessStates(this.awareness, [message.y_client], REMOTE);
        break;
      default:
        break;
    }
  }

  /** A snapshot arrived (connect, reconnect): merge the server's texts and send what it lacks. `local`
   * gives a cell's text as this tab shows it. */
  load(snapshot: Snapshot, local: (cellId: string) => string | undefined): Resync {
    const text: ReceivedTexts = snapshot.text;
    const update = text.state ?? fromBase64(text.update ?? "");
    const recent = [...this.typed].filter(([, at]) => at >= this.droppedAt - UNSAVED_MS).map(([id]) => id);
    const mine = new Map(recent.flatMap((id) => {
      const text = local(id);
      return text === undefined ? [] : [[id, text] as const];
    }));
    if (snapshot.reloaded) mine.clear(); // Revert: the file's text wins over what was typed here
    const replaced = this.guid !== null && this.guid !== snapshot.text.guid;
    if (replaced) this.replaceDoc();
    this.guid = snapshot.text.guid;
    this.online = true;
    this.queue = [];
    const ownEdits = this.doc.store.clients.has(this.doc.clientID);
    Y.applyUpdate(this.doc, update, REMOTE);
    const orphans = new Map<string, string>();
    for (const [id, text] of mine) {
      const shared = this.text(id);
      if (!shared) orphans.set(id, text);
      else if (replaced) splice(shared, text); // typed here as the smallest change: sent as any typing
    }
    if (!replaced && ownEdits) {
      // What this tab typed while away (or what was lost in flight): everything the server's state lacks.
      // Only this tab's own edits can be missing (every other edit came through the server).
      const missing = Y.encodeStateAsUpdate(this.doc, Y.encodeStateVectorFromUpdate(update));
      if (missing.length > 2) this.connection.sendRaw({ type: "y_update", update: toBase64(missing) });
    }
    this.typed.clear();
    this.sendPresence();
    return { replaced, orphans };
  }

  /** The socket dropped: edits stay in the document until the next snapshot. */
  disconnected(): void {
    if (!this.online) return;
    this.flush();
    this.online = false;
    this.droppedAt = performance.now();
  }

  /** Send the queued local changes now, as one update. */
  flush(): void {
    this.scheduled = false;
    if (!this.queue.length || !this.online) return;
    const update = this.queue.length === 1 ? this.queue[0] : Y.mergeUpdates(this.queue);
    this.queue = [];
    const hint = this.hint;
    this.hint = null;
    const message = { type: "y_update" as const, update: toBase64(update), ...(hint ? { cell_id: hint.cellId, cursor: hint.cursor } : {}) };
    if (!this.connection.sendRaw(message)) this.disconnected(); // the reconnect's snapshot sends it again
  }

  private watch(): void {
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin === REMOTE || !this.online) return; // offline: the next snapshot works out what to send
      this.queue.push(update);
      if (this.scheduled) return;
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    });
    this.awareness.on("update", (_: unknown, origin: unknown) => {
      if (origin !== REMOTE) this.sendPresence();
    });
  }

  private sendPresence(): void {
    if (!this.online || this.awareness.getLocalState() === null) return;
    const update = toBase64(encodeAwarenessUpdate(this.awareness, [this.doc.clientID]));
    this.connection.sendRaw({ type: "awareness", update, y_client: this.doc.clientID });
  }

  private replaceDoc(): void {
    const state = this.awareness.getLocalState();
    this.awareness.destroy();
    this.doc.destroy();
    this.doc = new Y.Doc();
    this.awareness = new Awareness(this.doc);
    if (state) this.awareness.setLocalState(state);
    this.watch();
    for (const listener of this.listeners) listener();
  }
}

/** Change `text` to `target` by replacing only the differing middle. */
export function splice(text: Y.Text, target: string): void {
  const current = text.toString();
  if (current === target) return;
  let start = 0;
  const max = Math.min(current.length, target.length);
  while (start < max && current.charCodeAt(start) === target.charCodeAt(start)) start++;
  let end = current.length;
  let endTarget = target.length;
  while (end > start && endTarget > start && current.charCodeAt(end - 1) === target.charCodeAt(endTarget - 1)) {
    end--;
    endTarget--;
  }
  text.doc!.transact(() => {
    if (end > start) text.delete(start, end - start);
    if (endTarget > start) text.insert(start, target.slice(start, endTarget));
  });
}
