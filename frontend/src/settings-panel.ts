// Completion settings panel (toolbar button `open-settings`): on/off, debounce and its mode, max new
// tokens, context budget, beam width and its read check, model (a spec: "default", a local .gguf path,
// hf:OWNER/REPO/FILE.gguf, hf:OWNER/REPO, openai:URL, llamacpp:URL) with the remote servers' API key and
// FIM form, the model catalogue (`get_catalogue`; "Use" writes its spec; the model answering now is
// outlined: while another downloads or loads, and after one failed, the one before), the model's
// status with a progress bar and a cancel button while it downloads, the live stats and the user's own
// statistics (telemetry-panel.ts). Settings persist on the server per user (`get_settings` / `update_settings`).
// The edit model (Edit with AI, Ctrl+K) sits next to the completion model, with its own status and the
// catalogue's chat models; `openEditModelSettings` opens the panel there (Ctrl+K with none chosen).
// Under "Notebook", kept in this browser: ask before restarting, and your name as the others editing the
// same notebook see it (collab/people.ts: it goes into the presence at once).

import "./ghost-text/ghost-text.css";
import { AppearanceSection } from "./appearance/section";
import type { Connection } from "./connection";
import { button, el } from "./dom";
import { bytesText, modelStatusText, statsText } from "./ghost-text/labels";
import { type CompletionStore, storeFor } from "./ghost-text/store";
import { icon } from "./icons";
import { me, setMyName } from "./collab/people";
import { askBeforeRestart, registerToolbarItem, setAskBeforeRestart } from "./kernel-bar";
import type { CatalogueMessage, CatalogueModel, CompletionSettings, ModelStatus } from "./protocol";
import { TelemetrySection } from "./telemetry-panel";

