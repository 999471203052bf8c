// The "Fix" button under a code cell's error output (a traceback): starts the edit flow with the
// instruction "fix this error"; the server tries the fixes the notebook can prove, then the edit model.

import { button, el } from "../dom";
import type { Output } from "../protocol";

/** Errors that are not the code's: the kernel stopped or was interrupted (nothing to fix). */
const NOT_THE_CODE = new Set(["KernelStopped", "KeyboardInterrupt"]);

/** The button row shown after an error output; `fix` starts the request (no button for an error that
 *  is not the code's). */
export function fixButton(output: Output, fix: () => void): HTMLElement {
  if (NOT_THE_CODE.has(output.ename ?? "")) return el("div", { class: "output-error-actions" });
  const what = output.ename ? `${output.ename}${output.evalue ? `: ${output.evalue}` : ""}` : "this error";
  const action = button("✦ Fix", "fix-button", `Fix ${what} (a proposal to review; nothing changes until Accept)`, (event) => {
    event.stopPropagation();
    fix();
  }, "button fix-button");
  return el("div", { class: "output-error-actions" }, action);
}
