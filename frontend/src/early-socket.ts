// The notebook's websocket, opened by a small classic script in the page's <head> (src/preopen.ts) while
// the main bundle is still loading, so the server builds and sends the snapshot meanwhile. The
// Connection adopts it with the messages it has had so far; main.ts and preopen.ts read the page's
// route the same way here.

/** A socket opened before the app, and what it received before the app took it. */
export interface EarlySocket {
  url: string;
  socket: WebSocket;
  received: (string | ArrayBuffer)[];
}

const KEY = "__ghostbookEarlySocket";

type Holder = { [KEY]?: EarlySocket };

/** The notebook's path from a page path (`/notebooks/a/b.ipynb` → `a/b.ipynb`); null for other pages. */
export function notebookPathOf(pathname: string): string | null {
  return pathname.startsWith("/notebooks/") ? decodePath(pathname.slice("/notebooks/".length)) : null;
}

export function decodePath(rest: string): string {
  return rest
    .split("/")
    .filter((part) => part.length > 0)
    .map(decodeURIComponent)
    .join("/");
}

export function notebookSocketUrl(path: string): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  // texts=shared: the snapshot's cells come without their sources, which the shared texts carry (collab/)
  return `${scheme}//${location.host}/ws?path=${encodeURIComponent(path)}&texts=shared`;
}

/** Open the socket of the notebook this page shows (nothing on other pages), keeping what arrives. */
export function openEarly(): void {
  const path = notebookPathOf(location.pathname);
  if (path === null || typeof WebSocket === "undefined") return;
  const url = notebookSocketUrl(path);
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  const early: EarlySocket = { url, socket, received: [] };
  socket.onmessage = (event) => early.received.push(event.data as string | ArrayBuffer);
  (globalThis as Holder)[KEY] = early;
}

/** The early socket for `url`, once, while it is connecting or open (else null: open a new one). */
export function takeEarly(url: string): EarlySocket | null {
  const holder = globalThis as Holder;
  const early = holder[KEY];
  delete holder[KEY];
  if (!early || early.url !== url) {
    early?.socket.close();
    return null;
  }
  if (early.socket.readyState === WebSocket.CONNECTING || early.socket.readyState === WebSocket.OPEN) return early;
  return null;
}
