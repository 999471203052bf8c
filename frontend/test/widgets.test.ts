// Widget messages from the server carry the kernel's data: the readers keep only well-formed ones.

import assert from "node:assert/strict";
import { test } from "node:test";
import { readCommEvent, readWidgetModels, type ServerMessage } from "../src/protocol";

const asMessage = (value: unknown) => value as ServerMessage;

test("comm messages from the server are checked field by field", () => {
  const good = { type: "comm_msg", comm_id: "c1", data: { method: "update" }, metadata: {}, buffers: ["AAE="], parent_msg_id: "m1" };
  assert.deepEqual(readCommEvent(asMessage(good)), good);
  assert.equal(readCommEvent(asMessage({ ...good, data: [] })), null);
  assert.equal(readCommEvent(asMessage({ ...good, buffers: [1] })), null);
  assert.equal(readCommEvent(asMessage({ ...good, comm_id: 7 })), null);
  assert.equal(readCommEvent(asMessage({ ...good, parent_msg_id: undefined })), null);
  assert.equal(readCommEvent(asMessage({ ...good, type: "comm_open" })), null); // comm_open needs a target_name
  assert.notEqual(readCommEvent(asMessage({ ...good, type: "comm_open", target_name: "jupyter.widget" })), null);
  assert.deepEqual(readCommEvent(asMessage({ type: "comm_done", msg_id: "m1" })), { type: "comm_done", msg_id: "m1" });
  assert.equal(readCommEvent(asMessage({ type: "comm_done" })), null);
  assert.equal(readCommEvent(asMessage({ type: "cell_outputs" })), null);
});

test("the snapshot's widget models are read defensively", () => {
  const model = { model_name: "IntSliderModel", model_module: "@jupyter-widgets/controls", model_module_version: "2.0.0", state: { value: 3 }, live: true };
  const models = readWidgetModels({
    ok: model,
    withBuffers: { ...model, buffers: [{ path: ["value"], data: "AA==", encoding: "base64" }] },
    badBuffers: { ...model, buffers: [{ path: "value", data: 1 }] },
    noState: { ...model, state: null },
    noLive: { ...model, live: "yes" },
    badName: { ...model, model_name: 1 },
  });
  assert.deepEqual(Object.keys(models).sort(), ["ok", "withBuffers"]);
  assert.deepEqual(readWidgetModels(undefined), {});
  assert.deepEqual(readWidgetModels([model]), {});
});
