// How the settings panel words the model status, the live stats and the user's own statistics.

import type { ModelStatus, Tally } from "../protocol";
import type { Stats } from "./store";

export function modelStatusText(model: ModelStatus | null): string {
  if (!model) return "unknown";
  const name = model.name || model.path || "model";
  // while another model downloads or loads, the one before answers (`serving`)
  const meanwhile = model.serving ? ` · ${model.serving_name || model.serving} answers meanwhile` : "";
  switch (model.state) {
    case "off":
      return "off (completion is turned off)";
    case "downloading": {
      const done = model.bytes_done ?? null;
      const total = model.bytes_total ?? null;
      if (done === null) return `${`downloading ${name}… ${model.message ?? ""}`.trim()}${meanwhile}`;
      const percent = model.progress === null ? "" : ` ${Math.round(model.progress * 100)}%`;
      return `downloading ${name}…${percent} (${bytesText(done)}${total ? ` of ${bytesText(total)}` : ""})${meanwhile}`;
    }
    case "loading":
      return (model.progress === null ? `loading ${name}…` : `loading ${name}… ${Math.round(model.progress * 100)}%`) + meanwhile;
    case "ready":
      // a message on a ready model: the model chosen after it failed, and this one serves on
      return model.message ? `ready: ${name} — ${model.message}` : `ready: ${name}`;
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

/** The user's statistics' names for the suggestion kinds (protocol `SuggestionKind`). */
export const KIND_NAMES: Record<string, string> = {
  new_line: "new line",
  end_of_line: "end of line",
  mid_line: "mid-line",
  unknown: "unknown",
};

export function rateText(rate: number | null): string {
  return rate === null ? "–" : `${Math.round(rate * 100)}%`;
}

/** One line for a group of the user's statistics: what was shown, taken (and by which key), latency. */
export function tallyText(tally: Tally): string {
  if (!tally.shown && !tally.accepted) return "no suggestions recorded";
  const keys = [`${tally.whole} whole`, `${tally.word} by word`, `${tally.line} by line`].join(", ");
  return (
    `shown ${tally.shown} · accepted ${tally.accepted} (${rateText(tally.acceptance_rate)}: ${keys}) · ` +
    `dismissed ${tally.dismissed} · p50 ${ms(tally.p50_ms)} · p95 ${ms(tally.p95_ms)}`
  );
}
