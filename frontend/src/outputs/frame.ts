// The host side of a sandboxed output: an iframe with `sandbox="allow-scripts"` and
// nothing more (never the same-origin permission), so its document has an opaque origin: no cookies, no storage, no access to this
// page), fed by `srcdoc`, whose Content-Security-Policy allows no network but the server's public
// renderer scripts. The frame reports its content's height by postMessage (as VS Code's notebook
// webview does); this page believes only a number, and only from that frame's own window.

import { currentTheme, onThemeChange, type Theme } from "../appearance/appearance";

/** Where the renderer bundles and the frame runtime live (served without the token: the frame has no cookie). */
export const FRAMES_PATH = "/static/build/frames/";
/** BokehJS, served from the bokeh Python package installed next to the server (its inline resources). */
export const BOKEH_PATH = "/static/bokeh/";

/** A frame never grows past this; beyond it the frame scrolls (a hostile frame cannot push the page around). */
export const MAX_FRAME_HEIGHT = 5000;

export interface FrameOptions {
  /** Renderer bundles to load from FRAMES_PATH, in order, after the runtime ("plotly", "vega"). */
  bundles?: readonly string[];
  /** Further scripts, as paths under /static/ ("bokeh/bokeh.min.js"). */
  scripts?: readonly string[];
  /** Body HTML; it runs inside the sandbox only. */
  body?: string;
  /** Data for the bundles (the runtime's `ghostbook.data()`), embedded as inert JSON. */
  data?: unknown;
  /** Inline `<script>` elements may run (HTML outputs, JavaScript outputs, bokeh's embed code). */
  inlineScripts?: boolean;
  /** Height before the frame reports its own (avoids a jump for charts of known size). */
  initialHeight?: number;
  /** Accessible name of the frame. */
  title: string;
  /** Light or dark (default: the page's theme in effect). */
  theme?: Theme;
  /** Any other message posted by this frame's window (widgets use this channel); the frame is untrusted. */
  onMessage?: (message: unknown) => void;
}

interface Entry {
  frame: HTMLIFrameElement;
  options: FrameOptions;
  onMessage?: (message: unknown) => void;
}

const live = new Set<Entry>();
let listening = false;

/** A sandboxed iframe showing `options.body` with its renderer bundles. */
export function outputFrame(options: FrameOptions): HTMLIFrameElement {
  const frame = document.createElement("iframe");
  frame.className = "output-frame";
  frame.dataset.testid = "output-frame";
  frame.setAttribute("sandbox", "allow-scripts");
  // Chromium: the frame's requests and navigations carry no cookies at all (a second line behind the
  // opaque origin and SameSite=Strict).
  frame.setAttribute("credentialless", "");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.title = options.title;
  frame.style.height = `${Math.max(0, Math.min(options.initialHeight ?? 0, MAX_FRAME_HEIGHT))}px`;
  frame.srcdoc = frameDocument(location.origin, options);
  live.add({ frame, options, onMessage: options.onMessage });
  listen();
  return frame;
}

/** Send `message` to the frame (it cannot reply except by its own postMessage to this window). */
export function postToFrame(frame: HTMLIFrameElement, message: unknown): void {
  frame.contentWindow?.postMessage(message, "*");
}

/** The policy for a frame: scripts only from the server's public static files (plus inline ones when
 * the output itself is a script), styles and images inline, nothing else from anywhere. */
export function framePolicy(origin: string, inlineScripts: boolean): string {
  const staticFiles = `${origin}/static/`;
  return [
    "default-src 'none'",
    `script-src ${staticFiles} 'unsafe-eval'${inlineScripts ? " 'unsafe-inline'" : ""}`,
    `style-src ${staticFiles} 'unsafe-inline'`,
    "img-src data: blob:",
    `font-src ${staticFiles} data:`,
    "media-src data: blob:",
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/** JSON that is safe inside `<script type="application/json">` (no `</script>`, no `<!--`). */
export function inertJson(value: unknown): string {
  return (JSON.stringify(value) ?? "null")
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function frameDocument(origin: string, options: FrameOptions): string {
  const script = (path: string) => `<script src="${escapeAttribute(origin + path)}"></script>`;
  const head = [
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(framePolicy(origin, !!options.inlineScripts))}">`,
    `<style>${FRAME_STYLE}</style>`,
    `<script type="application/json" id="ghostbook-data">${inertJson(options.data ?? null)}</script>`,
    script(`${FRAMES_PATH}runtime.js`),
    ...(options.bundles ?? []).map((name) => script(`${FRAMES_PATH}${name}.js`)),
    ...(options.scripts ?? []).map((path) => script(`/static/${path}`)),
  ];
  // The page's theme in effect (appearance): the frame's colours, and the renderers' (runtime `theme()`).
  const theme = options.theme ?? currentTheme();
  return `<!doctype html><html data-theme="${theme}"><head>${head.join("")}</head><body>${options.body ?? ""}</body></html>`;
}

const FRAME_STYLE = [
  "html,body{margin:0;padding:0;background:transparent}",
  "body{display:flow-root;overflow-x:auto;color:#1f2328;",
  'font:14px system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif}',
  ".ghostbook-error{color:#cf222e;white-space:pre-wrap;font:13px ui-monospace,monospace;margin:0}",
  // the same color-scheme as the page, else Chromium paints the frame an opaque white
  ":root[data-theme=dark]{color-scheme:dark}:root[data-theme=dark] body{color:#e6edf3}",
  ":root[data-theme=dark] .ghostbook-error{color:#f85149}",
].join("");

function listen(): void {
  if (listening) return;
  listening = true;
  window.addEventListener("message", onMessage);
  // The theme changed: draw the frames again in it (a chart's own state, zoom or hover, starts over).
  onThemeChange((theme) => {
    for (const entry of live) {
      if (!entry.frame.isConnected || entry.options.theme) continue;
      entry.frame.srcdoc = frameDocument(location.origin, { ...entry.options, theme });
    }
  });
}

function onMessage(event: MessageEvent): void {
  if (!event.source) return;
  for (const entry of live) {
    if (!entry.frame.isConnected && !entry.frame.contentWindow) {
      live.delete(entry); // removed from the page
      continue;
    }
    if (entry.frame.contentWindow !== event.source) continue;
    if (isHeightMessage(event.data)) {
      const height = frameHeight(event.data);
      if (height !== null) entry.frame.style.height = `${height}px`;
    } else {
      entry.onMessage?.(event.data);
    }
    return;
  }
}

function isHeightMessage(data: unknown): boolean {
  return typeof data === "object" && data !== null && (data as Record<string, unknown>).ghostbook === "height";
}

/** The height a `{ghostbook: "height", height}` message asks for, clamped; null for anything else. */
export function frameHeight(data: unknown): number | null {
  if (!isHeightMessage(data)) return null;
  const height = (data as Record<string, unknown>).height;
  if (typeof height !== "number" || !Number.isFinite(height)) return null;
  return Math.max(0, Math.min(Math.ceil(height), MAX_FRAME_HEIGHT));
}
