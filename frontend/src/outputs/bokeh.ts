// Bokeh, with BokehJS served from the bokeh package installed next to the server (its "inline"
// resources: no CDN). `show()` sends two outputs: an empty <div> and the embed code with
// `application/vnd.bokehjs_exec.v0+json`; the frame draws the code into a <div> of its own with the ids
// the code names. `output_notebook()`'s loader output has nothing to do: every frame loads BokehJS.

import { BOKEH_PATH } from "./frame";
import { javascriptFrame } from "./html";
import type { RenderContext } from "./registry";
import { joinText } from "./text";

export const BOKEH_EXEC_MIME = "application/vnd.bokehjs_exec.v0+json";
export const BOKEH_LOAD_MIME = "application/vnd.bokehjs_load.v0+json";

const MISSING = "BokehJS is not available: install bokeh in the environment that runs Ghostbook's server.";

/** BokehJS files the code needs (paths under /static/), in BokehJS's own load order. */
export function bokehScripts(code: string): string[] {
  const files = ["bokeh.min.js"];
  if (/"output_backend"\s*:\s*"webgl"/.test(code)) files.push("bokeh-gl.min.js");
  files.push("bokeh-widgets.min.js", "bokeh-tables.min.js");
  if (/"name"\s*:\s*"(TeX|MathML|MathText|Ascii)"|\$\$|\\\\\(|\\\\\[/.test(code)) files.push("bokeh-mathjax.min.js");
  const base = BOKEH_PATH.replace(/^\/static\//, "");
  return files.map((file) => base + file);
}

/** The root elements `embed_items_notebook` will look for: {root id: element id}. */
export function bokehRoots(code: string): Record<string, string> {
  const match = /render_items\s*=\s*(\[.*?\]);/s.exec(code);
  if (!match) return {};
  try {
    const items = JSON.parse(match[1]) as { roots?: Record<string, string> }[];
    return Object.assign({}, ...items.map((item) => item.roots ?? {})) as Record<string, string>;
  } catch {
    return {};
  }
}

function escape(text: string): string {
  return text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function renderBokehExec({ data }: RenderContext): HTMLElement | null {
  const code = joinText(data["application/javascript"]);
  if (!code) return null;
  const body = Object.entries(bokehRoots(code))
    .map(([root, id]) => `<div id="${escape(id)}" data-root-id="${escape(root)}" style="display: contents;"></div>`)
    .join("");
  const check = `if (!window.Bokeh) throw new Error(${JSON.stringify(MISSING)});\n`;
  return javascriptFrame(check + code, { body, scripts: bokehScripts(code) });
}

/** The loader's "Loading BokehJS ..." note, which its (skipped) script would have updated. */
export function isBokehLoadingNote(data: Record<string, unknown>): boolean {
  const html = joinText(data["text/html"]);
  return html.includes("bk-notebook-logo") && html.includes("Loading BokehJS");
}

export function renderBokehLoadingNote(): HTMLElement {
  const note = document.createElement("div");
  note.className = "output-note";
  note.textContent = "BokehJS loads with each plot (from Ghostbook's server, no CDN).";
  return note;
}

export function renderNothing(): null {
  return null;
}
