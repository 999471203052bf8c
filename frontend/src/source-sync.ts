// Sends cell edits to the server and decides which remote edits to apply.
//
// Every doc change queues the cell's whole text; the queue is flushed in a microtask and always
// before any other message goes out (so `complete`/`execute_cells` see the current text). Remote
// `source_set` events for a cell are held back while one of our own edits to it is still on its way:
// the server applies ours after theirs, so both tabs end up with the same text.
//
// While the socket is down (from its close until the next snapshot) edits are kept, not sent. The
// snapshot that follows a reconnect is the server's current revision: each cell edited meanwhile
// (or whose last edit was never acknowledged) is rebased onto it, as a later edit of a second tab
// would be, and sent.

import type { Connection } from "./connection";
import type { SetSource } from "./protocol";

/** How long an unacknowledged edit of ours may hold back remote edits of the same cell. */
const IN_FLIGHT_MS = 5000;
/** Texts remembered per cell as this tab sent them: the server may come back holding any of them. */
const MAX_SENT = 64;
const MAX_SENT_BIG = 8; // for cells over BIG_CELL characters, so memory stays small
const BIG_CELL = 64 * 1024;

/** One contiguous change: `base.slice(from, to)` became `insert`. */
interface Splice {
  from: number;
  to: number;
  insert: string;
}

function splice(base: string, text: string): Splice {
  let from = 0;
  const max = Math.min(base.length, text.length);
  while (from < max && base.charCodeAt(from) === text.charCodeAt(from)) from++;
  let to = base.length;
  let end = text.length;
  while (to > from && end > from && base.charCodeAt(to - 1) === text.charCodeAt(end - 1)) {
    to--;
    end--;
  }
  return { from, to, insert: text.slice(from, end) };
}

function changeSize(base: string, text: string): number {
  const change = splice(base, text);
  return change.to - change.from + change.insert.length;
}

/**
 * Three-way merge of one cell's text: `mine` and `theirs` both started from `base`. Changes in
 * separate places both survive; where they overlap, `mine` (the later edit) wins.
 */
export function rebase(base: string, mine: string, theirs: string): string {
  if (theirs === base || mine === theirs) return mine;
  if (mine === base) return theirs;
  const a = splice(base, mine);
  const b = splice(base, theirs);
  // Apply the earlier one first; two insertions at one point keep theirs first (ours came later).
  const mineFirst = a.from < b.from || (a.from === b.from && a.to < b.to);
  const [first, second] = mineFirst ? [a, b] : [b, a];
  if (first.to > second.from) return mine; // both changed the same text
  return base.slice(0, first.from) + first.insert + base.slice(first.to, second.from) + second.insert + base.slice(second.to);
}

export class SourceSync {
  private pending = new Map<string, string>();
  /** The cursor after each pending edit, where the editor said (sent along: the server prefills there). */
  private cursors = new Map<string, number>();
  private inFlight = new Map<string, { count: number; at: number }>();
  /** The last texts we sent per cell since the last snapshot. After a drop the server may hold one
   * whose echo was lost, or, restarted after a crash, the one it saved last. */
  private sent = new Map<string, string[]>();
  /** The text the server is known to hold for each cell: the base that offline edits rebase on. */
  private server = new Map<string, string>();
  /** Cells edited since the socket dropped (or whose edits were unacknowledged when it did). */
  private offline = new Set<string>();
  private online = true; // false from a socket drop until the next snapshot
  /** Echoes still to come (per cell, how many) of edits sent before a Revert that the server applied after it. */
  private beforeReload = new Map<string, number>();
  private scheduled = false;

  constructor(private readonly connection: Connection) {
    connection.addBeforeSend(() => this.flush());
  }

  /** True while edits are sent as they happen (a snapshot was loaded on the open socket). */
  get isOnline(): boolean {
    return this.online;
  }

  /** Number of cells whose edits wait for the connection. */
  get unsentCells(): number {
    return this.online ? 0 : this.offline.size;
  }

