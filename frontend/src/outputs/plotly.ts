// application/vnd.plotly.v1+json: drawn in a sandboxed frame by a lazily loaded plotly bundle
// (frames/plotly-cartesian.ts when the cartesian traces suffice, else frames/plotly.ts; plotly.js from npm).

import { outputFrame } from "./frame";
import type { RenderContext } from "./registry";

export const PLOTLY_MIME = "application/vnd.plotly.v1+json";
const DEFAULT_HEIGHT = 450; // plotly's own default

/** The traces plotly.js-cartesian-dist-min draws (its README); a figure with any other needs the full one. */
const CARTESIAN = new Set(["bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour",
  "image", "pie", "scatter", "scatterternary", "violin"]);

/** "plotly-cartesian" when every trace (animation frames too) is cartesian, else "plotly". */
export function plotlyBundle(figure: unknown): string {
  const fig = (figure ?? {}) as { data?: unknown; frames?: unknown };
  const traces: unknown[] = Array.isArray(fig.data) ? [...fig.data] : [];
  for (const frame of Array.isArray(fig.frames) ? fig.frames : []) {
    const data = (frame as { data?: unknown } | null)?.data;
    if (Array.isArray(data)) traces.push(...data);
  }
  const cartesian = traces.every((trace) => {
    const type = (trace as { type?: unknown } | null)?.type ?? "scatter";
    return typeof type === "string" && CARTESIAN.has(type);
  });
  return cartesian ? "plotly-cartesian" : "plotly";
}

export function renderPlotly({ value }: RenderContext): HTMLElement {
  let figure = value;
  if (typeof figure === "string") {
    try {
      figure = JSON.parse(figure);
    } catch {
      // the frame shows plotly's own complaint
    }
  }
  const layout = (figure as { layout?: { height?: unknown } } | null)?.layout;
  const height = typeof layout?.height === "number" ? layout.height : DEFAULT_HEIGHT;
  const bundles = [plotlyBundle(figure)];
  return outputFrame({ title: "Plotly chart", bundles, data: { figure }, initialHeight: height });
}
