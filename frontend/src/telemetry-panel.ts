// "Your completion statistics", a section of the settings panel (`get_telemetry` / `reset_telemetry`): the
// acceptance rate and latency per day over the last 14 days (a uPlot chart from the `charts` bundle, loaded
// on first use), a table per kind and per model, filters by kind and model, and Reset (asks first). The
// events stay on the server's machine (notebook/ghostbook/completion/telemetry.py); nothing is sent anywhere.

import { currentTheme, onThemeChange } from "./appearance/appearance";
import type { Connection } from "./connection";
import { button, el } from "./dom";
import { KIND_NAMES, rateText, tallyText } from "./ghost-text/labels";
import { nextRef } from "./ghost-text/store";
import type { SuggestionKind, Tally, TelemetryMessage } from "./protocol";
import type { createChart, TelemetryChart } from "./telemetry-chart";
import "./telemetry.css";

/** The chart bundle (build.mjs's `charts` entry point) beside main.js, with its CSS. */
const CHARTS_JS = "/static/build/charts.js";
const CHARTS_CSS = "/static/build/charts.css";
const DAYS = 14;

type ChartModule = { createChart: typeof createChart };
let charts: Promise<ChartModule> | null = null;

function loadCharts(): Promise<ChartModule> {
  if (!charts) {
    charts = (async () => {
      await new Promise<void>((resolve) => {
        const link = el("link", { rel: "stylesheet", href: CHARTS_CSS });
        link.onload = link.onerror = () => resolve();
        document.head.append(link);
      });
      const url = CHARTS_JS; // a variable: esbuild leaves the import to the browser
      return (await import(url)) as ChartModule;
    })();
    charts.catch(() => (charts = null)); // try again next time
  }
  return charts;
}

export class TelemetrySection {
  readonly element: HTMLElement;
  private readonly note = el("div", { class: "settings-hint telemetry-note", testid: "telemetry-note" });
  private readonly kind = el(
    "select",
    { testid: "telemetry-kind", "aria-label": "Suggestion kind" },
    el("option", { value: "" }, "all kinds"),
    ...["new_line", "end_of_line", "mid_line"].map((kind) => el("option", { value: kind }, KIND_NAMES[kind])),
  );
  private readonly model = el("select", { testid: "telemetry-model", "aria-label": "Model" });
  private readonly chartHost = el("div", { class: "telemetry-chart", testid: "telemetry-chart" });
  private readonly summary = el("div", { class: "telemetry-summary", testid: "telemetry-summary" });
  private readonly table = el("table", { class: "telemetry-table", testid: "telemetry-table" });
  private readonly error = el("div", { class: "settings-error", testid: "telemetry-error", role: "alert" });
  private chart: TelemetryChart | null = null;
  private ref = "";

  constructor(private readonly connection: Connection) {
    this.element = el(
      "section",
      { class: "telemetry", testid: "telemetry" },
      el("h3", {}, "Your completion statistics"),
      this.note,
      el("div", { class: "telemetry-filters" }, this.kind, this.model),
      this.chartHost,
      this.summary,
      this.table,
      this.error,
      el(
        "div",
        { class: "settings-actions" },
        button("Reset statistics…", "telemetry-reset", "Forget every recorded suggestion", () => void this.reset()),
      ),
    );
    this.error.hidden = true;
    this.kind.addEventListener("change", () => this.refresh());
    this.model.addEventListener("change", () => this.refresh());
    onThemeChange(() => {
      if (!this.chart) return;
      this.chart.destroy(); // drawn again with the theme's axis colours
      this.chart = null;
      this.refresh();
    });
    connection.addListener((message) => {
      if (message.type === "telemetry" && message.ref === this.ref) void this.render(message);
    });
  }

  /** Ask for the last 14 days (with the chosen filters). */
  refresh(): void {
    this.ref = nextRef("tel");
    this.connection.send({
      type: "get_telemetry",
      ref: this.ref,
      days: DAYS,
      kind: (this.kind.value || null) as SuggestionKind | null,
      model: this.model.value || null,
    });
  }

