// Edits typed while the socket is down are kept and rebased on the next snapshot (issue 14.7).

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Connection } from "../src/connection";
import type { ClientMessage } from "../src/protocol";
import { rebase, SourceSync } from "../src/source-sync";

class FakeSocket {
  sent: ClientMessage[] = [];
  open = true;
  addBeforeSend(): void {}
  sendRaw(message: ClientMessage): boolean {
    if (this.open) this.sent.push(message);
    return this.open;
  }
}

test("rebase keeps both sides' changes where they do not overlap", () => {
  const base = "a = 1\nb = 2\n";
  assert.equal(rebase(base, "a = 1\nb = 2\nc = 3\n", base), "a = 1\nb = 2\nc = 3\n");
  assert.equal(rebase(base, base, "a = 10\nb = 2\n"), "a = 10\nb = 2\n");
  assert.equal(rebase(base, "a = 1\nb = 2\nc = 3\n", "a = 10\nb = 2\n"), "a = 10\nb = 2\nc = 3\n");
  assert.equal(rebase(base, "x = 0\na = 1\nb = 2\n", "a = 1\nb = 20\n"), "x = 0\na = 1\nb = 20\n");
  // both appended at the end: theirs first (it reached the server first), ours after
  assert.equal(rebase("x", "x\nmine", "x\ntheirs"), "x\ntheirs\nmine");
  // both changed the same text: ours, the later edit, wins (as a second tab's later edit would)
  assert.equal(rebase("value = 1", "value = 2", "value = 3"), "value = 2");
  assert.equal(rebase("abc", "abc", "abc"), "abc");
  assert.equal(rebase("", "typed", ""), "typed");
});

test("edits typed while disconnected are kept and sent after the snapshot, rebased on it", () => {
  const socket = new FakeSocket();
  const sync = new SourceSync(socket as unknown as Connection);
  const editors = new Map([["a", "print(1)"], ["b", "x = 1"], ["gone", "old"]]);
  sync.resync([{ id: "a", source: "print(1)" }, { id: "b", source: "x = 1" }, { id: "gone", source: "old" }],
    (id) => editors.get(id));

  editors.set("a", "print(1)\nprint(2");
  sync.changed("a", editors.get("a")!);
  socket.open = false; // the edit above was sent but never acknowledged: the socket dropped
  sync.flush();
  sync.disconnected();
  assert.equal(sync.isOnline, false);
  for (const text of ["print(1)\nprint(2)", "print(1)\nprint(2)\nprint(3)"]) {
    editors.set("a", text);
    sync.changed("a", text);
  }
  editors.set("gone", "old but edited");
  sync.changed("gone", "old but edited");
  sync.flush();
  assert.equal(sync.unsentCells, 2);
  assert.equal(sync.acceptRemote("a"), false); // nothing from the old socket overwrites our text

  socket.open = true;
  // Meanwhile another tab edited the start of "a" and "b", and deleted "gone".
  const { rebased, missing } = sync.resync(
    [{ id: "a", source: "# note\nprint(1)" }, { id: "b", source: "x = 2" }], (id) => editors.get(id));
  assert.deepEqual([...rebased], [["a", "# note\nprint(1)\nprint(2)\nprint(3)"]]);
  assert.deepEqual(missing, ["gone"]);
  assert.equal(sync.isOnline, true);
  sync.flush();
  assert.deepEqual(socket.sent.slice(-1), [
    { type: "set_source", cell_id: "a", source: "# note\nprint(1)\nprint(2)\nprint(3)" },
  ]);
});

test("an unacknowledged edit the server did apply is not doubled by the rebase", () => {
  const socket = new FakeSocket();
  const sync = new SourceSync(socket as unknown as Connection);
  sync.resync([{ id: "a", source: "" }], () => "");
  sync.changed("a", "abc");
  sync.flush(); // reached the server, but the echo was lost with the socket
  sync.disconnected();
  sync.changed("a", "abcdef");
  const { rebased } = sync.resync([{ id: "a", source: "abc" }], () => "abcdef");
  assert.deepEqual([...rebased], [["a", "abcdef"]]);
});

test("another tab's edit on top of our unacknowledged text is rebased on that text", () => {
  const socket = new FakeSocket();
  const sync = new SourceSync(socket as unknown as Connection);
  sync.resync([{ id: "a", source: "" }], () => "");
  for (const text of ["first = 1\nse", "first = 1\nsec"]) {
    sync.changed("a", text);
    sync.flush();
  }
  sync.acknowledged("a", "first = 1\nse");
  sync.disconnected(); // the echo of "...sec" was lost; the server has it, and another tab added a line
  const mine = "first = 1\nsecond = 2";
  sync.changed("a", mine);
  const { rebased } = sync.resync([{ id: "a", source: "# b\nfirst = 1\nsec" }], () => mine);
  assert.deepEqual([...rebased], [["a", "# b\nfirst = 1\nsecond = 2"]]);
});

test("a server restarted from an older save does not undo what was typed after it", () => {
  const socket = new FakeSocket();
  const sync = new SourceSync(socket as unknown as Connection);
  sync.resync([{ id: "a", source: "" }], () => "");
  for (const text of ["ab", "abc"]) {
    sync.changed("a", text);
    sync.flush();
    sync.acknowledged("a", text);
  }
  sync.disconnected(); // killed after saving "ab": the restarted server has "ab", not "abc"
  sync.changed("a", "abcd");
  const { rebased } = sync.resync([{ id: "a", source: "ab" }], () => "abcd");
  assert.deepEqual([...rebased], [["a", "abcd"]]);
});

test("a server restarted from before our first edit does not lose its first characters", () => {
  const socket = new FakeSocket();
  const sync = new SourceSync(socket as unknown as Connection);
  sync.resync([{ id: "a", source: "" }], () => "");
  for (const text of ["a", "al", "alpha"]) {
    sync.changed("a", text);
    sync.flush();
    sync.acknowledged("a", text);
  }
  sync.disconnected(); // killed before any save: the restarted server has ""
  const { rebased } = sync.resync([{ id: "a", source: "" }], () => "alpha = 1");
  assert.deepEqual([...rebased], [["a", "alpha = 1"]]);
});

test("an edit carries the editor's cursor, where the server reads the completion prompt (#15)", () => {
  const socket = new FakeSocket();
  const sync = new SourceSync(socket as unknown as Connection);
  sync.resync([{ id: "a", source: "x = " }], () => "x = ");
  sync.changed("a", "x = 1", 5);
  sync.changed("b", "y", undefined);
  sync.flush();
  assert.deepEqual(socket.sent, [
    { type: "set_source", cell_id: "a", source: "x = 1", cursor: 5 },
    { type: "set_source", cell_id: "b", source: "y" },
  ]);
});
