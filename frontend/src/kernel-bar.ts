// The notebook toolbar: kernel status and chooser, run/interrupt/restart/clear, save status, help.
// Restart and Restart & clear ask first, as Jupyter does, unless the user ticked "Don't ask again".

import { button, el } from "./dom";
import type { Connection } from "./connection";
import type { KernelInfo, KernelSpecInfo, SaveInfo } from "./protocol";
import { runMenu, type RunMenuActions } from "./runs/run-menu";

export interface ToolbarActions extends RunMenuActions {
  runAll(): void;
  interrupt(): void;
  restart(): void;
  clearOutputs(): void;
  changeKernel(name: string): void;
  save(): void;
  toggleHelp(): void;
  toggleOutline(): void;
  addCell(): void;
}

/** Builds an extra toolbar control (e.g. the ghost-text settings button) for a notebook. */
export type ToolbarItemFactory = (connection: Connection) => HTMLElement;

const toolbarItems: ToolbarItemFactory[] = [];

/** Add a control to every notebook toolbar created from now on (call at module load). */
export function registerToolbarItem(factory: ToolbarItemFactory): void {
  toolbarItems.push(factory);
}

export function saveLabel(save: SaveInfo): string {
  switch (save.status) {
    case "saved":
      return "saved";
    case "dirty":
      return "unsaved";
    case "saving":
      return "saving…";
    case "error":
      return `save failed: ${save.message ?? "unknown error"}`;
    case "conflict":
      return "not saved: changed on disk";
  }
}

export class KernelBar {
  readonly element: HTMLElement;
  private readonly status: HTMLElement;
  private readonly select: HTMLSelectElement;
  private readonly message: HTMLElement;
  private readonly saveStatus: HTMLElement;
  readonly connectionStatus: HTMLElement;
  /** A kernel the user chose that the server has not reported as running yet. */
  private requestedKernel: string | null = null;
  private switchStarted = false;

  constructor(title: HTMLElement, private readonly actions: ToolbarActions, connection: Connection) {
    this.status = el("span", { class: "kernel-status", testid: "kernel-status", role: "status" }, "starting");
    this.select = el("select", { class: "kernel-select", testid: "kernel-select", title: "Kernel" });
    this.select.addEventListener("change", () => {
      this.requestedKernel = this.select.value;
      this.switchStarted = false;
      actions.changeKernel(this.select.value);
    });
    this.message = el("div", { class: "kernel-message", testid: "kernel-message", role: "alert" });
    this.saveStatus = el("span", { class: "save-status", testid: "save-status" }, "saved");
    this.connectionStatus = el("span", { class: "connection-status", testid: "connection-status" }, "connecting…");
    const buttons = el(
      "div",
      { class: "toolbar-buttons" },
      button("+ Cell", "add-cell", "Add a code cell at the end", () => actions.addCell()),
      button("Run all", "run-all", "Run all cells", () => actions.runAll()),
      runMenu({ ...actions, restartAndRunAll: () => this.requestRestart(false, true) }),
      button("Interrupt", "interrupt-kernel", "Interrupt the kernel (i i)", () => actions.interrupt()),
      button("Restart", "restart-kernel", "Restart the kernel (0 0)", () => this.requestRestart()),
      button("Restart & clear", "restart-clear-kernel", "Restart the kernel and clear all outputs", () => this.requestRestart(true)),
      button("Clear outputs", "clear-outputs", "Clear all outputs", () => actions.clearOutputs()),
      button("Save", "save-notebook", "Save (Ctrl+S)", () => actions.save()),
      button("Outline", "toggle-outline", "Table of contents (Ctrl+Shift+K)", () => actions.toggleOutline()),
      button("?", "shortcuts-help", "Keyboard shortcuts (? or h)", () => actions.toggleHelp(), "icon-button help-button"),
      ...toolbarItems.map((factory) => factory(connection)),
    );
    const kernel = el(
      "div",
      { class: "kernel-info" },
      el("span", { class: "kernel-dot" }),
      this.select,
      this.status,
    );
    this.element = el(
      "header",
      { class: "toolbar", testid: "toolbar" },
      el("div", { class: "toolbar-row" }, title, this.saveStatus, this.connectionStatus, el("span", { class: "spacer" }), kernel),
      el("div", { class: "toolbar-row" }, buttons),
      this.message,
    );
    this.message.hidden = true;
  }

  /** Restart the kernel (and clear every output) once the user confirms, or at once if they chose
   * not to be asked again. */
  requestRestart(clear = false, runAll = false): void {
    void confirmRestart(clear, this.element.dataset.kernelStatus === "dead", runAll).then((confirmed) => {
      if (!confirmed) return;
      if (runAll) {
        this.actions.restartAndRunAll(); // the server runs the cells once the new kernel is up
        return;
      }
      this.actions.restart();
      if (clear) this.actions.clearOutputs();
    });
  }

  setKernel(kernel: KernelInfo, specs: KernelSpecInfo[]): void {
    this.status.textContent = kernel.status;
    this.element.dataset.kernelStatus = kernel.status;
    const names = specs.map((s) => s.name);
    const options = specs.map((s) => el("option", { value: s.name }, s.display_name || s.name));
    if (kernel.name && !names.includes(kernel.name)) {
      options.push(el("option", { value: kernel.name }, kernel.display_name || kernel.name));
    }
    this.select.replaceChildren(...options);
    this.select.value = kernel.name;
    this.setKernelStatus(kernel);
  }

