// Draws a plotly figure with the plotly.js of the bundle that imports this (plotly.ts: the full
// plotly.js; plotly-cartesian.ts: its cartesian traces only, a third of the size). From npm, no CDN.

import type Plotly from "plotly.js-dist-min";
import type { Config, Data, Frame, Layout } from "plotly.js-dist-min";
import { frameRuntime } from "./api";
import { themedLayout } from "./plotly-theme";

interface Figure {
  data?: Data[];
  layout?: Partial<Layout>;
  config?: Partial<Config>;
  frames?: Frame[];
}

export function install(plotly: typeof Plotly): void {
  // For HTML outputs made by plotly's to_html (their CDN <script> is blocked).
  (window as unknown as { Plotly: typeof Plotly }).Plotly = plotly;
  draw(plotly).catch((error: unknown) => frameRuntime().fail(error));
}

async function draw(plotly: typeof Plotly): Promise<void> {
  const runtime = frameRuntime();
  const value = runtime.data() as { figure?: Figure | string } | null;
  if (!value?.figure) return; // an HTML output that only wanted the library
  const figure = (typeof value.figure === "string" ? JSON.parse(value.figure) : value.figure) as Figure;
  const root = await runtime.root();
  const plot = document.createElement("div");
  plot.className = "plotly-output";
  root.append(plot);
  // Downloads and links out cannot leave the sandbox: no buttons that would do nothing.
  const config: Record<string, unknown> = {
    responsive: true,
    displaylogo: false,
    modeBarButtonsToRemove: ["toImage"],
    ...figure.config,
    showLink: false,
    showSendToCloud: false,
    showEditInChartStudio: false,
  };
  await plotly.newPlot(plot, {
    data: figure.data ?? [],
    layout: themedLayout(figure.layout ?? {}, runtime.theme()) as Partial<Layout>,
    frames: figure.frames,
    config: config as Partial<Config>,
  });
}
