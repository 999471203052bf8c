// How the settings panel words the model status and the live stats.

import type { ModelStatus } from "../protocol";
import type { Stats } from "./store";

export function modelStatusText(model: ModelStatus | null): string {
  if (!model) return "unknown";
  const name = model.name || model.path || "model";
  switch (model.state) {
    case "off":
      return "off (completion is turned off)";
    case "loading":
      return model.progress === null ? `loading ${name}…` : `loading ${name}… ${Math.round(model.progress * 100)}%`;
    case "ready":
      return `ready: ${name}`;
    case "error":
      return `error: ${model.message ?? "the model could not be loaded"}`;
  }
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
