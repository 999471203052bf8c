// Issue 41.5: the file changed on disk. After a Revert the snapshot's text is taken as it is (the tab's own
// typing is not merged back into it).

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Connection } from "../src/connection";
import { fileChangedText } from "../src/disk-change/file-changed-bar";
import { saveLabel } from "../src/kernel-bar";
import type { ClientMessage, Snapshot } from "../src/protocol";
import { toBase64 } from "lib0/buffer";
import * as Y from "yjs";
import { SharedText } from "../src/collab/shared-text";

test("the File Changed bar says what JupyterLab says; the save status says why nothing saves", () => {
  assert.equal(fileChangedText("work/n.ipynb"), '"work/n.ipynb" has changed on disk since the last time it was opened ' +
    "or saved. Do you want to overwrite the file on disk with the version open here, or load the version on disk (revert)?");
  assert.equal(saveLabel({ status: "conflict", message: "the file has changed on disk" }), "not saved: changed on disk");
});

test("after a Revert the file's text wins; after a server restart the tab's recent typing is kept", () => {
  for (const reverted of [false, true]) {
    const sent: ClientMessage[] = [];
    const socket = { addBeforeSend(): void {}, sendRaw: (m: ClientMessage) => (sent.push(m), true) };
    const shared = new SharedText(socket as unknown as Connection);
    const first = new Y.Doc();
    first.getMap("sources").set("a", new Y.Text("typ"));
    shared.load(snapshotOf(first), () => undefined);
    shared.text("a")!.insert(3, "ed");
    shared.typedIn("a", 5);
    const disk = new Y.Doc(); // the server's new document: the file as it is now
    disk.getMap("sources").set("a", new Y.Text("outside"));
    const { replaced } = shared.load({ ...snapshotOf(disk), reloaded: reverted }, () => "typed");
    assert.equal(replaced, true);
    assert.equal(shared.text("a")!.toString(), reverted ? "outside" : "typed");
    shared.awareness.destroy();
  }
});

function snapshotOf(doc: Y.Doc): Snapshot {
  return { type: "snapshot", text: { guid: doc.guid, update: toBase64(Y.encodeStateAsUpdate(doc)) } } as Snapshot;
}
