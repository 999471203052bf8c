// Which renderer draws a mime bundle: a small registry of mime type → renderer, each with a rank (lower
// wins, as JupyterLab's rendermime ranks). outputs.ts registers the built-in families; a feature that
// needs state (widgets: the comm bridge) registers its own renderer when it starts.

import type { Output } from "../protocol";

export interface OutputExtras {
  /** Something to show after an error output (a code cell's Fix button), or nothing. */
  errorAction?: (output: Output) => HTMLElement | null;
}

export interface RenderContext {
  /** The mime type this renderer was chosen for. */
  mime: string;
  /** `data[mime]`. */
  value: unknown;
  /** The whole mime bundle (a renderer may read a sibling type, e.g. bokeh's text/html). */
  data: Record<string, unknown>;
  /** The output's metadata (nbformat: per mime type, or global keys such as `isolated`). */
  metadata: Record<string, unknown>;
  output: Output;
  extras: OutputExtras;
}

/** Draws one output; null draws nothing (a bundle that only loads a library, like bokeh's). */
export type Renderer = (context: RenderContext) => HTMLElement | null;

export interface RendererSpec {
  /** The mime types this renderer draws. */
  mimes: readonly string[];
  render: Renderer;
  /** Lower wins. See RANK for the built-in ladder. */
  rank: number;
  /** Claim a bundle only when this says so (e.g. bokeh's "Loading BokehJS" html); default: always. */
  accepts?: (data: Record<string, unknown>, mime: string) => boolean;
  /** Outputs whose element may be kept across re-renders when unchanged (iframes: no reload). */
  keep?: boolean;
}

/** The built-in ranks (JupyterLab's ladder: html 50, markdown 60, latex 70, svg 80, images 90, ...). */
export const RANK = {
  widget: 0,
  plotly: 10,
  vega: 20,
  bokeh: 30,
  html: 50,
  markdown: 60,
  latex: 70,
  svg: 80,
  image: 90,
  json: 100,
  javascript: 110,
  text: 120,
} as const;

const specs: RendererSpec[] = [];

/** Add a renderer; a later registration with the same rank and mime type wins over an earlier one. */
export function registerRenderer(spec: RendererSpec): void {
  specs.unshift(spec);
  specs.sort((a, b) => a.rank - b.rank); // stable: equal ranks keep the newest first
}

export interface Choice {
  mime: string;
  spec: RendererSpec;
}

/** The best renderer for `data`, or null when no registered renderer draws any of its types. */
export function chooseRenderer(data: Record<string, unknown>): Choice | null {
  for (const spec of specs) {
    for (const mime of spec.mimes) {
      if (mime in data && (!spec.accepts || spec.accepts(data, mime))) return { mime, spec };
    }
  }
  return null;
}

/** Registered mime types, best first (for tests and the README). */
export function preferenceOrder(): string[] {
  const seen = new Set<string>();
  for (const spec of specs) for (const mime of spec.mimes) seen.add(mime);
  return [...seen];
}
