// An editor is bound to its shared text (y-codemirror.next's sync, this tab's undo manager, the remote
// cursors) only once it is used: focused, changed here, or visited by another tab's cursor. A notebook of
// 500 cells then opens without 500 bindings, 500 undo managers listening to every transaction and 500
// presence listeners. Until it is bound, the plugin below keeps the editor and its text equal both ways.
//
// The delta to changes conversion follows y-codemirror.next's y-sync.js (MIT, Kevin Jahns).

import type { ChangeSet, ChangeSpec, Extension } from "@codemirror/state";
import { type EditorView, ViewPlugin, type ViewUpdate } from "@codemirror/view";
import { YSyncConfig, ySyncAnnotation } from "y-codemirror.next";
import type { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";

/** The origin of a change made in an editor before it was bound (its undo manager tracks it). */
export const BEFORE_BINDING = Symbol("before-binding");

export interface Binding {
  readonly text: Y.Text;
  /** The editor's undo manager (made on first use), to record a change made before the binding. */
  undoManager(): Y.UndoManager;
  /** Bind now; called in a microtask, never inside an editor update. */
  bind(): void;
}

/** The editor's extension until it is bound. */
export function unbound(binding: Binding): Extension {
  return ViewPlugin.define((view) => new Unbound(view, binding));
}

class Unbound {
  /** Marks the changes this plugin brings from the shared text, as the bound sync does (isRemote). */
  private readonly conf: YSyncConfig;
  private readonly observer = (event: Y.YTextEvent, transaction: Y.Transaction): void => {
    if (transaction.origin === BEFORE_BINDING) return;
    this.view.dispatch({ changes: changesOf(event.delta), annotations: ySyncAnnotation.of(this.conf) });
  };
  private scheduled = false;

  constructor(private readonly view: EditorView, private readonly binding: Binding) {
    this.conf = new YSyncConfig(binding.text, null);
    binding.text.observe(this.observer);
    if (view.hasFocus) this.bindSoon();
  }

  update(update: ViewUpdate): void {
    if (update.focusChanged && update.view.hasFocus) this.bindSoon();
    if (!update.docChanged || update.transactions[0]?.annotation(ySyncAnnotation) !== undefined) return;
    const { text } = this.binding;
    const undo = this.binding.undoManager();
    text.doc?.transact(() => applyChanges(text, update.changes), BEFORE_BINDING);
    undo.stopCapturing(); // a change made while unbound (a replace, a script) is an undo step of its own
    this.bindSoon();
  }

  destroy(): void {
    this.binding.text.unobserve(this.observer);
  }

  private bindSoon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.binding.bind());
  }
}

/** A Yjs text delta as CodeMirror changes. */
export function changesOf(delta: Y.YTextEvent["delta"]): ChangeSpec[] {
  const changes: ChangeSpec[] = [];
  let pos = 0;
  for (const step of delta) {
    if (step.insert != null) {
      changes.push({ from: pos, to: pos, insert: step.insert as string });
    } else if (step.delete != null) {
      changes.push({ from: pos, to: pos + step.delete, insert: "" });
      pos += step.delete;
    } else if (step.retain != null) {
      pos += step.retain;
    }
  }
  return changes;
}

/** Apply CodeMirror changes to the text they were made against. */
export function applyChanges(text: Y.Text, changes: ChangeSet): void {
  let shift = 0; // the text is already changed before `fromA`
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    const insert = inserted.sliceString(0, inserted.length, "\n");
    if (toA > fromA) text.delete(fromA + shift, toA - fromA);
    if (insert) text.insert(fromA + shift, insert);
    shift += insert.length - (toA - fromA);
  });
}

/** The texts that hold another tab's cursor (their editors draw it once bound). */
export function textsWithRemoteCursors(awareness: Awareness): Set<Y.Text> {
  const texts = new Set<Y.Text>();
  const doc = awareness.doc;
  awareness.getStates().forEach((state, clientId) => {
    const cursor = state.cursor as { head?: unknown } | null | undefined;
    if (clientId === awareness.clientID || !cursor?.head) return;
    const head = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(cursor.head), doc);
    if (head?.type instanceof Y.Text) texts.add(head.type);
  });
  return texts;
}
