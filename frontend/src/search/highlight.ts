// The notebook search's marks inside one cell editor: every match (`cm-searchMatch`, CodeMirror's own
// class, so it looks as CodeMirror's search does) and the current one (`cm-searchMatch-selected`). The
// field follows the editor's own edits at once (matches recomputed with the same query), so the marks
// never lag behind typing; the notebook-wide count is refreshed by the controller.

import type { SearchQuery } from "@codemirror/search";
import { type EditorState, type Extension, StateEffect, StateField } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView } from "@codemirror/view";
import { findMatches } from "./query";

export interface SearchMarks {
  query: SearchQuery | null;
  /** The current match in this editor, if it is here. */
  current: { from: number; to: number } | null;
}

export const setSearchMarks = StateEffect.define<SearchMarks>();

const matchMark = Decoration.mark({ class: "cm-searchMatch" });
const currentMark = Decoration.mark({ class: "cm-searchMatch cm-searchMatch-selected" });

interface Marks extends SearchMarks {
  decorations: DecorationSet;
}

function decorate(state: EditorState, marks: SearchMarks): DecorationSet {
  if (!marks.query) return Decoration.none;
  const { current } = marks;
  return Decoration.set(findMatches(state.doc, marks.query).map(({ from, to }) =>
    (current && current.from === from && current.to === to ? currentMark : matchMark).range(from, to)));
}

const marksField = StateField.define<Marks>({
  create: () => ({ query: null, current: null, decorations: Decoration.none }),
  update(value, tr) {
    let marks: SearchMarks = value;
    let changed = false;
    for (const effect of tr.effects) {
      if (effect.is(setSearchMarks)) {
        marks = effect.value;
        changed = true;
      }
    }
    if (!changed && !tr.docChanged) return value;
    if (!changed && !marks.query) return value;
    if (!changed && marks.current) {
      const from = tr.changes.mapPos(marks.current.from, 1);
      const to = tr.changes.mapPos(marks.current.to, -1);
      marks = { ...marks, current: to > from ? { from, to } : null };
    }
    return { ...marks, decorations: decorate(tr.state, marks) };
  },
  provide: (field) => EditorView.decorations.from(field, (value) => value.decorations),
});

/** The extension every cell editor gets (registered by the search module). */
export function searchMarks(): Extension {
  return marksField;
}

/** The query and current match this editor shows now. */
export function currentMarks(state: EditorState): SearchMarks {
  const { query, current } = state.field(marksField, false) ?? { query: null, current: null };
  return { query, current };
}
