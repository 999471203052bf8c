// A click puts the caret where it landed in the text, even when another tab's typing arrives while the
// mouse button is down.
//
// CodeMirror's own click maps its start through the change but reads the end from the mouse's
// coordinates on release: text inserted before the click point during the press moves the characters
// under the pointer, so a plain click became a selection of the other person's new text, and the next
// key typed over it. Here a press that has not moved keeps its caret at the mapped start; a drag still
// selects from there to the pointer. Only plain single clicks are handled (no modifiers, first button);
// double clicks, Shift and Alt clicks stay CodeMirror's.

import { EditorSelection, type Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

/** How far (px) the pointer may move before a press is a drag: CodeMirror's own tolerance for a click. */
const STILL_PX = 2;

function plainClick(event: MouseEvent): boolean {
  return event.button === 0 && event.detail <= 1 && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey;
}

export function steadyClick(): Extension {
  return EditorView.mouseSelectionStyle.of((view, down) => {
    if (!plainClick(down)) return null;
    let start = view.posAndSideAtCoords({ x: down.clientX, y: down.clientY }, false);
    return {
      update(update) {
        if (update.docChanged) start = { pos: update.changes.mapPos(start.pos, start.assoc), assoc: start.assoc };
      },
      get(current) {
        const still = Math.abs(current.clientX - down.clientX) < STILL_PX && Math.abs(current.clientY - down.clientY) < STILL_PX;
        if (still) return EditorSelection.create([EditorSelection.cursor(start.pos, start.assoc)]);
        const head = view.posAndSideAtCoords({ x: current.clientX, y: current.clientY }, false);
        return EditorSelection.create([EditorSelection.range(start.pos, head.pos, head.assoc)]);
      },
    };
  });
}
