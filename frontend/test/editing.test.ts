// Edit with AI's texts: the proposal in its range, the streamed view, the reviewed range, and a typed
// edit of the review carried over onto the original cell.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChangeSet, Text } from "@codemirror/state";
import { acceptedChange, noteAcceptedChange } from "../src/editing/fix-cause";
import { proposalSummary, targetText } from "../src/editing/messages";
import type { EditProposal } from "../src/protocol";
import {
  applyRange,
  carryOver,
  changesBetween,
  rangeFromWire,
  rangeText,
  selectionToWire,
  streamingText,
} from "../src/editing/text";

test("a wire range (code points) becomes a UTF-16 range and back", () => {
  const text = "s = '😀'\nx = 1\n";
  const wire: [number, number] = [8, 14]; // the second line, counted in code points
  const range = rangeFromWire(text, wire);
  assert.equal(text.slice(range.from, range.to), "x = 1\n");
  assert.deepEqual(selectionToWire(text, range.from, range.to), wire);
  assert.deepEqual(selectionToWire(text, range.to, range.from), wire); // a backwards selection
  assert.equal(selectionToWire(text, 3, 3), null);
  assert.deepEqual(rangeFromWire("ab", [5, 9]), { from: 2, to: 2 }); // clamped to the text
});

test("a proposal replaces its range; the reviewed range is read back from the whole cell", () => {
  const original = "import os\nx = 1\ny = 2\n";
  const range = { from: 10, to: 16 }; // "x = 1\n"
  const reviewed = applyRange(original, range, "x = 10\nz = 3\n");
  assert.equal(reviewed, "import os\nx = 10\nz = 3\ny = 2\n");
  assert.equal(rangeText(original, range, reviewed), "x = 10\nz = 3\n");
  const whole = { from: 0, to: original.length };
  assert.equal(applyRange(original, whole, "pass\n"), "pass\n");
  assert.equal(rangeText(original, whole, "pass\n"), "pass\n");
});

test("while streaming, the lines not reached yet read as unchanged", () => {
  const original = "a = 1\nb = 2\nc = 3\nd = 4";
  assert.equal(streamingText(original, ""), original);
  assert.equal(streamingText(original, "a = 1"), original); // no complete line yet
  assert.equal(streamingText(original, "a = 1\nb = 2\n"), original); // a copy so far
  assert.equal(streamingText(original, "a = 1\nb = 20\nc"), "a = 1\nb = 20\nc = 3\nd = 4");
  // an inserted line: the copy's next line is matched to where it is in the original
  assert.equal(streamingText(original, "a = 1\nnew = 0\nb = 2\n"), "a = 1\nnew = 0\nb = 2\nc = 3\nd = 4");
  // a repeated line is matched to the nearest occurrence
  assert.equal(streamingText("x\n\nx\n\nx\ny", "x\n\nx\n"), "x\n\nx\n\nx\ny");
  assert.equal(streamingText(original, "a = 1\nb = 2\nc = 3\nd = 4\n"), "a = 1\nb = 2\nc = 3\nd = 4");
});

test("changesBetween turns one text into the other with minimal changes", () => {
  const a = "import numpy\nx = numpy.zeros(3)\nprint(x)\n";
  const b = "import numpy as np\nx = np.zeros(3)\nprint(x)\n";
  const changes = changesBetween(a, b);
  assert.equal(changes.apply(textOf(a)).toString(), b);
  let touched = 0;
  changes.iterChanges((fromA, toA) => (touched += toA - fromA));
  assert.ok(touched < 10, `only the differing characters are replaced (${touched})`);
});

test("typing in the review edits the original cell instead (the user's edit wins)", () => {
  const original = "x = 1\nprint(x)\n";
  const shown = "import numpy as np\nx = 1\nprint(x)\n"; // the proposal added a line at the top
  // typed "# hi" at the end of "print(x)" in the review
  const at = shown.indexOf("print(x)") + "print(x)".length;
  const typed = ChangeSet.of([{ from: at, insert: "  # hi" }], shown.length);
  const carried = carryOver(original, shown, typed, at);
  assert.equal(carried.text, "x = 1\nprint(x)  # hi\n");
  assert.equal(carried.head, original.indexOf("print(x)") + "print(x)  # hi".length);
  // a deletion in an unchanged line
  const gone = ChangeSet.of([{ from: shown.indexOf("1"), to: shown.indexOf("1") + 1, insert: "2" }], shown.length);
  assert.equal(carryOver(original, shown, gone, shown.indexOf("1")).text, "x = 2\nprint(x)\n");
  // typing inside the proposed line lands where that line would go in the original
  const inside = ChangeSet.of([{ from: 3, insert: "Z" }], shown.length);
  assert.equal(carryOver(original, shown, inside, 3).text, "Zx = 1\nprint(x)\n");
});

test("a finished proposal is summed up with its source and cost", () => {
  const proposal: EditProposal = {
    type: "edit_proposal", ref: "e1", cell_id: "c", range: [0, 5], text: "y", done: true, source: "model",
    warning: null, description: null, stats: { calls: 12, tokens: 40, ms: 1500, speculative: false },
  };
  assert.equal(proposalSummary(proposal, 2), "2 changed blocks · edit model · 1.5 s · 40 tokens in 12 model calls");
  assert.equal(proposalSummary({ ...proposal, source: "rules", stats: null }, 1), "1 changed block · offline fix");
  const server = { ...proposal, stats: { calls: 0, tokens: 9, ms: 500, speculative: false } };
  assert.equal(proposalSummary(server, 1), "1 changed block · edit model · 0.5 s · 9 tokens");
  // an in-process chat model's proposal (SmolLM2-135M-Instruct, "use sum": tests/editing/test_ws_edit.py)
  const chat = { ...proposal, stats: { calls: 10, tokens: 27, ms: 848.0, speculative: true } };
  assert.equal(proposalSummary(chat, 1), "1 changed block · edit model · 0.8 s · 27 tokens in 10 model calls");
  const copied = { ...proposal, stats: { calls: 1, tokens: 19, ms: 310.2, speculative: true } };
  assert.equal(proposalSummary(copied, 0), "no change · edit model · 0.3 s · 19 tokens in 1 model call");
  assert.equal(proposalSummary({ ...proposal, done: false }, 0), "Writing… no change so far");
  assert.equal(proposalSummary({ ...proposal, done: false }, 1, false), "Stopped: 1 changed block so far");
  assert.equal(targetText(null, null), "Rewrites the whole cell");
  assert.equal(targetText([0, 4], [2, 2]), "Rewrites line 2");
  assert.equal(targetText([0, 9], [2, 4]), "Rewrites lines 2–4");
});

function textOf(value: string): Text {
  return Text.of(value.split("\n"));
}

test("an accepted change is its cell's Fix cause until the cell is back to its text before it", () => {
  const cause = { before: "radius = 2", instruction: "use a radius of 3" };
  noteAcceptedChange("cell-a", cause);
  assert.deepEqual(acceptedChange("cell-a", "radius = 3"), cause);
  assert.equal(acceptedChange("cell-a", "radius = 2"), null); // undone: no cause
  assert.equal(acceptedChange("cell-b", "x = 1"), null);
  noteAcceptedChange("cell-a", { before: "radius = 3", instruction: "again" }); // a later change replaces it
  assert.equal(acceptedChange("cell-a", "radius = 4")?.instruction, "again");
});
