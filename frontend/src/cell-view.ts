// One cell on the page: prompt, per-cell buttons, the CodeMirror editor, the rendered markdown and
// the output area (with an input box while the kernel waits on stdin).

import type { Connection } from "./connection";
import { button, el } from "./dom";
import { CellEditor, type SharedCell } from "./editor";
import { fixButton } from "./editing/fix-button";
import { EditSession } from "./editing/session";
import { icon } from "./icons";
import { InstallPanel } from "./install";
import { renderMarkdown } from "./markdown";
import { typesetMath } from "./math";
import type { CellModel } from "./notebook-state";
import { renderOutputs } from "./outputs";
import type { Attachments, CellState, CellType, InstallProgress, Output } from "./protocol";
import { hideOutputsPatch, outputsHidden } from "./runs/outputs-hidden";
import { RunClock, timingLabel } from "./runs/timing";
import type { KeyBinding } from "@codemirror/view";

export type Mode = "command" | "edit";
export type RunHow = "stay" | "advance" | "insert";

/** What a cell asks of the notebook around it. */
export interface CellHost {
  connection: Connection;
  /** `scroll: false` when the pointer chose it (it is in view; scrolling would move the button under the
   * pointer between mousedown and mouseup, and the click would be lost). */
  select(id: string, mode: Mode, scroll?: boolean): void;
  /** Edit the neighbouring cell (ArrowUp on the first line, ArrowDown on the last). */
  editNeighbour(id: string, delta: -1 | 1): boolean;
  run(id: string, how: RunHow): void;
  insertAt(index: number, type?: CellType, mode?: Mode): void;
  /** Generate: a new code cell at `index` whose Edit with AI prompt opens, for the model to write it. */
  generateAt(index: number): void;
  indexOf(id: string): number;
  moveCell(id: string, delta: number): void;
  deleteCells(ids: string[]): void;
  setCellType(id: string, type: CellType): void;
  /** Set top-level keys of the cell's metadata (null removes one): one operation of the session. */
  setCellMetadata(id: string, metadata: Record<string, unknown>): void;
  /** Clear this cell's outputs (JupyterLab's notebook:clear-cell-output). */
  clearOutputs(id: string): void;
  /** The cell's text changed: typed here (`cursor` after it), or elsewhere (`remote`). */
  sourceChanged(id: string, source: string, cursor: number, remote: boolean): void;
  /** The cell's shared text and the notebook's presence (collab/). */
  shared(id: string): SharedCell;
  save(): void;
  /** The kernel can install missing packages (a local Python kernel with pip or uv). */
  canInstall(): boolean;
  /** Leave edit mode and act on `event` as a command-mode key (false: it is none). */
  commandKey(id: string, event: KeyboardEvent): boolean;
}

export class CellView {
  readonly element: HTMLElement;
  readonly editor: CellEditor;
  private readonly prompt: HTMLElement;
  private readonly editorHost: HTMLElement;
  private readonly rendered: HTMLElement;
  private readonly outputArea: HTMLElement;
  private readonly outputList: HTMLElement;
  private readonly stdinHost: HTMLElement;
  /** The last run's elapsed time and end ("1.2 s, 14:03"), from the `execution` metadata. */
  private readonly timing: HTMLElement;
  private readonly clock: RunClock;
  private readonly typeSelect: HTMLSelectElement;
  private pendingOutputs: Output[] | null = null;
  private attachments: Attachments;
  /** The cell's metadata as the server last said (JupyterLab's keys). */
  metadata: Record<string, unknown>;
  /** Outputs hidden or shown here and not yet confirmed by the echo of that very change (null: none). */
  private hiddenAsked: boolean | null = null;
  private stdinPending = false;
  /** Edit with AI: the prompt under the cell and the review of a proposal (editing/). */
  private readonly editing: EditSession;
  /** Where an Ask answer's changes are reviewed (ask/plan-review.ts): a new cell above or below this one,
   * a change of this one in its place. */
  readonly planSlots = {
    above: el("div", { class: "cell-plan-slot" }),
    in: el("div", { class: "cell-plan-slot" }),
    below: el("div", { class: "cell-plan-slot" }),
  };
  /** Missing packages: the Install button on a ModuleNotFoundError and the installer's progress. */
  private readonly installs: InstallPanel;
  type: CellType;
  /** Markdown cells show their rendering instead of the editor while not being edited. */
  isRendered = false;

