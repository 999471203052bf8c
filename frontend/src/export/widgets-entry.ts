// Widgets in an exported HTML file (build/export/widgets.js + widgets.css, inlined by the server's exporter
// when the notebook has widget outputs and saved their state): Ghostbook's own widget manager
// (outputs/widgets-manager.ts: ipywidgets' bundled controls only, HTML sanitised) draws each widget from
// the state saved in the notebook, as it was when saved. There is no kernel: widgets show, inert.

import type { Connection } from "../connection";
import { sanitizeHtml } from "../markdown";
import { renderOutputs } from "../outputs";
import { createRuntime } from "../outputs/widgets-manager";
import { readWidgetModels, type WidgetModelState } from "../protocol";
import "./widgets-export.css";

const STATE_MIME = "application/vnd.jupyter.widget-state+json";

/** The models nbconvert wrote from `metadata.widgets` (none live: there is no kernel). */
export function savedModels(text: string): Record<string, WidgetModelState> {
  try {
    const saved = JSON.parse(text) as { state?: Record<string, object> };
    const state = saved && typeof saved.state === "object" && saved.state ? saved.state : {};
    return readWidgetModels(Object.fromEntries(Object.entries(state).map(([id, model]) => [id, { ...model, live: false }])));
  } catch {
    return {};
  }
}

function draw(): void {
  const hosts = [...document.querySelectorAll<HTMLElement>(".ghostbook-widget[data-model-id]")];
  const models = savedModels(document.querySelector(`script[type="${STATE_MIME}"]`)?.textContent ?? "");
  if (!hosts.length || !Object.keys(models).length) return;
  const noKernel = { send: () => false } as unknown as Connection;
  const runtime = createRuntime({ connection: noKernel, renderOutputs, sanitizeHtml: (html) => sanitizeHtml(html) });
  // The hosts first, then the models: reset() draws every host once its models exist (a host added
  // while it runs would be drawn twice, the first view torn down while its children are still coming).
  for (const host of hosts) {
    const id = host.dataset.modelId ?? "";
    if (id in models) runtime.render(host, id, host.textContent ?? "");
  }
  runtime.reset(models);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
else draw();
