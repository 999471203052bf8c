// Selecting many cells (src/selection/range.ts): the range from an anchor, merge targets, drops, splits.

import assert from "node:assert/strict";
import { test } from "node:test";
import { CellRange, dropIndex, mergeTargets, splitOffsets } from "../src/selection/range";

const order = ["a", "b", "c", "d", "e"];

test("selection: Shift+arrows extend from the anchor and shrink back toward it", () => {
  const range = new CellRange(() => order);
  range.collapse("b");
  assert.deepEqual(range.ids(), ["b"]);
  assert.equal(range.extendBy(1), "c");
  assert.equal(range.extendBy(1), "d");
  assert.deepEqual(range.ids(), ["b", "c", "d"]);
  assert.equal(range.active, "d");
  range.extendBy(-1);
  range.extendBy(-1);
  range.extendBy(-1);
  assert.deepEqual(range.ids(), ["a", "b"]);
  assert.equal(range.extendBy(-1), null); // the first cell
  assert.equal(range.extendBy(Infinity), "e"); // Shift+End
  assert.deepEqual(range.ids(), ["b", "c", "d", "e"]);
});

test("selection: Shift+click from the anchor, Ctrl+A, a collapse", () => {
  const range = new CellRange(() => order);
  range.collapse("d");
  range.extendTo("b");
  assert.deepEqual(range.ids(), ["b", "c", "d"]);
  range.selectAll();
  assert.deepEqual(range.ids(), order);
  assert.equal(range.active, "b");
  range.collapse("c");
  assert.equal(range.isMulti, false);
});

test("selection: merge targets, drop indices and split offsets", () => {
  assert.deepEqual(mergeTargets(["b", "c"], "c", order), ["b", "c"]);
  assert.deepEqual(mergeTargets(["b"], "b", order), ["b", "c"]);
  assert.equal(mergeTargets(["e"], "e", order), null);
  assert.equal(dropIndex(order, ["a"], "b", false), null); // where it is already
  assert.equal(dropIndex(order, ["a"], "c", true), 2); // after c: a, then d
  assert.equal(dropIndex(order, ["d", "e"], "a", false), 0);
  assert.equal(dropIndex(order, ["b", "c"], "c", true), null); // onto itself
  assert.deepEqual(splitOffsets([{ from: 9, to: 4 }, { from: 2, to: 2 }]), [2, 4, 9]);
});
