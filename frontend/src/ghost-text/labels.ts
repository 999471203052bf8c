// How the settings panel words the model status and the live stats.

import type { ModelStatus } from "../protocol";
import type { Stats } from "./store";

export function modelStatusText(model: ModelStatus | null): string {
  if (!model) return "unknown";
  const name = model.name || model.path || "model";
  switch (model.state) {
    case "off":
      return "off (completion is turned off)";
    case "downloading": {
      const done = model.bytes_done ?? null;
      const total = model.bytes_total ?? null;
      if (done === null) return `downloading ${name}… ${model.message ?? ""}`.trim();
      const percent = model.progress === null ? "" : ` ${Math.round(model.progress * 100)}%`;
      return `downloading ${name}…${percent} (${bytesText(done)}${total ? ` of ${bytesText(total)}` : ""})`;
    }
    case "loading":
      return model.progress === null ? `loading ${name}…` : `loading ${name}… ${Math.round(model.progress * 100)}%`;
    case "ready":
      return `ready: ${name}`;
    case "error":
      return `error: ${model.message ?? "the model could not be loaded"}`;
  }
}

/** 1.2 GB, 340 MB, 12 kB. */
export function bytesText(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.round(bytes / 1e3)} kB`;
}

function ms(value: number | null): string {
  return value === null ? "–" : `${Math.round(value)} ms`;
}

export function statsText(stats: Stats | null): string {
  if (!stats) return "no suggestions yet";
  const rate = stats.acceptance_rate === null ? "–" : `${Math.round(stats.acceptance_rate * 100)}%`;
  return (
    `shown ${stats.shown} · accepted ${stats.accepted} · acceptance ${rate} · ` +
    `p50 ${ms(stats.p50_ms)} · p95 ${ms(stats.p95_ms)} · requests ${stats.requests} · model calls ${stats.model_calls}`
  );
}
