// text/html and application/javascript. Script-free HTML (a DataFrame's table) is sanitised and shown
// inline; HTML that needs scripts, and JavaScript outputs, run in a sandboxed frame (frame.ts), with
// the bundled library preloaded when the code calls one we ship (plotly.js, vega-embed, BokehJS), since
// the CDN they would load from is out of reach.

import { sanitizeHtml } from "../markdown";
import { bokehScripts } from "./bokeh";
import { outputFrame } from "./frame";
import type { RenderContext } from "./registry";
import { joinText } from "./text";
import { vegaPrelude } from "./vega";

const EXECUTABLE_TYPE = /^\s*$|javascript|ecmascript|^\s*module\s*$|jscript|livescript/i;
const QUICK_SCRIPT_HINT = /<script|\son[a-z]+\s*=|javascript:/i;

/** Whether `html` would do anything more than sanitised HTML does: an executable <script>, an event
 * handler attribute or a javascript: URL. */
export function needsScripts(html: string): boolean {
  if (!QUICK_SCRIPT_HINT.test(html)) return false;
  const doc = new DOMParser().parseFromString(html, "text/html"); // inert: nothing runs or loads
  for (const script of Array.from(doc.querySelectorAll("script"))) {
    if (EXECUTABLE_TYPE.test(script.getAttribute("type") ?? "")) return true;
  }
  for (const element of Array.from(doc.querySelectorAll("*"))) {
    for (const attribute of Array.from(element.attributes)) {
      if (attribute.name.startsWith("on") || /^\s*javascript:/i.test(attribute.value)) return true;
    }
  }
  return false;
}

export interface Libraries {
  /** Renderer bundles (outputs/frames/*.ts) to load. */
  bundles: string[];
  /** Other static scripts (BokehJS). */
  scripts: string[];
  /** Code to run before the output's own (tells altair's template that vega is already here). */
  prelude: string;
}

/** The bundled libraries `code` calls. */
export function librariesFor(code: string): Libraries {
  const libraries: Libraries = { bundles: [], scripts: [], prelude: "" };
  if (/\bPlotly\.(newPlot|react|plot)\b/.test(code)) libraries.bundles.push("plotly");
  if (/\bvegaEmbed\b/.test(code)) {
    libraries.bundles.push("vega");
    libraries.prelude += vegaPrelude(code);
  }
  if (/\bBokeh\.embed\b/.test(code)) libraries.scripts.push(...bokehScripts(code));
  return libraries;
}

export function renderHtml({ value }: RenderContext): HTMLElement {
  const html = joinText(value);
  if (needsScripts(html)) return htmlFrame(html);
  const div = document.createElement("div");
  div.innerHTML = sanitizeHtml(html);
  return div;
}

export function htmlFrame(html: string): HTMLIFrameElement {
  const { bundles, scripts, prelude } = librariesFor(html);
  const body = (prelude ? `<script>${prelude}</script>` : "") + html;
  return outputFrame({ title: "HTML output", body, bundles, scripts, inlineScripts: true });
}

export function renderJavascript({ value }: RenderContext): HTMLElement {
  return javascriptFrame(joinText(value));
}

/** A JavaScript output: the runtime calls it as `function (element)` like classic Jupyter. */
export function javascriptFrame(code: string, extra: { body?: string; scripts?: string[] } = {}): HTMLIFrameElement {
  const { bundles, scripts, prelude } = librariesFor(code);
  return outputFrame({
    title: "JavaScript output",
    body: extra.body,
    bundles,
    scripts: [...new Set([...(extra.scripts ?? []), ...scripts])],
    data: { javascript: prelude + code },
    inlineScripts: true,
  });
}
