// Run controls and outputs (src/runs/): the timing label and JupyterLab's hidden-outputs metadata.

import assert from "node:assert/strict";
import { test } from "node:test";
import { hideOutputsPatch, outputsHidden } from "../src/runs/outputs-hidden";
import { formatElapsed, formatFinished, timingLabel } from "../src/runs/timing";

test("elapsed times read like JupyterLab's", () => {
  assert.equal(formatElapsed(85.4), "85 ms");
  assert.equal(formatElapsed(1234), "1.2 s");
  assert.equal(formatElapsed(12_400), "12 s");
  assert.equal(formatElapsed(125_000), "2 min 5 s");
  assert.equal(formatElapsed(3_780_000), "1 h 3 min");
});

test("the timing label comes from the execution metadata's keys", () => {
  const end = new Date(2026, 11, 4, 14, 3, 1, 300);
  const start = new Date(end.getTime() - 1200);
  const execution = {
    "iopub.status.busy": new Date(start.getTime() - 5).toISOString(),
    "iopub.execute_input": start.toISOString(),
    "shell.execute_reply.started": start.toISOString(),
    "shell.execute_reply": end.toISOString(),
    "iopub.status.idle": end.toISOString(),
  };
  const label = timingLabel({ execution }, new Date(2026, 11, 4, 18, 0));
  assert.equal(label?.text, "1.2 s, 14:03");
  assert.equal(timingLabel({ execution }, new Date(2026, 11, 5, 9, 0))?.text, "1.2 s, 2026-12-04 14:03");
  assert.equal(timingLabel({}), null);
  assert.equal(timingLabel({ execution: { "iopub.status.busy": start.toISOString() } }), null); // still running
  assert.equal(formatFinished(end, end), "14:03");
});

test("hiding outputs sets collapsed and jupyter.outputs_hidden together, keeping jupyter's other keys", () => {
  const metadata = { jupyter: { source_hidden: true }, tags: ["a"] };
  const hide = hideOutputsPatch(metadata, true);
  assert.deepEqual(hide, { collapsed: true, jupyter: { source_hidden: true, outputs_hidden: true } });
  assert.ok(outputsHidden({ ...metadata, ...hide }));
  assert.deepEqual(hideOutputsPatch({ ...metadata, ...hide }, false), { collapsed: null, jupyter: { source_hidden: true } });
  assert.deepEqual(hideOutputsPatch({ collapsed: true, jupyter: { outputs_hidden: true } }, false), { collapsed: null, jupyter: null });
  assert.ok(outputsHidden({ collapsed: true })); // a classic notebook's file: JupyterLab reads `collapsed`
});
