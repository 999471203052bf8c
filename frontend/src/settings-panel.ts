// Completion settings panel (toolbar button `open-settings`): on/off, debounce and its mode, max new
// tokens, context budget, beam width and its read check, model ("default" or a local .gguf path), the model's status and the live
// stats. Settings persist on the server per user (`get_settings` / `update_settings`).

import "./ghost-text/ghost-text.css";
import type { Connection } from "./connection";
import { button, el } from "./dom";
import { modelStatusText, statsText } from "./ghost-text/labels";
import { type CompletionStore, storeFor } from "./ghost-text/store";
import { icon } from "./icons";
import { registerToolbarItem } from "./kernel-bar";
import type { CompletionSettings } from "./protocol";

function numberInput(testid: string, min: number, max: number, step = 1): HTMLInputElement {
  return el("input", { type: "number", testid, min: String(min), max: String(max), step: String(step) });
}

function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  return el(
    "label",
    { class: "settings-field" },
    el("span", { class: "settings-label" }, label),
    input,
    ...(hint ? [el("span", { class: "settings-hint" }, hint)] : []),
  );
}

class SettingsPanel {
  readonly panel: HTMLElement;
  private readonly enabled = el("input", { type: "checkbox", testid: "setting-enabled" });
  private readonly debounce = numberInput("setting-debounce", 0, 10000, 50);
  private readonly mode = el(
    "select",
    { testid: "setting-debounce-mode" },
    el("option", { value: "fixed" }, "fixed"),
    el("option", { value: "adaptive" }, "adaptive (shorter after a space or symbol, longer mid-word)"),
  );
  private readonly maxTokens = numberInput("setting-max-tokens", 1, 512);
  private readonly contextTokens = numberInput("setting-context-tokens", 64, 32768, 64);
  private readonly beamWidth = numberInput("setting-beam-width", 1, 8);
  private readonly readCheck = el("input", { type: "checkbox", testid: "setting-read-check" });
  private readonly model = el("input", {
    type: "text",
    testid: "setting-model",
    placeholder: "default, or /path/to/model.gguf",
    spellcheck: "false",
  });
  private readonly error = el("div", { class: "settings-error", testid: "settings-error", role: "alert" });
  private readonly modelStatus = el("div", { class: "model-status", testid: "model-status", role: "status" });
  private readonly stats = el("div", { class: "completion-stats", testid: "completion-stats" });
  private dirty = false;

  constructor(private readonly store: CompletionStore) {
    const form = el(
      "form",
      { class: "settings-form", novalidate: "" }, // the server validates; its message shows below
      field("Ghost-text completion", this.enabled),
      field("Debounce (ms)", this.debounce, "wait after the last keystroke; Ctrl+Space asks at once"),
      field("Debounce mode", this.mode),
      field("Max new tokens", this.maxTokens),
      field("Context budget (tokens)", this.contextTokens),
      field("Beam width", this.beamWidth, "first line: the likeliest of this many candidates (1: greedy, fastest)"),
      field("Read check", this.readCheck, "rank the beam's lines by reading them with the lines below (slower, better)"),
      field("Model", this.model, "“default” (built in) or a local .gguf file"),
      el(
        "div",
        { class: "settings-actions" },
        el("button", { class: "button primary", type: "submit", testid: "settings-save" }, "Apply"),
      ),
      this.error,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.save();
    });
    form.addEventListener("input", () => (this.dirty = true));
    this.panel = el(
      "div",
      { class: "settings-panel", testid: "settings-panel", role: "dialog", "aria-label": "Completion settings" },
      el(
        "div",
        { class: "shortcuts-header" },
        el("h2", {}, "Completion settings"),
        button("×", "close-settings", "Close (Esc)", () => this.hide(), "icon-button"),
      ),
      form,
      el("h3", {}, "Model"),
      this.modelStatus,
      el("h3", {}, "Live stats"),
      this.stats,
    );
    this.panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        this.hide();
      }
    });
    this.panel.hidden = true;
    this.error.hidden = true;
    document.body.appendChild(this.panel);
    store.subscribe(() => this.render());
    this.render();
  }

  toggle(): void {
    if (this.panel.hidden) this.show();
    else this.hide();
  }

  show(): void {
    this.dirty = false;
    this.fill(this.store.settings);
    this.panel.hidden = false;
    this.store.refresh();
  }

  hide(): void {
    this.panel.hidden = true;
  }

  private fill(settings: CompletionSettings): void {
    this.enabled.checked = settings.enabled;
    this.debounce.value = String(settings.debounce_ms);
    this.mode.value = settings.debounce_mode;
    this.maxTokens.value = String(settings.max_new_tokens);
    this.contextTokens.value = String(settings.context_tokens);
    this.beamWidth.value = String(settings.beam_width);
    this.readCheck.checked = settings.read_check;
    this.model.value = settings.model;
  }

  private save(): void {
    const int = (input: HTMLInputElement) => Math.round(Number(input.value));
    this.dirty = false;
    this.store.update({
      enabled: this.enabled.checked,
      debounce_ms: int(this.debounce),
      debounce_mode: this.mode.value,
      max_new_tokens: int(this.maxTokens),
      context_tokens: int(this.contextTokens),
      beam_width: int(this.beamWidth),
      read_check: this.readCheck.checked,
      model: this.model.value.trim() || "default",
    });
  }

  private render(): void {
    if (!this.dirty) this.fill(this.store.settings);
    const model = this.store.model;
    this.modelStatus.textContent = modelStatusText(model);
    this.modelStatus.dataset.state = model?.state ?? "unknown";
    this.error.textContent = this.store.settingsError ?? "";
    this.error.hidden = !this.store.settingsError;
    const stats = this.store.stats;
    this.stats.textContent = statsText(stats);
    if (stats) {
      const data = this.stats.dataset;
      data.shown = String(stats.shown);
      data.accepted = String(stats.accepted);
      data.requests = String(stats.requests);
      data.modelCalls = String(stats.model_calls);
      data.cacheHits = String(stats.cache_hits);
      data.p50 = String(stats.p50_ms ?? "");
      data.p95 = String(stats.p95_ms ?? "");
    }
  }
}

function settingsButton(connection: Connection): HTMLElement {
  let panel: SettingsPanel | null = null;
  const store = storeFor(connection);
  const open = button(icon("ghost", 16), "open-settings", "Completion settings", () => {
    panel ??= new SettingsPanel(store);
    panel.toggle();
  }, "icon-button");
  // The toolbar shows the model's state at a glance (dot colour, tooltip).
  const sync = () => {
    open.dataset.modelState = store.model?.state ?? "unknown";
    open.title = `Completion settings — model ${modelStatusText(store.model)}`;
  };
  store.subscribe(sync);
  sync();
  return open;
}

registerToolbarItem(settingsButton);
