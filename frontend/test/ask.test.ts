// Ask the notebook: the conversation as a tab keeps it (turns added, grown, replaced by the server's
// whole conversation), a code block's text for a new cell, and the cells a question was about.

import assert from "node:assert/strict";
import { test } from "node:test";
import { blockCode, cellsLabel, Conversation } from "../src/ask/conversation";
import type { AskTurn } from "../src/protocol";

function turn(id: string, answer: string, state: AskTurn["state"] = "answering"): AskTurn {
  return { id, question: `q ${id}`, cell_ids: [], answer, state, error: null, changes: [], notes: [] };
}

test("a conversation adds turns, grows them in place and takes the server's whole conversation", () => {
  const conversation = new Conversation();
  assert.deepEqual(conversation.apply({ type: "ask_turn", turn: turn("t1", "") }), [turn("t1", "")]);
  assert.equal(conversation.answering?.id, "t1");
  conversation.apply({ type: "ask_turn", turn: turn("t1", "Hel") });
  conversation.apply({ type: "ask_turn", turn: turn("t1", "Hello.", "done") });
  conversation.apply({ type: "ask_turn", turn: turn("t2", "", "answering") });
  assert.deepEqual(conversation.all.map((t) => [t.id, t.answer, t.state]), [["t1", "Hello.", "done"], ["t2", "", "answering"]]);
  assert.equal(conversation.answering?.id, "t2");
  assert.equal(conversation.apply({ type: "ask_conversation", ref: null, turns: [] }), null);
  assert.deepEqual(conversation.all, []);
  assert.equal(conversation.answering, null);
  assert.deepEqual(conversation.apply({ type: "pong", ref: "x" }), []);
});

test("a code block's text drops the fence's last newline; the cells asked about read as a label", () => {
  assert.equal(blockCode("df.describe()\n"), "df.describe()");
  assert.equal(blockCode("a = 1\n\n"), "a = 1\n");
  assert.equal(cellsLabel([]), "");
  assert.equal(cellsLabel([0]), "");
  assert.equal(cellsLabel([3]), "cell 3");
  assert.equal(cellsLabel([4, 2, 3]), "cells 2–4");
  assert.equal(cellsLabel([1, 5]), "cells 1, 5");
});
