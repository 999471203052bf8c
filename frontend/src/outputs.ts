// Renders one cell's nbformat outputs. Each mime family has a renderer in outputs/ (one file each),
// registered here with its rank (outputs/registry.ts); the best-ranked type present in a bundle wins.
// Anything that needs scripts runs in a sandboxed iframe (outputs/frame.ts); the rest is escaped or
// sanitised. The server sends the whole capped list per update, so rendering replaces the area, but
// keeps the frames of outputs that did not change (moving or recreating an iframe reloads it).

import { BOKEH_EXEC_MIME, BOKEH_LOAD_MIME, isBokehLoadingNote, renderBokehExec, renderBokehLoadingNote, renderNothing } from "./outputs/bokeh";
import { renderHtml, renderJavascript } from "./outputs/html";
import { IMAGE_MIMES, renderImage } from "./outputs/images";
import { jsonTree } from "./outputs/json";
import { renderLatex } from "./outputs/latex";
import { renderMarkdownOutput } from "./outputs/markdown-output";
import { PLOTLY_MIME, renderPlotly } from "./outputs/plotly";
import { chooseRenderer, preferenceOrder, RANK, registerRenderer, type OutputExtras } from "./outputs/registry";
import { joinText, renderText, textBlock } from "./outputs/text";
import { renderVega, VEGA_MIMES } from "./outputs/vega";
import type { Output } from "./protocol";
import { addShowAll } from "./runs/full-text";

export { jsonTree } from "./outputs/json";
export { registerRenderer, RANK, type OutputExtras, type RenderContext, type Renderer } from "./outputs/registry";
export { joinText } from "./outputs/text";

// The built-in families. Add a family with one registerRenderer call (here, or where its state lives).
registerRenderer({ mimes: [PLOTLY_MIME], render: renderPlotly, rank: RANK.plotly, keep: true });
registerRenderer({ mimes: VEGA_MIMES, render: renderVega, rank: RANK.vega, keep: true });
registerRenderer({ mimes: [BOKEH_EXEC_MIME], render: renderBokehExec, rank: RANK.bokeh, keep: true });
registerRenderer({ mimes: [BOKEH_LOAD_MIME], render: renderNothing, rank: RANK.bokeh });
registerRenderer({ mimes: ["text/html"], render: renderBokehLoadingNote, rank: RANK.bokeh, accepts: isBokehLoadingNote });
registerRenderer({ mimes: ["text/html"], render: renderHtml, rank: RANK.html, keep: true });
registerRenderer({ mimes: ["text/markdown"], render: renderMarkdownOutput, rank: RANK.markdown });
registerRenderer({ mimes: ["image/svg+xml"], render: renderImage, rank: RANK.svg });
registerRenderer({ mimes: IMAGE_MIMES, render: renderImage, rank: RANK.image });
registerRenderer({ mimes: ["application/json"], render: ({ value }) => jsonTree(value), rank: RANK.json });
registerRenderer({ mimes: ["text/latex"], render: renderLatex, rank: RANK.latex }); // KaTeX, loaded on first use
registerRenderer({ mimes: ["application/javascript", "text/javascript"], render: renderJavascript, rank: RANK.javascript, keep: true });
registerRenderer({ mimes: ["text/plain"], render: ({ value }) => renderText(value), rank: RANK.text });

/** Mime types in order of preference (richest first). */
export function mimeOrder(): string[] {
  return preferenceOrder();
}

/** The mime type that will be drawn: the best registered one, else text/plain, else the first. */
export function pickMime(data: Record<string, unknown>): string | null {
  const choice = chooseRenderer(data);
  if (choice) return choice.mime;
  const keys = Object.keys(data);
  return keys.length ? keys[0] : null;
}

function renderBundle(output: Output, extras: OutputExtras): { element: HTMLElement | null; keep: boolean } {
  const data = (output.data ?? {}) as Record<string, unknown>;
  const metadata = (output.metadata ?? {}) as Record<string, unknown>;
  const choice = chooseRenderer(data);
  const mime = choice?.mime ?? Object.keys(data)[0];
  if (mime === undefined) return { element: null, keep: false };
  const context = { mime, value: data[mime], data, metadata, output, extras };
  const inner = choice ? choice.spec.render(context) : renderText(data[mime]); // unknown type: as text
  if (!inner) return { element: null, keep: false };
  const div = document.createElement("div");
  div.className = "output-mime";
  div.dataset.mime = mime;
  div.dataset.outputType = output.output_type;
  div.appendChild(inner);
  return { element: div, keep: !!choice?.spec.keep };
}

export function renderOutput(output: Output, extras: OutputExtras = {}): HTMLElement | null {
  return render(output, extras).element;
}

function render(output: Output, extras: OutputExtras): { element: HTMLElement | null; keep: boolean } {
  switch (output.output_type) {
    case "stream": {
      const name = output.name === "stderr" ? "stderr" : "stdout";
      const pre = textBlock(joinText(output.text), `output-stream ${name}`);
      pre.dataset.stream = name;
      addShowAll(pre, output);
      return { element: pre, keep: false };
    }
    case "execute_result":
    case "display_data":
      return renderBundle(output, extras);
    case "error": {
      const traceback = output.traceback?.length
        ? output.traceback.join("\n")
        : `${output.ename ?? "Error"}: ${output.evalue ?? ""}`;
      const pre = textBlock(traceback, "output-error");
      pre.dataset.outputType = "error";
      return { element: pre, keep: false };
    }
    default:
      return { element: null, keep: false };
  }
}

function keepable(output: Output): boolean {
  if (output.output_type !== "display_data" && output.output_type !== "execute_result") return false;
  return !!chooseRenderer((output.data ?? {}) as Record<string, unknown>)?.spec.keep;
}

/** What each kept element (a frame) was drawn from, to reuse it while its output stays the same. */
const drawnFrom = new WeakMap<Element, string>();

/** Replace the contents of `area` with `outputs`, keeping unchanged frames where they are. */
export function renderOutputs(area: HTMLElement, outputs: Output[], extras: OutputExtras = {}): void {
  const kept = Array.from(area.children).filter((child) => drawnFrom.has(child));
  let next = 0; // kept elements are matched in order, so none has to move
  const nodes: Element[] = [];
  for (const output of outputs) {
    const key = keepable(output) ? JSON.stringify(output) : null;
    const reuse = key === null ? -1 : kept.findIndex((child, i) => i >= next && drawnFrom.get(child) === key);
    if (reuse !== -1) {
      next = reuse + 1;
      nodes.push(kept[reuse]);
      continue;
    }
    const { element, keep } = render(output, extras);
    if (!element) continue;
    element.classList.add("output");
    if (keep && key !== null) drawnFrom.set(element, key);
    nodes.push(element);
    const action = output.output_type === "error" ? extras.errorAction?.(output) : null;
    if (action) nodes.push(action);
  }
  const wanted = new Set(nodes);
  for (const child of Array.from(area.children)) if (!wanted.has(child)) child.remove();
  let cursor = area.firstElementChild;
  for (const node of nodes) {
    if (node === cursor) cursor = node.nextElementSibling;
    else area.insertBefore(node, cursor); // new nodes only: kept ones are already in order
  }
}
