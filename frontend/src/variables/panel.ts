// The Variables panel (toolbar button `toggle-variables`): the kernel's names with type, shape or length,
// size and a short value, as JupyterLab's Variable Inspector lists them. While it is open the server sends
// a fresh list after each run (after the run's reply, once for a queue of runs); closed, it costs nothing.
// A DataFrame, Series or 1-D/2-D array opens in the data viewer (click its name, or Enter on its row).

import type { Connection } from "../connection";
import { button, el } from "../dom";
import { registerToolbarItem } from "../kernel-bar";
import type { Variable, VariablesMessage } from "../protocol";
import { DataViewer } from "./data-viewer";
import { bytesText, count, filterVariables, shapeText } from "./format";
import "./variables.css";

class VariablesPanel {
  readonly element: HTMLElement;
  private readonly filter = el("input", { type: "search", class: "variables-filter", testid: "variables-filter",
    placeholder: "Filter by name or type", "aria-label": "Filter variables", spellcheck: "false" });
  private readonly status = el("div", { class: "variables-status", testid: "variables-status", role: "status" });
  private readonly body = el("tbody", {});
  private variables: Variable[] = [];
  private viewer: DataViewer | null = null;
  private toggleButton: HTMLButtonElement | null = null;

  constructor(private readonly connection: Connection) {
    const head = el("tr", {}, ...["Name", "Type", "Shape", "Size", "Value"].map((h) => el("th", { scope: "col" }, h)));
    this.element = el(
      "aside",
      { class: "variables-panel", testid: "variables-panel", "aria-label": "Variables" },
      el(
        "div",
        { class: "variables-header" },
        el("h2", {}, "Variables"),
        button("↻", "refresh-variables", "Refresh the list", () => void this.ask(), "icon-button"),
        button("×", "close-variables", "Close", () => this.hide(), "icon-button"),
      ),
      this.filter,
      this.status,
      el("div", { class: "variables-scroller" }, el("table", { class: "variables-table", testid: "variables-table" },
        el("thead", {}, head), this.body)),
    );
    this.element.hidden = true;
    this.filter.addEventListener("input", () => this.draw());
    // Keys typed in the panel are its own, not the notebook's command-mode keys.
    this.element.addEventListener("keydown", (event) => {
      event.stopPropagation();
      if (event.key === "Escape") this.hide();
    });
    document.body.append(this.element);
    connection.addListener((message) => {
      if (this.element.hidden) return;
      if (message.type === "variables" && message.ref === null) this.show(message);
      else if (message.type === "snapshot") void this.ask(); // reconnected: watch again on the new socket
    });
  }

  setButton(toggle: HTMLButtonElement): void {
    this.toggleButton = toggle;
  }

  get visible(): boolean {
    return !this.element.hidden;
  }

  toggle(): void {
    if (this.visible) this.hide();
    else this.open();
  }

  open(): void {
    this.element.hidden = false;
    document.body.classList.add("variables-open");
    this.toggleButton?.setAttribute("aria-pressed", "true");
    void this.ask();
  }

  hide(): void {
    this.element.hidden = true;
    document.body.classList.remove("variables-open");
    this.toggleButton?.setAttribute("aria-pressed", "false");
    this.connection.send({ type: "unwatch_variables" });
  }

  private async ask(): Promise<void> {
    this.element.dataset.loading = "true";
    const reply = await this.connection.request<VariablesMessage>({ type: "get_variables", watch: true });
    delete this.element.dataset.loading;
    if (this.element.hidden) return;
    if (!reply || reply.type === "error") {
      this.status.textContent = reply ? reply.message : "Not connected to the server";
      this.status.dataset.error = "true";
      return;
    }
    this.show(reply as VariablesMessage);
  }

  private show(message: VariablesMessage): void {
    delete this.status.dataset.error;
    if (message.variables === null) {
      this.status.textContent = "A cell is running: the list follows when it has finished.";
      return;
    }
    this.variables = message.variables;
    this.element.dataset.refreshed = String(Number(this.element.dataset.refreshed ?? "0") + 1);
    const shown = message.variables.length;
    const more = message.total > shown ? ` (the first ${count(shown)} of ${count(message.total)})` : "";
    this.status.textContent = shown ? `${count(shown)} names${more}` : "No variables yet: run a cell.";
    this.draw();
  }

  private draw(): void {
    const rows = filterVariables(this.variables, this.filter.value).map((v) => this.row(v));
    this.body.replaceChildren(...rows);
  }

  private row(variable: Variable): HTMLElement {
    const name: HTMLElement = variable.viewer
      ? button(variable.name, "open-data-viewer", `Open ${variable.name} in the data viewer`, () => this.view(variable.name), "variable-open")
      : el("span", {}, variable.name);
    const tr = el(
      "tr",
      { testid: "variable-row", "data-name": variable.name },
      el("td", { class: "variable-name" }, name),
      el("td", { class: "variable-type", testid: "variable-type", title: variable.type }, variable.type),
      el("td", { class: "variable-shape", testid: "variable-shape" }, shapeText(variable)),
      el("td", { class: "variable-size", testid: "variable-size" }, bytesText(variable.size)),
      el("td", { class: "variable-value", testid: "variable-value", title: variable.value }, variable.value),
    );
    return tr;
  }

  private view(name: string): void {
    this.viewer?.close();
    this.viewer = new DataViewer(this.connection, name);
  }
}

const panels = new WeakMap<Connection, VariablesPanel>();

function variablesButton(connection: Connection): HTMLElement {
  let panel = panels.get(connection);
  if (!panel) {
    panel = new VariablesPanel(connection);
    panels.set(connection, panel);
  }
  const toggle = button("Variables", "toggle-variables", "Show the kernel's variables", () => panel.toggle());
  toggle.setAttribute("aria-pressed", "false");
  panel.setButton(toggle);
  return toggle;
}

registerToolbarItem(variablesButton);
