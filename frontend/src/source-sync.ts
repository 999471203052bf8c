// Sends cell edits to the server and decides which remote edits to apply.
//
// Every doc change queues the cell's whole text; the queue is flushed in a microtask and always
// before any other message goes out (so `complete`/`execute_cells` see the current text). Remote
// `source_set` events for a cell are held back while one of our own edits to it is still on its way:
// the server applies ours after theirs, so both tabs end up with the same text.

import type { Connection } from "./connection";

/** How long an unacknowledged edit of ours may hold back remote edits of the same cell. */
const IN_FLIGHT_MS = 5000;

export class SourceSync {
  private pending = new Map<string, string>();
  private inFlight = new Map<string, { count: number; at: number }>();
  private scheduled = false;

  constructor(private readonly connection: Connection) {
    connection.addBeforeSend(() => this.flush());
  }

  /** The user changed a cell: send its text soon. */
  changed(cellId: string, source: string): void {
    this.pending.set(cellId, source);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Send every queued edit now. */
  flush(): void {
    this.scheduled = false;
    if (!this.pending.size) return;
    for (const [cell_id, source] of this.pending) {
      if (this.connection.sendRaw({ type: "set_source", cell_id, source })) {
        const count = (this.inFlight.get(cell_id)?.count ?? 0) + 1;
        this.inFlight.set(cell_id, { count, at: performance.now() });
      }
    }
    this.pending.clear();
  }

  /** The server echoed one of our edits. */
  acknowledged(cellId: string): void {
    const entry = this.inFlight.get(cellId);
    if (entry && entry.count > 1) entry.count -= 1;
    else this.inFlight.delete(cellId);
  }

  /** Should a remote edit of `cellId` be shown? (No while an edit of ours is on its way.) */
  acceptRemote(cellId: string): boolean {
    const mine = this.inFlight.get(cellId);
    if (mine && performance.now() - mine.at < IN_FLIGHT_MS) return false;
    this.inFlight.delete(cellId);
    this.pending.delete(cellId);
    return true;
  }

  forget(cellId: string): void {
    this.pending.delete(cellId);
    this.inFlight.delete(cellId);
  }

  /** Forget everything (a fresh snapshot replaces the document, or the socket dropped). */
  reset(): void {
    this.pending.clear();
    this.inFlight.clear();
  }
}
