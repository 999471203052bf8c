// Lists in Markdown cells, with @codemirror/lang-markdown's commands as they are meant to be used:
// Enter continues the list (insertNewlineContinueMarkup: a new item, or on an empty item the end of the
// list) and Backspace right after a marker takes the marker away (deleteMarkupBackward). People who
// type their own marker on the new line would get two ("- - item"): a marker typed (with its space)
// right after the one Enter put there replaces it instead.

import { deleteMarkupBackward, insertNewlineContinueMarkup } from "@codemirror/lang-markdown";
import {
  type EditorState,
  type Extension,
  Prec,
  StateEffect,
  StateField,
  type StateCommand,
  type TransactionSpec,
} from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";

/** Where the marker Enter inserted lies: [from, to) ends at the cursor Enter left. */
interface AutoMarker {
  from: number;
  to: number;
}

const setAutoMarker = StateEffect.define<AutoMarker | null>();

const autoMarker = StateField.define<AutoMarker | null>({
  create: () => null,
  update(value, tr) {
    for (const effect of tr.effects) if (effect.is(setAutoMarker)) return effect.value;
    if (!value || !tr.docChanged) return value;
    return { from: tr.changes.mapPos(value.from, 1), to: tr.changes.mapPos(value.to, -1) };
  },
});

const BULLET_OR_NUMBER = /^(?:[-*+]|\d{1,9}[.)])$/;
/** A new item's markup at a line's start: quote marks and indentation, then the marker and its space. */
const NEW_ITEM = /^([\s>]*)((?:[-*+]|\d{1,9}[.)]) +)$/;

/** Enter: continue the list (or end it on an empty item), remembering the marker it wrote. */
export const continueList: StateCommand = ({ state, dispatch }) =>
  insertNewlineContinueMarkup({
    state,
    dispatch: (tr) => {
      const head = tr.state.selection.main.head;
      const line = tr.state.doc.lineAt(head);
      const match = NEW_ITEM.exec(tr.state.doc.sliceString(line.from, head));
      const marker = match && head === line.to ? { from: line.from + match[1].length, to: head } : null;
      dispatch(state.update({ changes: tr.changes, selection: tr.selection, effects: setAutoMarker.of(marker),
        scrollIntoView: true, userEvent: "input" }));
    },
  });

/** Typing `text` at `pos` completes a marker right after Enter's own (e.g. "- -" + " "): the change that
 * keeps only the one typed, or null. */
export function replaceAutoMarker(state: EditorState, pos: number, text: string): TransactionSpec | null {
  const marker = state.field(autoMarker, false);
  const main = state.selection.main;
  if (text !== " " || !marker || state.selection.ranges.length > 1 || !main.empty || main.head !== pos) return null;
  const line = state.doc.lineAt(pos);
  if (pos !== line.to || marker.from < line.from || marker.to > pos) return null;
  if (!/^(?:[-*+]|\d{1,9}[.)]) +$/.test(state.doc.sliceString(marker.from, marker.to))) return null;
  const typed = state.doc.sliceString(marker.to, pos);
  if (!BULLET_OR_NUMBER.test(typed)) return null;
  return {
    changes: { from: marker.from, to: pos, insert: `${typed} ` },
    selection: { anchor: marker.from + typed.length + 1 },
    effects: setAutoMarker.of(null),
    userEvent: "input.type",
  };
}

export const markdownLists: Extension = [
  autoMarker,
  Prec.high(keymap.of([
    { key: "Enter", run: continueList },
    { key: "Backspace", run: deleteMarkupBackward },
  ])),
  EditorView.inputHandler.of((view, from, to, text) => {
    const spec = from === to ? replaceAutoMarker(view.state, from, text) : null;
    if (spec) view.dispatch(spec);
    return spec !== null;
  }),
];
