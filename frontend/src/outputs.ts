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
    case "application/json": {
      const pre = document.createElement("pre");
      pre.textContent = typeof value === "string" ? value : JSON.stringify(value, null, 2);
      div.appendChild(pre);
      return div;
    }
    default:
      div.appendChild(textBlock(joinText(value), "output-text"));
      return div;
  }
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

/** Replace the contents of `area` with `outputs`. */
export function renderOutputs(area: HTMLElement, outputs: Output[]): void {
  const fragment = document.createDocumentFragment();
  for (const output of outputs) {
    const element = renderOutput(output);
    if (element) {
      element.classList.add("output");
      fragment.appendChild(element);
    }
  }
  area.replaceChildren(fragment);
}
