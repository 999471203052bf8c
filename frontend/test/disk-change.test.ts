// Issue 41.5: the file changed on disk. After a Revert the snapshot's text is taken as it is (not rebased on
// this tab's edits), and an edit sent before the Revert but applied after it still leaves the tab agreeing
// with the server.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Connection } from "../src/connection";
import { fileChangedText } from "../src/disk-change/file-changed-bar";
import { saveLabel } from "../src/kernel-bar";
import type { ClientMessage } from "../src/protocol";
import { SourceSync } from "../src/source-sync";

function syncWithSocket(): { sync: SourceSync; sent: ClientMessage[] } {
  const sent: ClientMessage[] = [];
  const socket = { addBeforeSend(): void {}, sendRaw: (m: ClientMessage) => (sent.push(m), true) };
  return { sync: new SourceSync(socket as unknown as Connection), sent };
}

test("the File Changed bar says what JupyterLab says; the save status says why nothing saves", () => {
  assert.equal(fileChangedText("work/n.ipynb"), '"work/n.ipynb" has changed on disk since the last time it was opened ' +
    "or saved. Do you want to overwrite the file on disk with the version open here, or load the version on disk (revert)?");
  assert.equal(saveLabel({ status: "conflict", message: "the file has changed on disk" }), "not saved: changed on disk");
});

test("after a Revert the snapshot's text wins; a reconnect's would be rebased on the tab's edits", () => {
  for (const reverted of [false, true]) {
    const { sync, sent } = syncWithSocket();
    const editors = new Map([["a", "typ"]]);
    sync.resync([{ id: "a", source: "typ" }], (id) => editors.get(id));
    editors.set("a", "typed");
    sync.changed("a", "typed");
    sync.flush();
    sync.acknowledged("a", "typed");
    if (reverted) sync.reset();
    const { rebased } = sync.resync([{ id: "a", source: "outside" }], (id) => editors.get(id));
    if (reverted) {
      assert.deepEqual([...rebased], []);
      assert.equal(sent.length, 1); // nothing sent after the snapshot
    } else {
      assert.notEqual(rebased.get("a"), undefined); // the text typed here is merged in and sent again
    }
  }
});

test("an edit sent before a Revert and applied after it is shown, unless a newer one follows", () => {
  const { sync } = syncWithSocket();
  sync.resync([{ id: "a", source: "" }, { id: "b", source: "" }], () => undefined);
  sync.changed("a", "typed while Revert was clicked");
  sync.changed("b", "this one too");
  sync.flush();
  sync.reset(); // the reloaded snapshot arrives before their echoes
  sync.resync([{ id: "a", source: "from disk" }, { id: "b", source: "from disk" }], () => undefined);
  assert.equal(sync.acknowledged("a", "typed while Revert was clicked"), true); // the server holds it: show it
  sync.changed("b", "from disk, then typed");
  sync.flush();
  assert.equal(sync.acknowledged("b", "this one too"), false); // our newer edit will replace it on the server
  assert.equal(sync.acknowledged("b", "from disk, then typed"), false); // an ordinary echo
});
