// The find-and-replace bar (DOM only: the controller in notebook-search.ts does the searching). Its
// parts and names are JupyterLab's search box (packages/documentsearch/src/searchview.tsx): a "Find"
// field with Match Case / Match Whole Word / Use Regular Expression toggles, the "n/N" count, previous
// and next, a toggle that opens the "Replace" field with Replace and Replace All, and the notebook
// filter "Search Cell Outputs".

import { button, el } from "../dom";
import "./search.css";
import type { SearchOptions } from "./query";

export interface BarActions {
  /** The query or an option changed. */
  changed(): void;
  next(): void;
  previous(): void;
  replaceOne(): void;
  replaceAll(): void;
  undoReplaceAll(): void;
  close(): void;
}

function toggle(label: string, testid: string, title: string, onChange: () => void): HTMLButtonElement {
  const b = button(label, testid, title, () => {
    b.setAttribute("aria-pressed", String(b.getAttribute("aria-pressed") !== "true"));
    onChange();
  }, "search-toggle");
  b.setAttribute("aria-pressed", "false");
  b.addEventListener("mousedown", (event) => event.preventDefault()); // the field keeps the focus
  return b;
}

function pressed(b: HTMLButtonElement): boolean {
  return b.getAttribute("aria-pressed") === "true";
}

export class SearchBar {
  readonly element: HTMLElement;
  readonly input: HTMLInputElement;
  readonly replaceInput: HTMLInputElement;
  private readonly caseToggle: HTMLButtonElement;
  private readonly wordToggle: HTMLButtonElement;
  private readonly regexToggle: HTMLButtonElement;
  private readonly outputsBox: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly error: HTMLElement;
  private readonly replaceRow: HTMLElement;
  private readonly replaceToggle: HTMLButtonElement;
  private readonly undoButton: HTMLButtonElement;
  private readonly status: HTMLElement;

  constructor(actions: BarActions) {
    this.input = el("input", { class: "search-input", testid: "search-input", type: "text", placeholder: "Find",
      "aria-label": "Find", spellcheck: "false", autocomplete: "off" });
    this.replaceInput = el("input", { class: "search-input", testid: "replace-input", type: "text", placeholder: "Replace",
      "aria-label": "Replace", spellcheck: "false", autocomplete: "off" });
    this.caseToggle = toggle("Aa", "search-case", "Match Case", actions.changed);
    this.wordToggle = toggle("W", "search-word", "Match Whole Word", actions.changed);
    this.regexToggle = toggle(".*", "search-regex", "Use Regular Expression", actions.changed);
    this.wordToggle.classList.add("search-word-toggle");
    this.outputsBox = el("input", { type: "checkbox", testid: "search-outputs" });
    this.outputsBox.addEventListener("change", () => {
      actions.changed();
      this.input.focus(); // Enter goes on to the next match
    });
    this.count = el("span", { class: "search-count", testid: "search-count", "aria-live": "polite" });
    this.error = el("span", { class: "search-error", testid: "search-error", role: "alert" });
    this.error.hidden = true;
    this.status = el("span", { class: "search-status", testid: "search-status", "aria-live": "polite" });
    this.replaceToggle = button("▸", "search-toggle-replace", "Toggle Replace (Ctrl+H)", () => this.showReplace(this.replaceRow.hidden === true), "search-button");
    this.undoButton = button("Undo replace all", "search-undo", "Undo replace all (Ctrl+Z in command mode)", actions.undoReplaceAll, "search-button");
    this.undoButton.hidden = true;
    const prev = button("↑", "search-prev", "Previous Match (Shift+Enter, Ctrl+Shift+G, Shift+F3)", actions.previous, "search-button");
    const next = button("↓", "search-next", "Next Match (Enter, Ctrl+G, F3)", actions.next, "search-button");
    const close = button("×", "search-close", "Close (Esc)", actions.close, "search-button");
    for (const b of [prev, next, this.replaceToggle]) b.addEventListener("mousedown", (event) => event.preventDefault());
    this.replaceRow = el(
      "div",
      { class: "search-row" },
      this.replaceInput,
      button("Replace", "replace-one", "Replace the current match (Enter in the field)", actions.replaceOne, "search-button"),
      button("Replace All", "replace-all", "Replace every match in the notebook: one undoable step (Ctrl+Alt+Enter in the field)", actions.replaceAll, "search-button"),
      this.undoButton,
    );
    this.replaceRow.hidden = true;
    this.element = el(
      "div",
      { class: "search-bar", testid: "search-bar", role: "search" },
      el("div", { class: "search-row" }, this.replaceToggle, this.input, this.caseToggle, this.wordToggle, this.regexToggle,
        this.count, prev, next,
        el("label", { class: "search-filter", title: "Search Cell Outputs (read-only: counted and shown, never replaced)" },
          this.outputsBox, "Search outputs"),
        this.status, close),
      this.error,
      this.replaceRow,
    );
    this.element.hidden = true;
    this.input.addEventListener("input", actions.changed);
    this.input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.isComposing) return;
      event.preventDefault();
      if (event.shiftKey) actions.previous();
      else actions.next();
    });
    this.replaceInput.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.isComposing) return;
      event.preventDefault();
      if ((event.ctrlKey || event.metaKey) && event.altKey) actions.replaceAll();
      else actions.replaceOne();
    });
    this.element.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      actions.close();
    });
  }

  get options(): SearchOptions {
    return { text: this.input.value, caseSensitive: pressed(this.caseToggle), wholeWord: pressed(this.wordToggle),
      regex: pressed(this.regexToggle) };
  }

  get searchOutputs(): boolean {
    return this.outputsBox.checked;
  }

  get replacement(): string {
    return this.replaceInput.value;
  }

  showReplace(show: boolean): void {
    this.replaceRow.hidden = !show;
    this.replaceToggle.textContent = show ? "▾" : "▸";
    this.replaceToggle.setAttribute("aria-expanded", String(show));
  }

  /** `current`: 0-based index or -1; `total`: matches; `error`: an invalid regex. */
  setCount(current: number, total: number, error: string | null, capped: boolean): void {
    this.error.hidden = !error;
    this.error.textContent = error ?? "";
    this.input.classList.toggle("invalid", !!error);
    if (error || !this.input.value) this.count.textContent = "";
    else if (!total) this.count.textContent = "No results";
    else this.count.textContent = `${current + 1} of ${total}${capped ? "+" : ""}`;
  }

  setStatus(text: string): void {
    this.status.textContent = text;
  }

  setUndo(available: boolean): void {
    this.undoButton.hidden = !available;
  }
}