const REMOTE_FIM_LABELS: Record<string, string> = {
  suffix: "the API's suffix field",
  plain: "plain: the code above only (no FIM)",
};
const REMOTE_FIM = ["suffix", "ghostbook", "starcoder", "santacoder", "qwen2.5-coder", "codegemma", "deepseek-coder",
  "codellama", "codegen2", "plain"];

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
  private readonly suggest = el(
    "select",
    { testid: "setting-suggest" },
    el("option", { value: "often" }, "often"),
    el("option", { value: "balanced" }, "balanced"),
    el("option", { value: "confident" }, "only when confident"),
  );
  private readonly maxTokens = numberInput("setting-max-tokens", 1, 512);
  private readonly contextTokens = numberInput("setting-context-tokens", 64, 32768, 64);
  private readonly beamWidth = numberInput("setting-beam-width", 1, 8);
  private readonly readCheck = el("input", { type: "checkbox", testid: "setting-read-check" });
  private readonly searchMs = numberInput("setting-search-ms", 0, 10000);
  private readonly model = el("input", {
    type: "text",
    testid: "setting-model",
    placeholder: "default, /path/model.gguf, hf:OWNER/REPO/FILE.gguf, openai:URL…",
    spellcheck: "false",
  });
  private readonly apiKey = el("input", {
    type: "password",
    testid: "setting-api-key",
    placeholder: "or GHOSTBOOK_API_KEY",
    autocomplete: "off",
  });
  private readonly remoteFim = el(
    "select",
    { testid: "setting-remote-fim" },
    ...REMOTE_FIM.map((name) => el("option", { value: name }, REMOTE_FIM_LABELS[name] ?? name)),
  );
  private readonly device = el(
    "select",
    { testid: "setting-device" },
    el("option", { value: "auto" }, "auto (a GPU where torch sees one)"),
    el("option", { value: "cpu" }, "cpu"),
    el("option", { value: "cuda" }, "cuda (bfloat16)"),
  );
  private readonly speculative = el("input", { type: "checkbox", testid: "setting-speculative" });
  private readonly notebookCandidates = el("input", { type: "checkbox", testid: "setting-notebook-candidates" });
  private readonly draftModel = el("input", {
    type: "text",
    testid: "setting-draft-model",
    placeholder: "/path/small-model-folder (optional)",
    spellcheck: "false",
  });
  private readonly editModel = el("input", {
    type: "text",
    testid: "edit-model-input",
    placeholder: "none: a catalogue instruct model, /path/model.gguf, openai:URL, llamacpp:URL",
    spellcheck: "false",
  });
  private readonly editModelStatus = el("div", { class: "model-status edit-model-status", testid: "edit-model-status", role: "status" });
  private readonly editModelNote = el("div", { class: "edit-model-note", testid: "edit-model-note", role: "alert" });
  private editStatus: ModelStatus | null = null;
  private readonly askRestart = el("input", { type: "checkbox", testid: "setting-ask-restart" });
  private readonly userName = el("input", { type: "text", class: "user-name", testid: "setting-user-name", maxlength: "60", spellcheck: "false",
    autocomplete: "off" });
  private readonly progress = el("progress", { class: "model-progress", testid: "model-progress", max: "1" });
  private readonly cancel = button("Cancel download", "cancel-download", "Stop the download", () =>
    this.store.connection.send({ type: "cancel_download" }),
  );
  private readonly catalogue = el("div", { class: "model-catalogue", testid: "model-catalogue" });
  private catalogueRef = "";
  private lastCatalogue: CatalogueMessage | null = null;
  private outlinedAt = ""; // the specs outlined when the catalogue was last drawn
  private refreshedFor: string | null = null; // the edit model's failure the settings were asked again for
  private readonly error = el("div", { class: "settings-error", testid: "settings-error", role: "alert" });
  private readonly modelStatus = el("div", { class: "model-status", testid: "model-status", role: "status" });
  private readonly stats = el("div", { class: "completion-stats", testid: "completion-stats" });
  private readonly telemetry: TelemetrySection;
  private readonly appearance = new AppearanceSection(field);
  private dirty = false;

  constructor(private readonly store: CompletionStore) {
    this.telemetry = new TelemetrySection(store.connection);
    const form = el(
      "form",
      { class: "settings-form", novalidate: "" }, // the server validates; its message shows below
      field("Ghost-text completion", this.enabled),
      field("Debounce (ms)", this.debounce, "wait after the last keystroke; Ctrl+Space asks at once"),
      field("Debounce mode", this.mode),
      field("Suggest", this.suggest, "how sure ghost text must be to appear unasked; Ctrl+Space always answers"),
      field("Max new tokens", this.maxTokens),
      field("Context budget (tokens)", this.contextTokens),
      field("Beam width", this.beamWidth, "first line: the likeliest of this many candidates (1: greedy, fastest)"),
      field("Read check", this.readCheck, "rank the beam's lines by reading them with the lines below (slower, better)"),
      field("Search time (ms)", this.searchMs, "the beam's time per line, the prompt's reading included; then the best so far (0: no limit)"),
      field("Model", this.model, "built in, a local file, a hub model (hf:) or a server (openai:, llamacpp:)"),
      el(
        "div",
        { class: "edit-model-group" },
        this.editModelNote,
        field("Edit model", this.editModel, "Edit with AI (Ctrl+K): a chat or instruct model; empty: none (Fix still offers the offline fixes)"),
        this.editModelStatus,
      ),
      field("Server API key", this.apiKey, "openai:/llamacpp: servers; kept on the server, never in a notebook"),
      field("Server FIM form", this.remoteFim, "openai: servers: how the prompt carries the code after the cursor"),
      field("Device", this.device, "transformers models: where they run"),
      field("Speculative decoding", this.speculative, "greedy drafts from the notebook's own text (same output, faster on repeated code)"),
      field("Notebook candidates", this.notebookCandidates, "names, column keys, calls and imports copied from the notebook compete with the model's line"),
      field("Draft model", this.draftModel, "transformers models: a smaller one with the same vocabulary drafts instead"),
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
      el("div", { class: "model-progress-row" }, this.progress, this.cancel),
      el("h3", {}, "Catalogue"),
      this.catalogue,
      el("h3", {}, "Live stats"),
      this.stats,
      this.telemetry.element,
      el("h3", {}, "Notebook"),
      field("Ask before restarting", this.askRestart, "Restart and Restart & clear ask first (this browser)"),
      field("Your name", this.userName, "shown to others editing the same notebook (this browser)"),
      this.appearance.element,
    );
    this.askRestart.addEventListener("change", () => setAskBeforeRestart(this.askRestart.checked));
    // Others see each change at once; emptied, a generated name comes back when the field is left.
    this.userName.addEventListener("input", () => {
      if (this.userName.value.trim()) setMyName(this.userName.value);
    });
    this.userName.addEventListener("change", () => {
      if (!this.userName.value.trim()) setMyName("");
      this.userName.value = me().name;
    });
    this.panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        this.hide();
      }
    });
    this.panel.hidden = true;
    this.error.hidden = true;
    this.editModelNote.hidden = true;
    document.body.appendChild(this.panel);
    let lastState = "";
    store.connection.addListener((message) => {
      if (message.type === "catalogue" && message.ref === this.catalogueRef) this.renderCatalogue(message);
      if (message.type === "edit_model_status") this.setEditStatus(message.model);
      if (message.type === "model_status" && message.model.state !== lastState) {
        lastState = message.model.state;
        if (lastState === "ready" && !this.panel.hidden) this.askCatalogue(); // now downloaded
      }
    });
    store.subscribe(() => this.render());
    this.render();
  }

  toggle(): void {
    if (this.panel.hidden) this.show();
    else this.hide();
  }

  show(): void {
    this.editModelNote.hidden = true;
    this.dirty = false;
    this.fill(this.store.settings);
    this.askRestart.checked = askBeforeRestart();
    this.userName.value = me().name;
    this.appearance.refresh();
    this.panel.hidden = false;
    this.store.refresh();
    this.askCatalogue();
    this.telemetry.refresh();
  }

  /** Open at the edit model field, with `message` saying why (Ctrl+K with no edit model chosen). */
  showEditModel(message: string): void {
    if (this.panel.hidden) this.show();
    this.editModelNote.textContent = message;
    this.editModelNote.hidden = false;
    this.editModel.scrollIntoView({ block: "center" });
    this.editModel.focus();
  }

  private setEditStatus(model: ModelStatus): void {
    this.editStatus = model;
    // the edit model chosen failed and the one before serves on: the server set the setting back
    const fellBack = model.state === "ready" && model.message && model.serving;
    if (fellBack && model.serving !== this.store.settings.edit_model && this.refreshedFor !== model.message) {
      this.refreshedFor = model.message;
      this.store.refresh();
    }
    this.render();
  }

  /** The specs whose catalogue rows are outlined: the models answering now (the one before while
   * another downloads or loads, and after one failed), else the settings' (nothing serves). */
  private outlined(): [string, string] {
    return [
      this.store.model?.serving ?? this.store.settings.model,
      this.editStatus?.serving ?? this.store.settings.edit_model ?? "",
    ];
  }

  private askCatalogue(): void {
    this.catalogueRef = `cat-${Date.now()}`;
    this.store.connection.send({ type: "get_catalogue", ref: this.catalogueRef });
  }

  private renderCatalogue(message: CatalogueMessage): void {
    this.lastCatalogue = message;
    const free = message.free_ram_mb;
    const [current, currentEdit] = this.outlined();
    this.outlinedAt = `${current}\n${currentEdit}`;
    const row = (model: CatalogueModel, chat: boolean): HTMLElement => {
      const tooBig = free !== null && model.ram_mb > free;
      const facts = [
        model.family === "auto" ? "family from its vocabulary" : model.family,
        `${model.params} parameters`,
        `${model.source === "hub" ? "≈" : ""}${bytesText(model.size_mb * 1e6)} file`,
        `${bytesText(model.ram_mb * 1e6)} RAM`,
        model.licence,
        model.backends,
        model.speed,
      ];
      const badge = model.downloaded
        ? el("span", { class: "catalogue-badge downloaded", testid: "catalogue-downloaded" }, "downloaded")
        : el("span", { class: "catalogue-badge" }, "download");
      const use = chat
        ? button("Use for editing", "catalogue-use-edit", `Use ${model.name} as the edit model`, () => {
          this.editModel.value = model.spec;
          this.save();
        })
        : button("Use", "catalogue-use", `Use ${model.name}`, () => {
          this.model.value = model.spec;
          this.save();
        });
      return el(
        "div",
        {
          class: `catalogue-row${(chat ? model.spec === currentEdit : model.spec === current) ? " current" : ""}`,
          // the edit model's list has its own names: a local model ("both") is in both lists
          testid: chat ? "edit-catalogue-row" : "catalogue-row",
          [chat ? "data-edit-spec" : "data-spec"]: model.spec,
          title: model.spec,
        },
        el(
          "div",
          { class: "catalogue-name" },
          model.name,
          badge,
          ...(chat ? [el("span", { class: "catalogue-badge edit" }, "edit model")] : []),
          ...(model.gated ? [el("span", { class: "catalogue-badge" }, "HF_TOKEN")] : []),
        ),
        use,
        el("div", { class: "catalogue-facts" }, facts.join(" · ")),
        ...(tooBig
          ? [el("div", { class: "catalogue-warning" }, `needs more RAM than the ${bytesText(free * 1e6)} free`)]
          : []),
      );
    };
    // A line's role says which setting it serves; older servers send none (completion models).
    const completion = message.models.filter((model) => model.role !== "chat");
    const editing = message.models.filter((model) => model.role === "chat" || model.role === "both");
    this.catalogue.replaceChildren(
      ...completion.map((model) => row(model, false)),
      ...(editing.length
        ? [el("h4", { class: "catalogue-heading", testid: "edit-catalogue" }, "Edit models (chat / instruct)"), ...editing.map((model) => row(model, true))]
        : []),
      el(
        "div",
        { class: "settings-hint" },
        `Hub models go to the Hugging Face cache; your own .gguf files or model folders in ${message.models_dir} appear here.`,
      ),
    );
  }

  hide(): void {
    this.panel.hidden = true;
  }

  private fill(settings: CompletionSettings): void {
    this.enabled.checked = settings.enabled;
    this.debounce.value = String(settings.debounce_ms);
    this.mode.value = settings.debounce_mode;
    this.suggest.value = settings.suggest;
    this.maxTokens.value = String(settings.max_new_tokens);
    this.contextTokens.value = String(settings.context_tokens);
    this.beamWidth.value = String(settings.beam_width);
    this.readCheck.checked = settings.read_check;
    this.searchMs.value = String(settings.search_ms ?? 0);
    this.model.value = settings.model;
    this.apiKey.value = settings.api_key ?? "";
    this.remoteFim.value = settings.remote_fim ?? "suffix";
    this.device.value = settings.device ?? "auto";
    this.speculative.checked = settings.speculative ?? true;
    this.notebookCandidates.checked = settings.notebook_candidates ?? true;
    this.draftModel.value = settings.draft_model ?? "";
    this.editModel.value = settings.edit_model ?? "";
  }

  private save(): void {
    const int = (input: HTMLInputElement) => Math.round(Number(input.value));
    this.dirty = false;
    this.store.update({
      enabled: this.enabled.checked,
      debounce_ms: int(this.debounce),
      debounce_mode: this.mode.value,
      suggest: this.suggest.value,
      max_new_tokens: int(this.maxTokens),
      context_tokens: int(this.contextTokens),
      beam_width: int(this.beamWidth),
      read_check: this.readCheck.checked,
      search_ms: int(this.searchMs),
      model: this.model.value.trim() || "default",
      api_key: this.apiKey.value,
      remote_fim: this.remoteFim.value,
      device: this.device.value,
      speculative: this.speculative.checked,
      notebook_candidates: this.notebookCandidates.checked,
      draft_model: this.draftModel.value.trim(),
      edit_model: this.editModel.value.trim(),
    });
  }

  private render(): void {
    if (!this.dirty) this.fill(this.store.settings);
    const model = this.store.model;
    this.modelStatus.textContent = modelStatusText(model);
    this.modelStatus.dataset.state = model?.state ?? "unknown";
    this.modelStatus.toggleAttribute("data-failed", model?.state === "ready" && !!model.message);
    if (this.lastCatalogue && this.outlined().join("\n") !== this.outlinedAt) this.renderCatalogue(this.lastCatalogue);
    const busy = model?.state === "downloading" || model?.state === "loading";
    this.progress.hidden = !busy || model?.progress === null;
    if (model?.progress !== null && model?.progress !== undefined) this.progress.value = model.progress;
    this.progress.dataset.state = model?.state ?? "unknown";
    this.cancel.hidden = model?.state !== "downloading";
    this.editModelStatus.textContent = `Edit model: ${editModelText(this.editStatus)}`;
    this.editModelStatus.dataset.state = this.editStatus?.state ?? "unknown";
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

/** The edit model's state in words: none chosen, downloading, loading, ready or the error. */
export function editModelText(model: ModelStatus | null): string {
  if (!model) return "unknown";
  if (model.state === "off") return "none chosen";
  return modelStatusText(model);
}

const panels = new WeakMap<Connection, SettingsPanel>();

function panelFor(connection: Connection): SettingsPanel {
  let panel = panels.get(connection);
  if (!panel) {
    panel = new SettingsPanel(storeFor(connection));
    panels.set(connection, panel);
  }
  return panel;
}

/** Open the settings at the edit model field with `message` as the reason. */
export function openEditModelSettings(connection: Connection, message: string): void {
  panelFor(connection).showEditModel(message);
}

function settingsButton(connection: Connection): HTMLElement {
  const store = storeFor(connection);
  const open = button(icon("ghost", 16), "open-settings", "Completion settings", () => panelFor(connection).toggle(), "icon-button");
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
