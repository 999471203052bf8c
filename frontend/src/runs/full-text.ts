// "show all" on a long stream: the server keeps its whole text (session/full_outputs.py) and serves it
// page by page at /outputs/{id} (web/output_routes.py), opened in a new tab.

import type { Output } from "../protocol";

/** Add a "show all N lines" link to the dropped-lines note of a stream the server keeps whole. */
export function addShowAll(pre: HTMLElement, output: Output): void {
  const full = output.full_text;
  if (!full || !/^[0-9a-f]{32}$/.test(full.id)) return;
  const link = document.createElement("a");
  link.href = `/outputs/${full.id}`;
  link.target = "_blank";
  link.rel = "noopener";
  link.className = "output-show-all";
  link.dataset.testid = "output-show-all";
  link.textContent = `show all ${full.lines.toLocaleString("en")} lines`;
  const note = pre.querySelector(".output-dropped");
  if (note) note.append(" ", link);
  else pre.prepend(link);
}
