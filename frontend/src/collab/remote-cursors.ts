// Other tabs' cursors and selections in a cell's editor, in their colour with their name; and this tab's
// own cursor published to them (the awareness field `cursor`, as y-codemirror.next writes it).
//
// Adapted from y-codemirror.next's y-remote-selections.js (MIT, Kevin Jahns): the caret carries its name
// in an attribute shown by CSS, so the editor's text (what is copied, searched and read by tests) holds
// nothing but the cell's text.

import { Annotation, type Range } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate, WidgetType } from "@codemirror/view";
import type { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { type Person, paint, personOf } from "./people";

const redraw = Annotation.define<boolean>();

/** A caret with its person's name above it (CSS), shown for a few seconds after the caret last moved
 * (`moved`: the cursor as its tab sent it; a new one draws the caret afresh), then faded out so that it
 * does not hide the line above for good. */
class Caret extends WidgetType {
  constructor(private readonly person: Person, private readonly moved: string) {
    super();
  }

  toDOM(): HTMLElement {
    const caret = document.createElement("span");
    caret.className = "remote-caret";
    caret.style.borderColor = this.person.color;
    paint(caret, this.person);
    caret.dataset.name = this.person.name;
    caret.setAttribute("aria-label", `${this.person.name}'s cursor`);
    return caret;
  }

  eq(other: Caret): boolean {
    return other.person.color === this.person.color && other.person.name === this.person.name && other.moved === this.moved;
  }

  ignoreEvent(): boolean {
    return true;
  }
}

/** The remote cursors of `text`'s editor; this editor's cursor goes into `awareness` while it has focus. */
export function remoteCursors(text: Y.Text, awareness: Awareness): ViewPlugin<RemoteCursors> {
  return ViewPlugin.define((view) => new RemoteCursors(view, text, awareness), { decorations: (plugin) => plugin.decorations });
}

/** One editor's plugin (one class for all editors: a notebook of 500 cells makes 500). */
class RemoteCursors {
  decorations: DecorationSet = Decoration.none;
  private readonly listener: (changes: { added: number[]; updated: number[]; removed: number[] }) => void;

  constructor(private readonly view: EditorView, private readonly text: Y.Text, private readonly awareness: Awareness) {
    this.listener = ({ added, updated, removed }) => {
      const others = [...added, ...updated, ...removed].some((id) => id !== awareness.clientID);
      if (others) queueMicrotask(() => this.view.dispatch({ annotations: redraw.of(true) }));
    };
    awareness.on("change", this.listener);
    this.decorations = this.draw();
    this.publish(view); // bound on focus (lazy-binding.ts): the other tabs see this cursor at once
  }

  update(update: ViewUpdate): void {
    this.publish(update.view);
    if (update.docChanged || update.transactions.some((tr) => tr.annotation(redraw))) this.decorations = this.draw();
  }

  destroy(): void {
    this.awareness.off("change", this.listener);
  }

  private publish(view: EditorView): void {
    const { awareness, text } = this;
    const state = awareness.getLocalState();
    if (state === null) return;
    const focused = view.hasFocus && view.dom.ownerDocument.hasFocus();
    if (!focused) return; // another cell's editor may hold the cursor now: leave it alone
    const { anchor, head } = view.state.selection.main;
    const current = state.cursor as { anchor: unknown; head: unknown } | null | undefined;
    const next = { anchor: Y.createRelativePositionFromTypeIndex(text, anchor), head: Y.createRelativePositionFromTypeIndex(text, head) };
    const same = current && Y.compareRelativePositions(Y.createRelativePositionFromJSON(current.anchor), next.anchor)
      && Y.compareRelativePositions(Y.createRelativePositionFromJSON(current.head), next.head);
    if (!same) awareness.setLocalStateField("cursor", next);
  }

  private draw(): DecorationSet {
    const { awareness, text } = this;
    const doc = text.doc;
    if (!doc) return Decoration.none;
    const ranges: Range<Decoration>[] = [];
    awareness.getStates().forEach((state, clientId) => {
      if (clientId === awareness.clientID || !state.cursor) return;
      const anchor = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(state.cursor.anchor), doc);
      const head = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(state.cursor.head), doc);
      if (!anchor || !head || anchor.type !== text || head.type !== text) return;
      const person = personOf(state);
      const length = this.view.state.doc.length;
      const from = Math.min(anchor.index, head.index, length);
      const to = Math.min(Math.max(anchor.index, head.index), length);
      if (from < to) {
        ranges.push(Decoration.mark({ class: "remote-selection", attributes: { style: `background-color: ${person.light}` } }).range(from, to));
      }
      ranges.push(Decoration.widget({ widget: new Caret(person, JSON.stringify(state.cursor)), side: head.index > anchor.index ? -1 : 1 }).range(Math.min(head.index, length)));
    });
    return Decoration.set(ranges, true);
  }
}
