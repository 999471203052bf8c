// The shared texts (collab/shared-text.ts) against a Yjs document standing in for the server's pycrdt one
// (the same update format; the real server is exercised by tests/collab and e2e/test_collaboration.py).

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { fromBase64, toBase64 } from "lib0/buffer";
import * as Y from "yjs";
import { inkOn, me, personOf } from "../src/collab/people";
import { REMOTE, SharedText } from "../src/collab/shared-text";
import { Connection } from "../src/connection";
import type { ClientMessage, Snapshot } from "../src/protocol";

class FakeConnection {
  sent: ClientMessage[] = [];
  hooks: (() => void)[] = [];
  addBeforeSend(hook: () => void): void {
    this.hooks.push(hook);
  }
  sendRaw(message: ClientMessage): boolean {
    this.sent.push(message);
    return true;
  }
  send(message: ClientMessage): boolean {
    for (const hook of this.hooks) hook();
    return this.sendRaw(message);
  }
}

const made: SharedText[] = [];
/** A tab's shared texts on `fake`; destroyed after each test (its awareness runs a timer). */
function tab(fake: FakeConnection): SharedText {
  const shared = new SharedText(fake as unknown as Connection);
  made.push(shared);
  return shared;
}
afterEach(() => {
  for (const shared of made.splice(0)) shared.awareness.destroy();
});

function server(texts: Record<string, string>): Y.Doc {
  const doc = new Y.Doc();
  const sources = doc.getMap("sources");
  for (const [id, text] of Object.entries(texts)) sources.set(id, new Y.Text(text));
  return doc;
}

function snapshot(doc: Y.Doc): Snapshot {
  return { type: "snapshot", text: { guid: doc.guid, update: toBase64(Y.encodeStateAsUpdate(doc)) } } as Snapshot;
}

/** What the server would hold after applying every `y_update` the tab sent. */
function receive(doc: Y.Doc, fake: FakeConnection): void {
  for (const message of fake.sent) if (message.type === "y_update") Y.applyUpdate(doc, fromBase64(message.update));
}

test("typing goes out as one update per microtask, before any other message, with the cell and cursor", async () => {
  const doc = server({ a: "x = 1" });
  const fake = new FakeConnection();
  const shared = tab(fake);
  shared.load(snapshot(doc), () => undefined);
  fake.sent = [];
  shared.text("a")!.insert(5, "0");
  shared.typedIn("a", 6);
  shared.text("a")!.insert(6, "0");
  shared.typedIn("a", 7);
  fake.send({ type: "execute_cells", cell_ids: ["a"] });
  assert.deepEqual(fake.sent.map((m) => m.type), ["y_update", "execute_cells"]);
  assert.deepEqual([(fake.sent[0] as { cell_id?: string }).cell_id, (fake.sent[0] as { cursor?: number }).cursor], ["a", 7]);
  await Promise.resolve();
  assert.equal(fake.sent.length, 2); // the microtask flush finds nothing left
  receive(doc, fake);
  assert.equal(doc.getMap("sources").get("a")!.toString(), "x = 100");
});

test("another tab's update is shown and never sent back", async () => {
  const doc = server({ a: "ab" });
  const fake = new FakeConnection();
  const shared = tab(fake);
  shared.load(snapshot(doc), () => undefined);
  fake.sent = [];
  const before = Y.encodeStateVector(doc);
  (doc.getMap("sources").get("a") as Y.Text).insert(1, "-");
  shared.handle({ type: "y_update", update: toBase64(Y.encodeStateAsUpdate(doc, before)), origin: "other" });
  await Promise.resolve();
  assert.equal(shared.text("a")!.toString(), "a-b");
  assert.deepEqual(fake.sent.filter((m) => m.type === "y_update"), []);
});

test("typing while disconnected merges with the others' after the reconnect: nothing lost", async () => {
  const doc = server({ a: "0123456789" });
  const fake = new FakeConnection();
  const shared = tab(fake);
  shared.load(snapshot(doc), () => undefined);
  shared.disconnected();
  shared.text("a")!.insert(10, "MINE");
  shared.typedIn("a", 14);
  (doc.getMap("sources").get("a") as Y.Text).insert(0, "THEIRS"); // another tab, meanwhile
  fake.sent = [];
  const { replaced, orphans } = shared.load(snapshot(doc), (id) => shared.text(id)?.toString());
  assert.equal(replaced, false);
  assert.equal(orphans.size, 0);
  receive(doc, fake);
  assert.equal(doc.getMap("sources").get("a")!.toString(), "THEIRS0123456789MINE");
  assert.equal(shared.text("a")!.toString(), "THEIRS0123456789MINE");
});

