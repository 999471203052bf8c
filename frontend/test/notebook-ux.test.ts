// Issue 31: Markdown list continuation without doubled markers, the restart question for a dead kernel,
// and which keys count as commands after an Esc.

import assert from "node:assert/strict";
import { test } from "node:test";
import { markdown } from "@codemirror/lang-markdown";
import { EditorState, type Transaction } from "@codemirror/state";
import { isCommandKey } from "../src/keyboard";
import { restartQuestion } from "../src/kernel-bar";
import { continueList, markdownLists, replaceAutoMarker } from "../src/markdown-lists";

function editor(doc: string): { state: EditorState } {
  const box = { state: EditorState.create({ doc, selection: { anchor: doc.length }, extensions: [markdown({ addKeymap: false }), markdownLists] }) };
  return box;
}

function enter(box: { state: EditorState }): void {
  assert.ok(continueList({ state: box.state, dispatch: (tr: Transaction) => (box.state = tr.state) }));
}

/** Type `text` a character at a time, as the editor's input handler sees it. */
function type(box: { state: EditorState }, text: string): void {
  for (const ch of text) {
    const pos = box.state.selection.main.head;
    const spec = replaceAutoMarker(box.state, pos, ch);
    box.state = box.state.update(spec ?? { changes: { from: pos, insert: ch }, selection: { anchor: pos + 1 } }).state;
  }
}

test("Enter continues a list; a marker typed over Enter's own is kept once", () => {
  const box = editor("- one");
  enter(box);
  assert.equal(box.state.doc.toString(), "- one\n- ");
  type(box, "- two");
  assert.equal(box.state.doc.toString(), "- one\n- two");
  enter(box);
  type(box, "* three"); // another bullet: the user's wins
  assert.equal(box.state.doc.toString(), "- one\n- two\n* three");
});

test("numbered lists: the number typed replaces the one Enter wrote", () => {
  const box = editor("1. one");
  enter(box);
  assert.equal(box.state.doc.toString(), "1. one\n2. ");
  type(box, "2. two");
  assert.equal(box.state.doc.toString(), "1. one\n2. two");
});

test("text that merely starts with a dash, and markers typed by hand, are left alone", () => {
  const box = editor("- one");
  enter(box);
  type(box, "-5 degrees");
  assert.equal(box.state.doc.toString(), "- one\n- -5 degrees");
  const nested = editor("");
  type(nested, "- - x"); // no marker from Enter: a nested list, as typed
  assert.equal(nested.state.doc.toString(), "- - x");
});

test("Enter on an empty item loosens, then ends the list (the command's own behaviour)", () => {
  const box = editor("- one");
  enter(box);
  enter(box); // an empty second item: the list becomes a loose one, the marker moves down
  assert.equal(box.state.doc.toString(), "- one\n\n- ");
  type(box, "- two"); // still Enter's marker: kept once
  assert.equal(box.state.doc.toString(), "- one\n\n- two");
  enter(box);
  enter(box); // an empty item after a blank line: the list ends, the marker goes
  assert.doesNotMatch(box.state.doc.line(box.state.doc.lines).text, /-/);
  type(box, "- "); // Enter wrote no marker this time: nothing to replace
  assert.match(box.state.doc.toString(), /- two\n(\n)*- $/);
});

test("the restart question does not warn about variables when the kernel is dead", () => {
  assert.match(restartQuestion(false, false).text, /All variables will be lost/);
  const dead = restartQuestion(false, true);
  assert.doesNotMatch(dead.text, /will be lost/);
  assert.match(dead.title, /Start a new kernel/);
  assert.match(restartQuestion(true, true).title, /clear all outputs/);
});

test("command keys after an Esc: single keys, never with Ctrl, Alt or Cmd", () => {
  const key = (k: string, mods: Partial<KeyboardEvent> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...mods }) as KeyboardEvent;
  for (const k of ["a", "b", "d", "m", "y", "?", "h", "V"]) assert.ok(isCommandKey(key(k)), k);
  for (const k of ["e", "=", " ", "Enter", "1"]) assert.ok(!isCommandKey(key(k)), k);
  assert.ok(!isCommandKey(key("a", { ctrlKey: true })));
});