  setKernelStatus(kernel: KernelInfo): void {
    this.status.textContent = kernel.status;
    this.element.dataset.kernelStatus = kernel.status;
    this.element.dataset.kernelName = kernel.name;
    // While a switch is under way the server may still report the old kernel: keep showing the
    // chosen one until it is reported (or the switch fails).
    if (this.requestedKernel !== null) {
      const failed = kernel.status === "dead" && this.switchStarted;
      if (kernel.status === "starting") this.switchStarted = true;
      if (kernel.name === this.requestedKernel || failed) this.requestedKernel = null;
    }
    if (this.requestedKernel === null && kernel.name && this.select.value !== kernel.name) {
      if (![...this.select.options].some((o) => o.value === kernel.name)) {
        this.select.append(el("option", { value: kernel.name }, kernel.display_name || kernel.name));
      }
      this.select.value = kernel.name;
    }
    const text = kernel.reason ? (kernel.status === "dead" ? `Kernel died: ${kernel.reason}` : kernel.reason) : "";
    this.message.textContent = text;
    this.message.hidden = !text;
  }

  setSave(save: SaveInfo): void {
    this.saveStatus.textContent = saveLabel(save);
    this.saveStatus.dataset.status = save.status;
  }

  /** Nothing saves any more (the file was deleted, or the server closed the notebook). */
  setNotSaving(text: string): void {
    this.saveStatus.textContent = text;
    this.saveStatus.dataset.status = "error";
  }

  setConnection(state: "connecting" | "open" | "closed" | "fatal"): void {
    const text = { connecting: "connecting…", open: "connected", closed: "disconnected", fatal: "closed" }[state];
    this.connectionStatus.textContent = text;
    this.connectionStatus.dataset.state = state;
    if (state === "closed" || state === "fatal") {
      // The last status heard may no longer hold: do not keep saying "idle" (the snapshot of the
      // next connection sets the real one).
      this.status.textContent = "no connection";
      this.status.title = "The server cannot be reached: the kernel's state is unknown";
      this.element.dataset.kernelStatus = "unknown";
    } else {
      this.status.title = "";
    }
  }
}

/** Where "Don't ask again" for the restart confirmation is remembered (per browser, as Jupyter does per
 * user setting). */
export const SKIP_RESTART_CONFIRM = "ghostbook.skipRestartConfirm";

function skipConfirm(): boolean {
  try {
    return localStorage.getItem(SKIP_RESTART_CONFIRM) === "true";
  } catch {
    return false;
  }
}

/** Whether Restart asks first; the settings panel turns the question back on after "Don't ask again". */
export function setAskBeforeRestart(ask: boolean): void {
  try {
    if (ask) localStorage.removeItem(SKIP_RESTART_CONFIRM);
    else localStorage.setItem(SKIP_RESTART_CONFIRM, "true");
  } catch {
    // storage unavailable: the dialog asks every time
  }
}

export function askBeforeRestart(): boolean {
  return !skipConfirm();
}

let openDialog: Promise<boolean> | null = null;

/** What the restart dialog says: a dead kernel has no variables left to lose. */
export function restartQuestion(clear: boolean, dead: boolean, runAll = false): { title: string; text: string } {
  const then = runAll ? " and run all cells" : clear ? " and clear all outputs" : "";
  if (dead) {
    return {
      title: `Start a new kernel${then}?`,
      text: runAll ? "The kernel is not running: a new one starts, then every cell runs from the top."
        : "The kernel is not running: a new one starts with no variables. Run the cells again to get them back.",
    };
  }
  return {
    title: `Restart kernel${then}?`,
    text: "Do you want to restart the kernel? All variables will be lost.",
  };
}

/** Jupyter's "Restart kernel?" dialog; true to go ahead. */
export function confirmRestart(clear: boolean, dead = false, runAll = false): Promise<boolean> {
  if (skipConfirm()) return Promise.resolve(true);
  if (openDialog) return Promise.resolve(false); // one question at a time
  const dontAsk = el("input", { type: "checkbox", testid: "dont-ask-again" });
  const question = restartQuestion(clear, dead, runAll);
  const restart = el("button", { class: "button primary", testid: "confirm-restart", value: "restart", autofocus: "" }, dead ? "Start" : "Restart");
  const dialog = el(
    "dialog",
    { class: "confirm-dialog", testid: "restart-dialog", "aria-labelledby": "restart-dialog-title" },
    el(
      "form",
      { method: "dialog" },
      el("h2", { id: "restart-dialog-title" }, question.title),
      el("p", {}, question.text),
      el("label", { class: "dont-ask" }, dontAsk, "Don't ask again"),
      el(
        "div",
        { class: "dialog-buttons" },
        el("button", { class: "button", testid: "confirm-cancel", value: "cancel" }, "Cancel"),
        restart,
      ),
    ),
  );
  // Keys in the dialog are its own, not the notebook's command-mode keys (listened for on document).
  dialog.addEventListener("keydown", (event) => event.stopPropagation());
  document.body.appendChild(dialog);
  openDialog = new Promise<boolean>((resolve) => {
    dialog.addEventListener("close", () => {
      const confirmed = dialog.returnValue === "restart";
      if (confirmed && dontAsk.checked) {
        try {
          localStorage.setItem(SKIP_RESTART_CONFIRM, "true");
        } catch {
          // storage unavailable: ask again next time
        }
      }
      dialog.remove();
      openDialog = null;
      resolve(confirmed);
    });
  });
  dialog.returnValue = "";
  dialog.showModal();
  restart.focus();
  return openDialog;
}
