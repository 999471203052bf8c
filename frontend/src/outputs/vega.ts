// Vega and Vega-Lite specs (altair's mimetype renderer) in a sandboxed frame, drawn by the lazily
// loaded vega bundle (frames/vega.ts: vega, vega-lite and vega-embed from npm). Altair's default
// renderer emits HTML instead, which html.ts frames with the same bundle and vegaPrelude.

import { outputFrame } from "./frame";
import type { RenderContext } from "./registry";

export const VEGA_MIMES = [
  "application/vnd.vegalite.v6+json",
  "application/vnd.vegalite.v6.json", // what altair 6's mimetype renderer sends
  "application/vnd.vega.v6.json",
  "application/vnd.vegalite.v5+json",
  "application/vnd.vegalite.v4+json",
  "application/vnd.vegalite.v3+json",
  "application/vnd.vegalite.v2+json",
  "application/vnd.vegalite.v1+json",
  "application/vnd.vega.v6+json",
  "application/vnd.vega.v5+json",
  "application/vnd.vega.v4+json",
  "application/vnd.vega.v3+json",
] as const;

export function renderVega({ mime, value, metadata }: RenderContext): HTMLElement {
  const mode = mime.includes("vegalite") ? "vega-lite" : "vega";
  const own = metadata[mime];
  const options = typeof own === "object" && own !== null ? (own as { embed_options?: unknown }).embed_options : undefined;
  const height = (value as { height?: unknown } | null)?.height;
  return outputFrame({
    title: mode === "vega" ? "Vega chart" : "Vega-Lite chart",
    bundles: ["vega"],
    data: { spec: value, mode, options: typeof options === "object" ? options : undefined },
    initialHeight: typeof height === "number" ? height + 40 : 0,
  });
}

/** Altair's HTML template loads vega, vega-lite and vega-embed from a CDN unless VEGA_DEBUG says the
 * versions it wants are loaded: say so (the bundle's vegaEmbed is already there). */
export function vegaPrelude(html: string): string {
  const versions: Record<string, string> = {};
  for (const [, lib, version] of html.matchAll(/maybeLoadScript\(\s*"(vega|vega-lite|vega-embed)"\s*,\s*"([\w.-]+)"\s*\)/g)) {
    versions[`${lib.replace("-", "")}_version`] = version;
  }
  if (!Object.keys(versions).length) return "";
  return `window.VEGA_DEBUG = Object.assign(window.VEGA_DEBUG || {}, ${JSON.stringify(versions)});\n`;
}