test("a restarted server (a new document): the cells typed in just before the drop are typed again", () => {
  const first = server({ a: "old", b: "kept" });
  const fake = new FakeConnection();
  const shared = tab(fake);
  shared.load(snapshot(first), () => undefined);
  shared.text("a")!.insert(3, " and new");
  shared.typedIn("a", 11);
  shared.disconnected();
  fake.sent = [];
  const restarted = server({ a: "old", b: "kept" }); // what it had saved
  const local = new Map([["a", "old and new"], ["b", "kept"]]);
  const { replaced } = shared.load(snapshot(restarted), (id) => local.get(id));
  assert.equal(replaced, true);
  assert.equal(shared.text("a")!.toString(), "old and new"); // shown at once, and sent as typing
  assert.equal(shared.text("b")!.toString(), "kept");
  shared.flush();
  receive(restarted, fake);
  assert.equal(restarted.getMap("sources").get("a")!.toString(), "old and new");
});

test("a cell typed in while away and deleted meanwhile comes back as an orphan with its text", () => {
  const doc = server({ a: "x", b: "y" });
  const fake = new FakeConnection();
  const shared = tab(fake);
  shared.load(snapshot(doc), () => undefined);
  shared.disconnected();
  shared.text("b")!.insert(1, "z");
  shared.typedIn("b", 2);
  doc.getMap("sources").delete("b");
  const { orphans } = shared.load(snapshot(doc), (id) => shared.text(id)?.toString());
  assert.deepEqual([...orphans], [["b", "yz"]]);
  assert.equal(REMOTE, "remote");
});

test("every colour a tab picks carries white text; a light colour from another client gets dark text", () => {
  for (let i = 0; i < 40; i++) assert.equal(me().ink, "#ffffff"); // no storage here: a fresh pick each time
  assert.equal(inkOn("#ffffff"), "#1f2328");
  assert.equal(inkOn("#30bced"), "#1f2328"); // personOf's default, light blue
  assert.equal(inkOn("#2563eb"), "#ffffff");
  assert.equal(personOf({ user: { name: "Io", color: "#ffee58" } }).ink, "#1f2328");
});

test("a snapshot whose texts come as a binary frame: the connection holds it until the bytes arrive", () => {
  const doc = server({ a: "x = 1\n".repeat(1000) });
  const sockets: FakeSocket[] = [];
  class FakeSocket {
    static OPEN = 1;
    readyState = 1;
    binaryType = "blob";
    onopen: (() => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: (() => void) | null = null;
    constructor() {
      sockets.push(this);
    }
    send(): void {}
    close(): void {}
  }
  const saved = (globalThis as { WebSocket?: unknown }).WebSocket;
  (globalThis as { WebSocket?: unknown }).WebSocket = FakeSocket;
  try {
    const got: Snapshot[] = [];
    const connection = new Connection("ws://x/ws", { onMessage: (m) => got.push(m as Snapshot), onStateChange: () => {} });
    connection.open();
    const socket = sockets[0];
    assert.equal(socket.binaryType, "arraybuffer");
    socket.onmessage!({ data: new Uint8Array([1, 2]).buffer }); // a stray binary frame: ignored
    socket.onmessage!({ data: JSON.stringify({ type: "snapshot", text: { guid: doc.guid, update: null } }) });
    assert.equal(got.length, 0); // nobody sees a snapshot without its texts
    const state = Y.encodeStateAsUpdate(doc);
    socket.onmessage!({ data: state.buffer.slice(state.byteOffset, state.byteOffset + state.byteLength) });
    assert.equal(got.length, 1);
    const fake = new FakeConnection();
    const shared = tab(fake);
    shared.load(got[0], () => undefined);
    assert.equal(shared.text("a")!.toString(), "x = 1\n".repeat(1000));
    assert.deepEqual(fake.sent.filter((m) => m.type === "y_update"), []); // nothing of its own to send back
    connection.close();
  } finally {
    (globalThis as { WebSocket?: unknown }).WebSocket = saved;
  }
});