  constructor(
    readonly id: string,
    model: CellModel,
    private readonly host: CellHost,
  ) {
    this.type = model.type;
    this.installs = new InstallPanel((distribution) => host.connection.send({ type: "install_package", cell_id: id, package: distribution }),
      () => host.run(id, "stay"));
    this.prompt = el("div", { class: "prompt", testid: "cell-prompt" });
    this.editorHost = el("div", { class: "cell-editor", testid: "cell-editor" });
    this.rendered = el("div", { class: "markdown-rendered markdown-body", testid: "markdown-rendered" });
    const panelHost = el("div", { class: "cell-panels" });
    this.outputList = el("div", { class: "output-list" });
    this.stdinHost = el("div", { class: "stdin-host" });
    // JupyterLab's output collapser: the bar left of the outputs hides them (saved in the metadata).
    const collapser = button("", "output-collapser", "Hide the outputs (o)", (event) => {
      event.stopPropagation();
      this.setOutputsHidden(true);
    }, "output-collapser");
    this.outputArea = el("div", { class: "cell-output", testid: "cell-output" }, collapser, this.outputList, this.stdinHost);
    this.timing = el("div", { class: "cell-timing", testid: "cell-timing" });
    this.clock = new RunClock(this.timing, () => this.showTiming());
    this.attachments = model.attachments ?? {};
    // nbformat's `jupyter.source_hidden` / `jupyter.outputs_hidden`: collapsed behind a bar that opens them.
    const sourceBar = collapsedBar("source-hidden", "Show the hidden source", () => this.element.classList.remove("source-hidden"));
    const outputsBar = collapsedBar("outputs-hidden", "Show the hidden outputs (o)", () => this.setOutputsHidden(false));
    this.typeSelect = el(
      "select",
      { class: "cell-type-select", testid: "cell-type-select", title: "Cell type" },
      el("option", { value: "code" }, "Code"),
      el("option", { value: "markdown" }, "Markdown"),
      el("option", { value: "raw" }, "Raw"),
    );
    this.typeSelect.addEventListener("change", () => host.setCellType(id, this.typeSelect.value as CellType));
    const tools = el(
      "div",
      { class: "cell-tools" },
      button(icon("run"), "run-cell", "Run cell (Ctrl+Enter)", () => host.run(id, "stay"), "icon-button"),
      button(icon("spark"), "edit-ai-button", "Edit with AI (Ctrl+K)", () => this.editing.open(), "icon-button edit-ai-button"),
      button(icon("up"), "move-cell-up", "Move cell up", () => host.moveCell(id, -1), "icon-button"),
      button(icon("down"), "move-cell-down", "Move cell down", () => host.moveCell(id, 1), "icon-button"),
      this.typeSelect,
      button(icon("clear"), "clear-cell-output", "Clear cell output", () => host.clearOutputs(id), "icon-button clear-output-button"),
      button(icon("plus"), "add-cell-below", "Add cell below (b)", () => host.insertAt(host.indexOf(id) + 1, "code", "edit"), "icon-button"),
      button(icon("spark"), "generate-below", "Generate a cell below with AI", () => host.generateAt(host.indexOf(id) + 1), "icon-button generate-button"),
      button(icon("trash"), "delete-cell", "Delete cell (d d)", () => host.deleteCells([id]), "icon-button danger"),
    );
    const editArea = el("div", { class: "cell-edit-ai" });
    const main = el("div", { class: "cell-main" }, this.planSlots.above, tools, sourceBar, this.editorHost, editArea,
      this.planSlots.in, this.rendered, panelHost, this.timing, outputsBar, this.outputArea, this.planSlots.below);
    this.element = el(
      "div",
      { class: "cell", testid: "cell", "data-cell-id": id },
      el("div", { class: "cell-side" }, this.prompt),
      main,
    );
    this.metadata = model.metadata ?? {};
    this.applyHidden();
    this.element.addEventListener("mousedown", (event) => {
      if (!this.editorHost.contains(event.target as Node)) host.select(id, "command", false);
    });
    this.rendered.addEventListener("dblclick", () => host.select(id, "edit"));
    // Ctrl+K on the selected cell in command mode (in the editor its keymap has it).
    this.element.addEventListener("keydown", (event) => {
      if (event.target !== this.element || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
      if (event.key.toLowerCase() === "k" && this.editing.open()) event.preventDefault();
    });

    this.editor = new CellEditor(
      this.editorHost,
      host.shared(id),
      model.type,
      {
        cellId: id,
        cellType: () => this.type,
        connection: host.connection,
        panelHost,
        toCommandMode: () => host.select(id, "command"),
        commandKey: (event) => host.commandKey(id, event),
      },
      {
        onChange: (source, cursor, remote) => {
          if (remote) {
            this.editing.remoteSource(source); // another tab's edit drops a review of the old text
            if (this.type === "markdown" && this.isRendered) this.renderMarkdown();
          } else {
            this.editing.localEdit(source);
          }
          host.sourceChanged(id, source, cursor, remote);
        },
        onFocus: () => host.select(id, "edit"),
        keys: this.editorKeys(),
      },
    );
    this.editing = new EditSession({
      cellId: id,
      connection: host.connection,
      editor: this.editor,
      cell: this.element,
      isCode: () => this.type === "code",
      focusCell: () => host.select(id, "edit"),
    });
    editArea.append(this.editing.element);
    this.setType(model.type);
    this.setState(model.state, model.executionCount);
    this.setOutputs(model.outputs, true);
    if (model.type === "markdown" && model.source.trim()) this.renderMarkdown();
  }

  private editorKeys(): KeyBinding[] {
    const run = (how: RunHow) => () => {
      this.host.run(this.id, how);
      return true;
    };
    return [
      { key: "Shift-Enter", run: run("advance") },
      { key: "Ctrl-Enter", run: run("stay") },
      { key: "Mod-Enter", run: run("stay") },
      { key: "Alt-Enter", run: run("insert") },
      { key: "Mod-k", run: () => this.editing.open(), preventDefault: true },
      {
        key: "ArrowUp",
        run: () => this.editor.caretOnEdgeLine("first") && this.host.editNeighbour(this.id, -1),
      },
      {
        key: "ArrowDown",
        run: () => this.editor.caretOnEdgeLine("last") && this.host.editNeighbour(this.id, 1),
      },
      {
        key: "Escape",
        run: () => {
          this.host.select(this.id, "command");
          return true;
        },
      },
      {
        key: "Mod-s",
        run: () => {
          this.host.save();
          return true;
        },
        preventDefault: true,
      },
    ];
  }

  setType(type: CellType): void {
    const changed = type !== this.type;
    this.type = type;
    this.element.dataset.cellType = type;
    this.typeSelect.value = type;
    if (changed) this.editor.setType(type);
    if (changed && type !== "code") this.editing.reset();
    if (changed) this.showTiming();
    if (type !== "markdown") this.showEditor();
  }

  /** Open Edit with AI's prompt (Ctrl+K); in an empty cell it generates the cell. */
  askAI(): boolean {
    return this.editing.open();
  }

    /** The cell's whole metadata changed (here, in another tab, or by a run's timing). `own`: the echo of a
   * change this tab made, which may be an earlier one than the last (o, o, Shift+O in quick succession):
   * its hidden state then does not undo the one shown since. */
  setMetadata(metadata: Record<string, unknown>, own = false): void {
    this.metadata = metadata;
    if (this.hiddenAsked !== null && !(own && outputsHidden(metadata) !== this.hiddenAsked)) this.hiddenAsked = null;
    this.applyHidden();
  }

  /** The cell's nbformat attachments changed (an image pasted here or in another tab). */
  setAttachments(attachments: Attachments): void {
    this.attachments = attachments;
    if (this.isRendered) this.renderMarkdown();
  }

  /** nbformat's `jupyter.source_hidden` / `jupyter.outputs_hidden` (or `collapsed`, as JupyterLab reads it). */
  private applyHidden(): void {
    const jupyter = (this.metadata.jupyter ?? {}) as Record<string, unknown>;
    this.element.classList.toggle("source-hidden", jupyter.source_hidden === true);
    this.element.classList.toggle("outputs-hidden", this.hiddenAsked ?? outputsHidden(this.metadata));
    this.showTiming();
  }

  /** Whether the outputs are hidden as shown now (a change asked for here shows before the server's echo). */
  get outputsHidden(): boolean {
    return this.element.classList.contains("outputs-hidden");
  }

  /** Hide or show the outputs, saved as JupyterLab saves it (shown here at once, then as the server says). */
  setOutputsHidden(hidden: boolean): void {
    if (this.type !== "code") return;
    this.hiddenAsked = hidden;
    this.element.classList.toggle("outputs-hidden", hidden);
    // Always sent (the server ignores a change to what it has): the metadata here may still be waiting for
    // the echo of a change just made (o, then Shift+O at once), and the last word must win.
    this.host.setCellMetadata(this.id, hideOutputsPatch(this.metadata, hidden));
  }

  private showTiming(): void {
    const label = this.type === "code" ? timingLabel(this.metadata) : null;
    this.timing.textContent = label?.text ?? "";
    this.timing.title = label?.title ?? "";
    this.timing.hidden = !label;
  }

  setState(state: CellState, executionCount: number | null): void {
    const before = this.element.dataset.state;
    this.element.dataset.state = state;
    if (state !== "running") this.clock.stop();
    else if (before !== undefined && before !== "running" && this.type === "code") this.clock.start(); // seen to start
    if (this.type !== "code") {
      this.prompt.textContent = "";
      return;
    }
    const label = state === "running" || state === "queued" ? "*" : (executionCount ?? " ");
    this.prompt.textContent = `[${label}]`;
    this.prompt.title = state;
    if (state === "idle") this.clearStdin();
  }

  /** Re-render outputs at most once per animation frame (bursts of updates coalesce). */
  setOutputs(outputs: Output[], immediate = false): void {
    if (immediate) {
      this.pendingOutputs = null;
      this.drawOutputs(outputs);
      return;
    }
    const scheduled = this.pendingOutputs !== null;
    this.pendingOutputs = outputs;
    if (scheduled) return;
    requestAnimationFrame(() => {
      const latest = this.pendingOutputs;
      this.pendingOutputs = null;
      if (latest) this.drawOutputs(latest);
    });
  }

  private drawOutputs(outputs: Output[]): void {
    // A code cell's traceback gets a Fix button (Edit with AI with "fix this error").
    // A ModuleNotFoundError also gets "Install <package>" beside it (when the kernel can install).
    const errorAction = this.type === "code" ? (output: Output) => {
      const row = fixButton(output, () => this.editing.fix());
      if (this.host.canInstall()) this.installs.decorate(row, output);
      return row;
    } : undefined;
    renderOutputs(this.outputList, outputs, { errorAction });
    this.updateOutputVisibility();
  }

  /** pip's progress for this cell (an install started here or in another tab). */
  installProgress(message: InstallProgress): void {
    this.installs.update(message);
  }

  private updateOutputVisibility(): void {
    const empty = !this.outputList.childElementCount && !this.stdinPending;
    if (this.stdinPending) this.element.classList.remove("outputs-hidden"); // the kernel waits on the user
    this.outputArea.classList.toggle("empty", empty);
  }

  setSelected(selected: boolean, mode: Mode): void {
    this.element.classList.toggle("selected", selected);
    this.element.classList.toggle("editing", selected && mode === "edit");
  }

  /** Show the editor (markdown: leave the rendered view) and focus it. */
  edit(at?: "start" | "end"): void {
    this.element.classList.remove("source-hidden");
    this.showEditor();
    if (this.editing.reviewing) {
      this.editing.focus(); // the review stands in for the editor until Accept or Reject
      return;
    }
    if (at || !this.editor.hasFocus()) this.editor.focus(at);
  }

  renderMarkdown(): void {
    if (this.type !== "markdown") return;
    const source = this.editor.source;
    this.rendered.innerHTML = source.trim() ? renderMarkdown(source, this.attachments) : "<p class=\"placeholder\">Empty markdown cell</p>";
    void typesetMath(this.rendered);
    this.isRendered = true;
    this.element.classList.add("rendered");
  }

  /** The rendered outputs (the notebook search reads their text). */
  get outputsElement(): HTMLElement {
    return this.outputList;
  }

  /** Show the source (a rendered markdown cell's, or a hidden one) without focusing it: the search's
   * current match is there. */
  revealSource(): void {
    this.element.classList.remove("source-hidden");
    if (this.type === "markdown") this.showEditor();
  }

  private showEditor(): void {
    this.isRendered = false;
    this.element.classList.remove("rendered");
  }

  showStdin(prompt: string, password: boolean, onReply: (value: string) => void): void {
    this.clearStdin();
    this.stdinPending = true;
    const input = el("input", {
      class: "stdin-input",
      testid: "stdin-input",
      type: password ? "password" : "text",
      "aria-label": prompt || "input",
      autocomplete: "off",
    });
    input.addEventListener("keydown", (event) => {
      event.stopPropagation();
      if (event.key !== "Enter") return;
      event.preventDefault();
      const value = input.value;
      this.clearStdin();
      const echo = el("pre", { class: "stdin-echo" }, prompt + (password ? "••••••" : value));
      this.stdinHost.appendChild(echo);
      onReply(value);
    });
    this.stdinHost.append(el("label", { class: "stdin-box" }, el("span", { class: "stdin-prompt" }, prompt), input));
    this.updateOutputVisibility();
    input.focus();
  }

  /** The kernel no longer waits (answered here or in another tab, or the cell finished). */
  closeStdin(): void {
    if (this.stdinHost.querySelector("input")) this.clearStdin();
  }

  private clearStdin(): void {
    this.stdinPending = false;
    this.stdinHost.replaceChildren();
    this.updateOutputVisibility();
  }

  destroy(): void {
    this.clock.stop();
    this.editing.dispose();
    this.editor.destroy();
    this.element.remove();
  }
}

/** The thin bar shown in place of a collapsed source or output area; a click opens it. */
function collapsedBar(testid: string, title: string, open: () => void): HTMLButtonElement {
  const bar = button("", testid, title, (event) => {
    event.stopPropagation();
    open();
  }, "collapsed-bar");
  return bar;
}
