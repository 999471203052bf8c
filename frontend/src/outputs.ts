// Renders one cell's nbformat outputs; the richest mime type wins, everything is escaped or
// sanitised. The server sends the whole capped list per update, so rendering replaces the area.

import { ansiToHtml, hasAnsi } from "./ansi";
import { renderMarkdown, sanitizeHtml } from "./markdown";
import type { Output } from "./protocol";

/** Mime types in order of preference (richest first). */
export const MIME_ORDER = [
  "text/html",
  "image/svg+xml",
  "image/png",
  "image/jpeg",
  "image/gif",
  "text/markdown",
  "application/json",
  "text/latex",
  "text/plain",
] as const;

const SCROLL_LINES = 300;

export function joinText(value: unknown): string {
  if (Array.isArray(value)) return value.join("");
  return typeof value === "string" ? value : value == null ? "" : String(value);
}

export function pickMime(data: Record<string, unknown>): string | null {
  for (const mime of MIME_ORDER) if (mime in data) return mime;
  const keys = Object.keys(data);
  return keys.length ? keys[0] : null;
}

/** The line the server puts where it dropped the middle of a long stream (session/outputs.py). */
const DROPPED_MARKER = /^\[… [\d,]+ lines \([\d,]+ characters\) of output dropped …\]\n?/m;

function textBlock(text: string, className: string): HTMLElement {
  const pre = document.createElement("pre");
  pre.className = className;
  const marker = hasAnsi(text) ? null : DROPPED_MARKER.exec(text);
  if (marker) {
    const note = document.createElement("span");
    note.className = "output-dropped";
    note.dataset.testid = "output-dropped";
    note.textContent = marker[0];
    pre.append(text.slice(0, marker.index), note, text.slice(marker.index + marker[0].length));
  } else if (hasAnsi(text)) pre.innerHTML = ansiToHtml(text);
  else pre.textContent = text;
  if (countLines(text, SCROLL_LINES) >= SCROLL_LINES) pre.classList.add("scrolled");
  return pre;
}

function countLines(text: string, limit: number): number {
  let count = 0;
  let at = text.indexOf("\n");
  while (at !== -1 && count < limit) {
    count += 1;
    at = text.indexOf("\n", at + 1);
  }
  return count;
}

function renderMime(mime: string, value: unknown): HTMLElement {
  const div = document.createElement("div");
  div.className = "output-mime";
  div.dataset.mime = mime;
  switch (mime) {
    case "text/html":
      div.innerHTML = sanitizeHtml(joinText(value));
      return div;
    case "image/svg+xml": {
      const img = document.createElement("img");
      img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(joinText(value))}`;
      img.alt = "SVG output";
      div.appendChild(img);
      return div;
    }
    case "image/png":
    case "image/jpeg":
    case "image/gif": {
      const img = document.createElement("img");
      img.src = `data:${mime};base64,${joinText(value).replace(/\s+/g, "")}`;
      img.alt = "image output";
      div.appendChild(img);
      return div;
    }
    case "text/markdown":
      div.classList.add("markdown-body");
      div.innerHTML = renderMarkdown(joinText(value));
      return div;
    case "application/json":
      div.appendChild(jsonTree(value));
      return div;
    default:
      div.appendChild(textBlock(joinText(value), "output-text"));
      return div;
  }
}

/** application/json as a collapsible tree (as JupyterLab shows it): the top level open, deeper levels
 * closed and built only when first opened, so a large document costs nothing until explored. */
export function jsonTree(value: unknown): HTMLElement {
  if (typeof value === "string") {
    try {
      value = JSON.parse(value); // older notebooks keep JSON as text
    } catch {
      // shown as the string it is
    }
  }
  const root = document.createElement("div");
  root.className = "json-tree";
  root.dataset.testid = "json-tree";
  root.appendChild(jsonNode(null, value, true));
  return root;
}

function jsonNode(key: string | null, value: unknown, open = false): HTMLElement {
  const label = (): DocumentFragment => {
    const fragment = document.createDocumentFragment();
    if (key !== null) fragment.append(span("json-key", `${key}: `));
    return fragment;
  };
  if (value === null || typeof value !== "object") {
    const leaf = document.createElement("div");
    const kind = value === null ? "null" : typeof value;
    leaf.append(label(), span(`json-${kind}`, JSON.stringify(value) ?? String(value)));
    return leaf;
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value as Record<string, unknown>);
  const details = document.createElement("details");
  details.dataset.testid = "json-node";
  const summary = document.createElement("summary");
  const [openBracket, closeBracket] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  const noun = Array.isArray(value) ? "item" : "key";
  const count = `${entries.length} ${noun}${entries.length === 1 ? "" : "s"}`;
  summary.append(label(), `${openBracket}`, span("json-summary", ` ${count} `), closeBracket);
  details.appendChild(summary);
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    for (const [childKey, child] of entries) details.appendChild(jsonNode(childKey, child));
  };
  details.addEventListener("toggle", () => details.open && build());
  if (open) {
    details.open = true;
    build();
  }
  return details;
}

function span(className: string, text: string): HTMLSpanElement {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}

export function renderOutput(output: Output): HTMLElement | null {
  switch (output.output_type) {
    case "stream": {
      const name = output.name === "stderr" ? "stderr" : "stdout";
      const pre = textBlock(joinText(output.text), `output-stream ${name}`);
      pre.dataset.stream = name;
      return pre;
    }
    case "execute_result":
    case "display_data": {
      const data = (output.data ?? {}) as Record<string, unknown>;
      const mime = pickMime(data);
      if (!mime) return null;
      const element = renderMime(mime, data[mime]);
      element.dataset.outputType = output.output_type;
      return element;
    }
    case "error": {
      const traceback = output.traceback?.length
        ? output.traceback.join("\n")
        : `${output.ename ?? "Error"}: ${output.evalue ?? ""}`;
      const pre = textBlock(traceback, "output-error");
      pre.dataset.outputType = "error";
      return pre;
    }
    default:
      return null;
  }
}

export interface OutputExtras {
  /** Something to show after an error output (a code cell's Fix button), or nothing. */
  errorAction?: (output: Output) => HTMLElement | null;
}

/** Replace the contents of `area` with `outputs`. */
export function renderOutputs(area: HTMLElement, outputs: Output[], extras: OutputExtras = {}): void {
  const fragment = document.createDocumentFragment();
  for (const output of outputs) {
    const element = renderOutput(output);
    if (element) {
      element.classList.add("output");
      fragment.appendChild(element);
      const action = output.output_type === "error" ? extras.errorAction?.(output) : null;
      if (action) fragment.appendChild(action);
    }
  }
  area.replaceChildren(fragment);
}
