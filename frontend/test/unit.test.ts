// Unit tests for the frontend's pure logic (run with `npm test`: esbuild bundles, node:test runs).

import assert from "node:assert/strict";
import { test } from "node:test";
import { saveLabel } from "../src/kernel-bar";
import { NotebookState, type CellModel } from "../src/notebook-state";
import { toCodePoints, toUtf16 } from "../src/offsets";
import { attachmentUrl } from "../src/markdown";
import { joinText, pickMime } from "../src/outputs";
import "./appearance.test";
import "./ask.test";
import "./disk-change.test";
import "./editing.test";
import "./export.test";
import "./install.test";
import "./math.test";
import "./ghost-text.test";
import "./notebook-ux.test";
import "./outputs.test";
import "./search.test";
import "./selection.test";
import "./runs.test";
import "./collab.test";
import "./variables.test";
import "./widgets.test";
import "./outline.test";
import "./markdown-files.test";
import "./in-order.test";
import "./lazy-binding.test";

test("offsets convert between UTF-16 units and code points", () => {
  const text = "a😀b = 1";
  assert.equal(toCodePoints(text, 0), 0);
  assert.equal(toCodePoints(text, 3), 2); // after the emoji (2 UTF-16 units)
  assert.equal(toCodePoints(text, text.length), 7);
  assert.equal(toUtf16(text, 2), 3);
  assert.equal(toUtf16(text, 7), text.length);
  for (let i = 0; i <= 7; i++) assert.equal(toCodePoints(text, toUtf16(text, i)), i);
});

test("the richest mime type wins", () => {
  assert.equal(pickMime({ "text/plain": "x", "text/html": "<b>x</b>" }), "text/html");
  assert.equal(pickMime({ "text/plain": "x", "image/png": "AAA" }), "image/png");
  assert.equal(pickMime({ "image/svg+xml": "<svg/>", "image/png": "AAA" }), "image/svg+xml");
  assert.equal(pickMime({ "text/plain": "x", "application/json": {} }), "application/json");
  assert.equal(pickMime({ "application/x-custom": 1 }), "application/x-custom");
  assert.equal(pickMime({}), null);
  assert.equal(joinText(["a\n", "b"]), "a\nb");
});

function cell(id: string): CellModel {
  return { id, type: "code", source: "", outputs: [], executionCount: null, state: "idle" };
}

test("notebook state inserts, moves and removes cells by final index", () => {
  const state = new NotebookState();
  for (const id of ["a", "b", "c"]) state.insert(99, cell(id));
  assert.deepEqual(state.cells.map((c) => c.id), ["a", "b", "c"]);
  assert.equal(state.move("a", 1), 1);
  assert.deepEqual(state.cells.map((c) => c.id), ["b", "a", "c"]);
  assert.equal(state.move("c", 0), 0);
  assert.deepEqual(state.cells.map((c) => c.id), ["c", "b", "a"]);
  assert.equal(state.remove("b"), 1);
  assert.equal(state.remove("zz"), -1);
  assert.deepEqual(state.cells.map((c) => c.id), ["c", "a"]);
});

test("save status labels", () => {
  assert.equal(saveLabel({ status: "saved", message: null }), "saved");
  assert.equal(saveLabel({ status: "dirty", message: null }), "unsaved");
  assert.equal(saveLabel({ status: "saving", message: null }), "saving…");
  assert.equal(saveLabel({ status: "error", message: "disk full" }), "save failed: disk full");
});


test("markdown attachments become data: URLs (issue 14.15)", () => {
  const attachments = { "red dot.png": { "image/png": "iVBO\nRw==" }, "a.svg": { "image/svg+xml": "<svg/>" } };
  assert.equal(attachmentUrl(attachments, "red dot.png"), "data:image/png;base64,iVBORw==");
  assert.equal(attachmentUrl(attachments, "red%20dot.png"), "data:image/png;base64,iVBORw==");
  assert.equal(attachmentUrl(attachments, "a.svg"), "data:image/svg+xml;charset=utf-8,%3Csvg%2F%3E");
  assert.equal(attachmentUrl(attachments, "missing.png"), null);
  assert.equal(attachmentUrl({ "t.txt": { "text/plain": "x" } }, "t.txt"), null);
});
