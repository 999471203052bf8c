// The statistics chart (build.mjs's `charts` entry point, with uPlot and its CSS): telemetry-panel.ts loads
// it the first time the settings panel shows the user's completion statistics, so the main bundle does not
// carry it. Per day: the acceptance rate as bars (left axis, %), latency p50 and p95 as lines (right, ms).

import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface ChartDay {
  /** The day's local midnight, in seconds. */
  ts: number;
  acceptance_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface TelemetryChart {
  update(days: ChartDay[]): void;
  destroy(): void;
}

const RATE = "#6f42c1"; // styles.css --accent
const LATENCY = "#bc4c00";

/** Axis text and grid in the theme in effect (a canvas cannot read the page's CSS colours). */
function axisInk(dark: boolean): { stroke: string; grid: { stroke: string; width: number }; ticks: { stroke: string; width: number } } {
  const line = dark ? "#30363d" : "#d0d7de"; // styles.css --border
  return { stroke: dark ? "#8d96a0" : "#656d76", grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };
}
const HALF_DAY = 43200;

function data(days: ChartDay[]): uPlot.AlignedData {
  return [
    days.map((d) => d.ts),
    days.map((d) => (d.acceptance_rate === null ? null : Math.round(d.acceptance_rate * 1000) / 10)),
    days.map((d) => d.p50_ms),
    days.map((d) => d.p95_ms),
  ];
}

function options(width: number, height: number, dark: boolean): uPlot.Options {
  const ink = axisInk(dark);
  const ms = (v: number | null) => (v === null ? "–" : `${Math.round(v)} ms`);
  const bars = uPlot.paths.bars?.({ size: [0.6, 24] });
  return {
    width,
    height,
    cursor: { drag: { x: false, y: false } },
    legend: { live: true },
    scales: {
      x: { time: true, range: (_u, min, max) => [min - HALF_DAY, max + HALF_DAY] }, // whole bars at the ends
      rate: { range: [0, 100] },
      ms: { range: (_u, _min, max) => [0, Math.max(100, (max ?? 0) * 1.1)] },
    },
    series: [
      { label: "day", value: "{YYYY}-{MM}-{DD}" },
      {
        label: "accepted",
        scale: "rate",
        stroke: RATE,
        fill: "rgba(111, 66, 193, 0.25)",
        paths: bars,
        points: { show: false },
        value: (_u, v) => (v === null ? "–" : `${v}%`),
      },
      { label: "p50", scale: "ms", stroke: LATENCY, width: 2, value: (_u, v) => ms(v) },
      { label: "p95", scale: "ms", stroke: LATENCY, width: 1, dash: [4, 4], value: (_u, v) => ms(v) },
    ],
    axes: [
      { values: "{M}/{D}", space: 40, font: "11px system-ui", ...ink },
      { scale: "rate", values: (_u, ticks) => ticks.map((t) => `${t}%`), size: 44, font: "11px system-ui", ...ink },
      {
        ...ink,
        scale: "ms",
        side: 1,
        grid: { show: false },
        values: (_u, ticks) => ticks.map((t) => `${t}`),
        size: 44,
        label: "ms",
        labelSize: 14,
        font: "11px system-ui",
        labelFont: "11px system-ui",
      },
    ],
  };
}

/** Draw `days` into `host`, `width` px wide, its axes for a `dark` page or a light one. */
export function createChart(host: HTMLElement, days: ChartDay[], width: number, dark = false, height = 170): TelemetryChart {
  const plot = new uPlot(options(width, height, dark), data(days), host);
  return {
    update: (next) => plot.setData(data(next)),
    destroy: () => plot.destroy(),
  };
}
