// The "Fix" button under a code cell's error output (a traceback): starts the edit flow with the
// instruction "fix this error"; the server tries the fixes the notebook can prove, then the edit model.

import { button, el } from "../dom";
import type { Output } from "../protocol";

/** The button row shown after an error output; `fix` starts the request. */
export function fixButton(output: Output, fix: () => void): HTMLElement {
  const what = output.ename ? `${output.ename}${output.evalue ? `: ${output.evalue}` : ""}` : "this error";
  const action = button("✦ Fix", "fix-button", `Fix ${what} (a proposal to review; nothing changes until Accept)`, (event) => {
    event.stopPropagation();
    fix();
  }, "button fix-button");
  return el("div", { class: "output-error-actions" }, action);
}
