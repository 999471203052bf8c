// Loaded first in every output frame (sandboxed, opaque origin, no network): tells the page how tall
// the content is, runs a JavaScript output with Jupyter's `element`, and gives renderer bundles their
// data and a message channel to the page.

import type { FrameRuntime } from "./api";

let parsed: { value: unknown } | null = null;
const handlers: ((message: unknown) => void)[] = [];
const bodyReady = new Promise<HTMLElement>((resolve) => {
  if (document.body) resolve(document.body);
  else document.addEventListener("DOMContentLoaded", () => resolve(document.body));
});

function data(): unknown {
  if (!parsed) {
    const text = document.getElementById("ghostbook-data")?.textContent ?? "null";
    parsed = { value: JSON.parse(text) as unknown };
  }
  return parsed.value;
}

function fail(error: unknown): void {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  void bodyReady.then((body) => {
    const pre = document.createElement("pre");
    pre.className = "ghostbook-error";
    pre.textContent = text;
    body.append(pre);
  });
}

function post(message: unknown): void {
  window.parent.postMessage(message, "*"); // the page checks the source; nothing here is secret
}

const runtime: FrameRuntime = {
  data,
  root: () => bodyReady,
  fail,
  post,
  theme: () => (document.documentElement.dataset.theme === "dark" ? "dark" : "light"),
  onMessage: (handler) => void handlers.push(handler),
};
window.ghostbook = runtime;

window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return; // another frame of the page, or this one
  for (const handler of handlers) handler(event.data);
});

let lastHeight = -1;
function reportHeight(): void {
  const height = Math.ceil(document.body.getBoundingClientRect().height);
  if (height === lastHeight) return;
  lastHeight = height;
  post({ ghostbook: "height", height });
}

void bodyReady.then((body) => {
  new ResizeObserver(reportHeight).observe(body);
  reportHeight();
  const value = data() as { javascript?: unknown } | null;
  if (value && typeof value.javascript === "string") runJavascript(value.javascript, body);
});

/** An `application/javascript` output, run as classic Jupyter does: a function of `element`. */
function runJavascript(code: string, body: HTMLElement): void {
  const element = document.createElement("div");
  element.className = "output-javascript";
  body.append(element);
  try {
    new Function("element", code).call(window, element);
  } catch (error) {
    fail(error);
  }
}
