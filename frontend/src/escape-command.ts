// Esc, then a command key. An Esc that only closed the ghost text or the intellisense popup keeps the
// editor in edit mode (a second Esc leaves it), but a command key typed right after it (within
// ESCAPE_GRACE_MS) is what the user meant as a command — Esc, `a`: insert a cell above — not text
// (`a = 1?`): it leaves edit mode first and acts as the command.

import { Prec } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { type EditorContext, registerEditorExtension } from "./editor";
import { isCommandKey } from "./keyboard";

export const ESCAPE_GRACE_MS = 300;

const MODIFIERS = new Set(["Shift", "Control", "Alt", "Meta", "AltGraph", "CapsLock"]);

function escapeThenCommand(context: EditorContext) {
  let escapedAt = Number.NEGATIVE_INFINITY;
  // Before every keymap (Prec.highest handlers run first): Esc is only noted here, never taken.
  return Prec.highest(
    EditorView.domEventHandlers({
      keydown(event) {
        if (MODIFIERS.has(event.key)) return false; // Shift on the way to `?` or `V`
        const sinceEscape = event.timeStamp - escapedAt;
        escapedAt = event.key === "Escape" ? event.timeStamp : Number.NEGATIVE_INFINITY;
        // A key that reaches this editor so soon after an Esc means the Esc kept it in edit mode.
        if (sinceEscape > ESCAPE_GRACE_MS || event.isComposing || !isCommandKey(event)) return false;
        if (!context.commandKey(event)) return false;
        event.preventDefault();
        return true;
      },
      blur() {
        escapedAt = Number.NEGATIVE_INFINITY; // the Esc (or a click) left the editor: the next key is fresh
        return false;
      },
    }),
  );
}

registerEditorExtension(escapeThenCommand);
