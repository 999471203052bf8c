// The vega renderer bundle (loaded lazily, only by frames that draw vega or vega-lite, or HTML that
// calls vegaEmbed, such as altair's default renderer): vega, vega-lite and vega-embed from npm.

import * as vega from "vega";
import vegaEmbed from "vega-embed";
import * as vegaLite from "vega-lite";
import { frameRuntime } from "./api";

declare global {
  interface Window {
    vega?: unknown;
    vegaLite?: unknown;
    vegaEmbed?: unknown;
  }
}
/** vega-themes' "dark" under the page's dark theme (an output's own `theme` option still wins). An exported
 * HTML file loads this bundle with no frame runtime (export/offline.py): there it draws as it is. */
function darkTheme(): { theme?: "dark" } {
  const runtime = window.ghostbook;
  return typeof runtime?.theme === "function" && runtime.theme() === "dark" ? { theme: "dark" } : {};
}

// Globals for HTML outputs (altair's template looks for `vegaEmbed` once it thinks it has loaded it).
// Their actions menu is dropped too: its export, source and editor links cannot leave the sandbox.
window.vega = vega;
window.vegaLite = vegaLite;
window.vegaEmbed = Object.assign(
  (el: HTMLElement | string, spec: unknown, options: Record<string, unknown> = {}) =>
    vegaEmbed(el, spec as never, { ...darkTheme(), ...options, actions: false }),
  vegaEmbed,
);

interface VegaData {
  spec?: unknown;
  mode?: "vega" | "vega-lite";
  options?: Record<string, unknown>;
}

async function draw(): Promise<void> {
  const runtime = frameRuntime();
  const value = runtime.data() as VegaData | null;
  if (!value?.spec) return;
  const spec = typeof value.spec === "string" ? (JSON.parse(value.spec) as object) : (value.spec as object);
  const root = await runtime.root();
  const chart = document.createElement("div");
  chart.className = "vega-output";
  root.append(chart);
  await vegaEmbed(chart, spec as never, { renderer: "svg", ...darkTheme(), ...value.options, mode: value.mode, actions: false });
}

draw().catch((error: unknown) => frameRuntime().fail(error));