  /** The user changed a cell: send its text soon (or keep it until the connection is back). */
  changed(cellId: string, source: string, cursor?: number): void {
    if (!this.online) {
      this.offline.add(cellId);
      return;
    }
    this.pending.set(cellId, source);
    if (cursor === undefined) this.cursors.delete(cellId);
    else this.cursors.set(cellId, cursor);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Send every queued edit now. */
  flush(): void {
    this.scheduled = false;
    if (!this.pending.size || !this.online) return;
    for (const [cell_id, source] of this.pending) {
      const cursor = this.cursors.get(cell_id);
      const message: SetSource = { type: "set_source", cell_id, source };
      if (cursor !== undefined) message.cursor = cursor;
      if (this.connection.sendRaw(message)) {
        const count = (this.inFlight.get(cell_id)?.count ?? 0) + 1;
        this.inFlight.set(cell_id, { count, at: performance.now() });
        // The first entry is the server's text before our first edit since the snapshot.
        const sent = this.sent.get(cell_id) ?? [this.server.get(cell_id) ?? ""];
        sent.push(source);
        while (sent.length > (source.length > BIG_CELL ? MAX_SENT_BIG : MAX_SENT)) sent.splice(1, 1);
        this.sent.set(cell_id, sent);
      } else {
        this.offline.add(cell_id); // the socket is closing: resent after the next snapshot
      }
    }
    this.pending.clear();
    this.cursors.clear();
  }

  /** The server echoed one of our edits. True when the editor should show its text: an edit sent before a
   * Revert reached the server after it (so the server holds it), and no newer edit of ours is on its way. */
  acknowledged(cellId: string, source: string): boolean {
    this.server.set(cellId, source);
    const stale = this.beforeReload.get(cellId);
    if (stale !== undefined) {
      if (stale > 1) this.beforeReload.set(cellId, stale - 1);
      else this.beforeReload.delete(cellId);
      return !this.inFlight.has(cellId) && !this.pending.has(cellId);
    }
    const entry = this.inFlight.get(cellId);
    if (entry && entry.count > 1) entry.count -= 1;
    else this.inFlight.delete(cellId);
    return false;
  }

  /** The server holds `source` for a cell (another tab's edit, or a new cell). */
  serverSource(cellId: string, source: string): void {
    this.server.set(cellId, source);
  }

  /** Should a remote edit of `cellId` be shown? (No while an edit of ours is on its way.) */
  acceptRemote(cellId: string): boolean {
    if (!this.online && this.offline.has(cellId)) return false;
    const mine = this.inFlight.get(cellId);
    if (mine && performance.now() - mine.at < IN_FLIGHT_MS) return false;
    this.inFlight.delete(cellId);
    this.pending.delete(cellId);
    return true;
  }

  forget(cellId: string): void {
    this.pending.delete(cellId);
    this.inFlight.delete(cellId);
    this.server.delete(cellId);
    this.offline.delete(cellId);
    this.sent.delete(cellId);
  }

  /** The server reloaded the notebook from its file (Revert): forget every edit not yet acknowledged, so
   * that the next snapshot's text is taken as it is rather than rebased on. */
  reset(): void {
    for (const [id, { count }] of this.inFlight) this.beforeReload.set(id, (this.beforeReload.get(id) ?? 0) + count);
    this.pending.clear();
    this.cursors.clear();
    this.inFlight.clear();
    this.sent.clear();
    this.offline.clear();
    this.scheduled = false;
  }

  /** The socket dropped: keep every unsent or unacknowledged edit for the next snapshot. */
  disconnected(): void {
    this.beforeReload.clear(); // the old socket's echoes never come
    if (!this.online) return;
    this.flushPendingToOffline();
    this.online = false;
  }

  /**
   * A snapshot arrived: the server's revision. Returns, per cell edited while disconnected, its
   * text rebased on the snapshot (now queued to be sent), and the ids of such cells the snapshot
   * no longer has. `local` gives a cell's current text in this tab.
   */
  resync(cells: { id: string; source: string }[], local: (id: string) => string | undefined): {
    rebased: Map<string, string>;
    missing: string[];
  } {
    this.flushPendingToOffline();
    const dirty = this.offline;
    const previous = this.server;
    const sent = this.sent;
    this.sent = new Map();
    this.offline = new Set();
    this.server = new Map(cells.map((cell) => [cell.id, cell.source]));
    this.online = true;
    const rebased = new Map<string, string>();
    const unsent = [...dirty];
    for (const id of sent.keys()) dirty.add(id); // the server may have come back without our last edits
    for (const cell of cells) {
      const mine = dirty.has(cell.id) ? local(cell.id) : undefined;
      if (mine === undefined) continue;
      // The base is whichever text we know the server's is the smallest change from: its last
      // text we heard of, or one we sent (echo lost, or the server restarted from its last save).
      const known = [previous.get(cell.id) ?? cell.source, ...(sent.get(cell.id) ?? [])];
      const base = known.reduce((best, t) => (changeSize(t, cell.source) < changeSize(best, cell.source) ? t : best));
      const text = rebase(base, mine, cell.source);
      if (text === cell.source) continue;
      rebased.set(cell.id, text);
      this.changed(cell.id, text);
    }
    const present = new Set(cells.map((cell) => cell.id));
    return { rebased, missing: unsent.filter((id) => !present.has(id) && local(id) !== undefined) };
  }

  private flushPendingToOffline(): void {
    for (const id of this.pending.keys()) this.offline.add(id);
    for (const id of this.inFlight.keys()) this.offline.add(id);
    this.pending.clear();
    this.inFlight.clear();
    this.scheduled = false;
  }
}