  private async reset(): Promise<void> {
    if (!(await confirmReset())) return;
    this.kind.value = "";
    this.model.value = "";
    this.ref = nextRef("tel");
    this.connection.send({ type: "reset_telemetry", ref: this.ref });
  }

  private async render(message: TelemetryMessage): Promise<void> {
    this.note.textContent = message.enabled
      ? `Kept on this machine only (${message.path}) for ${message.keep_days} days, never sent anywhere.`
      : "Not kept: GHOSTBOOK_TELEMETRY=off.";
    this.error.textContent = message.error ?? "";
    this.error.hidden = !message.error;
    this.renderModels(message.models, message.filter.model);
    const total = message.total;
    this.summary.textContent = tallyText(total);
    for (const key of ["shown", "accepted", "whole", "word", "line"] as const) {
      this.summary.dataset[key] = String(total[key]);
    }
    const row = (name: string, tally: Tally, attrs: Record<string, string>) =>
      el(
        "tr",
        attrs,
        el("td", {}, name),
        el("td", {}, String(tally.shown)),
        el("td", {}, String(tally.accepted)),
        el("td", {}, rateText(tally.acceptance_rate)),
        el("td", {}, tally.p50_ms === null ? "–" : `${Math.round(tally.p50_ms)} ms`),
      );
    const group = (title: string) => el("tr", { class: "telemetry-group" }, el("th", { colspan: "5" }, title));
    this.table.replaceChildren(
      el("thead", {}, el("tr", {}, ...["", "shown", "accepted", "rate", "p50"].map((h) => el("th", {}, h)))),
      el(
        "tbody",
        {},
        ...(message.by_kind.length ? [group("By kind")] : []),
        ...message.by_kind.map((k) => row(KIND_NAMES[k.kind] ?? k.kind, k, { "data-kind": k.kind })),
        ...(message.by_model.length ? [group("By model")] : []),
        ...message.by_model.map((m) => row(m.model, m, { "data-model": m.model, title: m.model })),
      ),
    );
    this.table.hidden = !message.by_kind.length && !message.by_model.length;
    try {
      const { createChart } = await loadCharts();
      if (this.chart) this.chart.update(message.days);
      else {
        this.chartHost.replaceChildren();
        this.chart = createChart(this.chartHost, message.days, this.chartHost.clientWidth || 410, currentTheme() === "dark");
      }
      this.chartHost.dataset.days = String(message.days.length);
    } catch {
      this.chartHost.textContent = "The chart could not be loaded.";
    }
  }

  private renderModels(models: string[], chosen: string | null): void {
    const names = chosen && !models.includes(chosen) ? [...models, chosen] : models;
    this.model.replaceChildren(
      el("option", { value: "" }, "all models"),
      ...names.map((name) => el("option", { value: name, title: name }, name)),
    );
    this.model.value = chosen ?? "";
  }
}

/** "Forget your completion statistics?": true to go ahead. */
function confirmReset(): Promise<boolean> {
  const dialog = el(
    "dialog",
    { class: "confirm-dialog", testid: "telemetry-reset-dialog", "aria-labelledby": "telemetry-reset-title" },
    el(
      "form",
      { method: "dialog" },
      el("h2", { id: "telemetry-reset-title" }, "Forget your completion statistics?"),
      el("p", {}, "Every recorded suggestion is deleted from this machine. This cannot be undone."),
      el(
        "div",
        { class: "dialog-buttons" },
        el("button", { class: "button", testid: "telemetry-reset-cancel", value: "cancel", autofocus: "" }, "Cancel"),
        el("button", { class: "button danger", testid: "telemetry-reset-confirm", value: "reset" }, "Reset"),
      ),
    ),
  );
  dialog.addEventListener("keydown", (event) => event.stopPropagation()); // not the notebook's keys
  document.body.appendChild(dialog);
  return new Promise<boolean>((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "reset");
    });
    dialog.returnValue = "";
    dialog.showModal();
  });
}
