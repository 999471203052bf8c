// One websocket per open notebook: sends client messages, matches replies to requests by `ref`,
// and reconnects with backoff (each reconnect starts with a fresh snapshot from the server; what was
// typed meanwhile is kept by the shared texts and merged into it).

import type { ClientMessage, ReceivedTexts, ReplyMessage, ServerMessage, Snapshot } from "./protocol";

export type ConnectionState = "connecting" | "open" | "closed" | "fatal";

export interface ConnectionHandlers {
  onMessage(message: ServerMessage): void;
  onStateChange(state: ConnectionState): void;
}

interface Pending {
  resolve(reply: ReplyMessage | null): void;
}

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 5000];
const REQUEST_TIMEOUT_MS = 15000;

export class Connection {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private refCounter = 0;
  private pending = new Map<string, Pending>();
  private beforeSendHooks: (() => void)[] = [];
  private listeners = new Set<(message: ServerMessage) => void>();
  private reconnectTimer: number | null = null;
  private fatal = false;
  /** A snapshot whose texts' state comes as the next (binary) frame. */
  private awaitingState: Snapshot | null = null;
  state: ConnectionState = "connecting";

  constructor(
    private url: string,
    private readonly handlers: ConnectionHandlers,
  ) {
    // The network is back (laptop woke up, Wi-Fi returned): do not wait for the backoff.
    if (typeof window !== "undefined") window.addEventListener("online", () => this.reconnectNow());
  }

  static forNotebook(path: string, handlers: ConnectionHandlers): Connection {
    return new Connection(notebookSocketUrl(path), handlers);
  }

  /** The notebook was renamed or moved: reconnect (when needed) under its new path. */
  followNotebook(path: string): void {
    this.url = notebookSocketUrl(path);
  }

  /** Run `hook` before every outgoing message (used to flush pending edits first). */
  addBeforeSend(hook: () => void): void {
    this.beforeSendHooks.push(hook);
  }

  /** See every server message (e.g. streamed `suggestion`s for ghost text); returns an unsubscribe. */
  addListener(listener: (message: ServerMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  open(): void {
    this.setState("connecting");
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.setState("open");
    };
    socket.binaryType = "arraybuffer";
    this.awaitingState = null;
    socket.onmessage = (event) => this.receive(event.data as string | ArrayBuffer);
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.failPending();
      if (this.fatal) {
        this.setState("fatal");
        return;
      }
      this.setState("closed");
      this.scheduleReconnect();
    };
  }

  /** Send a message; pending edits are flushed first so the server's copy is current. */
  send(message: ClientMessage): boolean {
    for (const hook of this.beforeSendHooks) hook();
    return this.sendRaw(message);
  }

  /** Send without running the before-send hooks (used by the hooks themselves). */
  sendRaw(message: ClientMessage): boolean {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Send a request and wait for the reply carrying its ref (null if the socket dropped). */
  request<T extends ReplyMessage>(message: ClientMessage): Promise<T | ErrorMessageLike | null> {
    const ref = `r${++this.refCounter}`;
    return new Promise((resolve) => {
      const timer = window.setTimeout(() => {
        this.pending.delete(ref);
        resolve(null);
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(ref, {
        resolve: (reply) => {
          window.clearTimeout(timer);
          resolve(reply as T | null);
        },
      });
      if (!this.send({ ...message, ref })) {
        this.pending.get(ref)?.resolve(null);
        this.pending.delete(ref);
      }
    });
  }

  /** Reconnect at once if the socket is down (the backoff starts over). */
  reconnectNow(): void {
    if (this.fatal || this.socket) return;
    if (this.reconnectTimer !== null) window.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.attempt = 0;
    this.open();
  }

  close(): void {
    this.fatal = true;
    this.socket?.close();
  }

  private receive(raw: string | ArrayBuffer): void {
    let message: ServerMessage;
    if (typeof raw !== "string") {
      // The only binary frame: the shared texts' state, right after a snapshot whose `text.update` is null.
      if (!this.awaitingState) return;
      const text: ReceivedTexts = { ...this.awaitingState.text, state: new Uint8Array(raw) };
      message = { ...this.awaitingState, text };
      this.awaitingState = null;
    } else {
      try {
        message = JSON.parse(raw) as ServerMessage;
      } catch {
        return;
      }
      if (message.type === "snapshot" && message.text.update === null) {
        this.awaitingState = message;
        return;
      }
    }
    // No reconnecting after these: the notebook cannot be opened, or its file is gone.
    if (message.type === "fatal" || message.type === "notebook_deleted") this.fatal = true;
    for (const listener of this.listeners) listener(message);
    const ref = "ref" in message ? message.ref : null;
    if (ref && this.pending.has(ref)) {
      const entry = this.pending.get(ref)!;
      this.pending.delete(ref);
      // The requester decides what to show (a failed completion should not raise a toast).
      entry.resolve(message as ReplyMessage);
      return;
    }
    this.handlers.onMessage(message);
  }

  private failPending(): void {
    for (const entry of this.pending.values()) entry.resolve(null);
    this.pending.clear();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer !== null) return;
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.reconnectTimer = window.setTimeout(() => {
      this.reconnectTimer = null;
      this.open();
    }, delay);
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    this.handlers.onStateChange(state);
  }
}

function notebookSocketUrl(path: string): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  // texts=shared: the snapshot's cells come without their sources, which the shared texts carry (collab/)
  return `${scheme}//${location.host}/ws?path=${encodeURIComponent(path)}&texts=shared`;
}

type ErrorMessageLike = { type: "error"; ref: string | null; message: string };
