// Plain text, streams and tracebacks: escaped (or ANSI-coloured), long ones scroll, and the line the
// server puts where it dropped the middle of a long stream is marked.

import { ansiToHtml, hasAnsi } from "../ansi";

const SCROLL_LINES = 300;

export function joinText(value: unknown): string {
  if (Array.isArray(value)) return value.join("");
  return typeof value === "string" ? value : value == null ? "" : String(value);
}

/** The line the server puts where it dropped the middle of a long stream (session/outputs.py). */
const DROPPED_MARKER = /^\[… [\d,]+ lines \([\d,]+ characters\) of output dropped …\]\n?/m;

export function textBlock(text: string, className: string): HTMLElement {
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

export function renderText(value: unknown): HTMLElement {
  return textBlock(joinText(value), "output-text");
}
