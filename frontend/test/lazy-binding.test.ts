// An unbound editor keeps its shared text equal both ways (collab/lazy-binding.ts): CodeMirror changes
// applied to a Y.Text, and a Y.Text's deltas applied to a CodeMirror document, with random edits.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChangeSet, EditorState } from "@codemirror/state";
import { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { applyChanges, changesOf, textsWithRemoteCursors } from "../src/collab/lazy-binding";

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Up to four non-overlapping replacements in `text`, as one change set (never inside a surrogate pair,
 * as an editor never splits one). */
function randomChanges(next: () => number, text: string): ChangeSet {
  const length = text.length;
  const whole = (at: number) => (at > 0 && at < length && /[\udc00-\udfff]/.test(text[at]) ? at - 1 : at);
  const points = Array.from({ length: 2 * (1 + Math.floor(next() * 4)) }, () => whole(Math.floor(next() * (length + 1)))).sort((a, b) => a - b);
  const specs = [];
  for (let i = 0; i < points.length; i += 2) {
    const insert = next() < 0.3 ? "" : ["x", "ab\n", "é", "🙂", "\n\n"][Math.floor(next() * 5)];
    specs.push({ from: points[i], to: points[i + 1], insert });
  }
  return ChangeSet.of(specs, length);
}

test("changes made in an unbound editor reach its shared text exactly", () => {
  const next = random(7);
  for (let round = 0; round < 200; round++) {
    const doc = new Y.Doc();
    const text = doc.getText("t");
    let state = EditorState.create({ doc: "import numpy as np\nx = 1\n" });
    text.insert(0, state.doc.toString());
    for (let step = 0; step < 5; step++) {
      const changes = randomChanges(next, state.doc.toString());
      state = state.update({ changes }).state;
      doc.transact(() => applyChanges(text, changes));
      assert.equal(text.toString(), state.doc.toString());
    }
  }
});

test("another tab's changes reach an unbound editor exactly", () => {
  const next = random(11);
  for (let round = 0; round < 200; round++) {
    const doc = new Y.Doc();
    const text = doc.getText("t");
    text.insert(0, "df = pd.read_csv('a.csv')\ndf.head()\n");
    let state = EditorState.create({ doc: text.toString() });
    text.observe((event) => {
      state = state.update({ changes: changesOf(event.delta) }).state;
    });
    for (let step = 0; step < 5; step++) {
      const changes = randomChanges(next, text.toString());
      doc.transact(() => applyChanges(text, changes)); // several deletes and inserts in one delta
      assert.equal(state.doc.toString(), text.toString());
    }
  }
});

test("the texts holding another tab's cursor are found, never this tab's own", () => {
  const doc = new Y.Doc();
  const sources = doc.getMap<Y.Text>("sources");
  const [a, b] = [new Y.Text("a = 1"), new Y.Text("b = 2")];
  sources.set("a", a);
  sources.set("b", b);
  const mine = new Awareness(doc);
  const other = new Awareness(new Y.Doc());
  try {
    assert.equal(textsWithRemoteCursors(mine).size, 0);
    const at = (text: Y.Text, index: number) => Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(text, index));
    mine.setLocalStateField("cursor", { anchor: at(a, 1), head: at(a, 1) });
    assert.equal(textsWithRemoteCursors(mine).size, 0); // this tab's own cursor binds nothing
    other.setLocalStateField("cursor", { anchor: at(b, 2), head: at(b, 2) });
    mine.states.set(other.clientID, other.getLocalState()!);
    assert.deepEqual([...textsWithRemoteCursors(mine)], [b]);
  } finally {
    mine.destroy();
    other.destroy();
  }
});
