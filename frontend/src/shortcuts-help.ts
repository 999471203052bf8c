// The keyboard shortcuts panel (the list is what keyboard.ts and cell-view.ts implement).

import { button, el } from "./dom";

export const SHORTCUTS: { mode: string; keys: string; action: string }[] = [
  { mode: "Any", keys: "Shift+Enter", action: "Run cell, select the next one (a new cell at the end)" },
  { mode: "Any", keys: "Ctrl+Enter", action: "Run cell in place" },
  { mode: "Any", keys: "Alt+Enter", action: "Run cell and insert a cell below" },
  { mode: "Any", keys: "Ctrl+S / Cmd+S", action: "Save the notebook" },
  { mode: "Edit", keys: "Esc", action: "Command mode (first closes the popup, the docs or the ghost text; a command key right after that Esc still acts as a command)" },
  { mode: "Edit", keys: "Enter", action: "Accept the selected completion when the popup is open" },
  { mode: "Edit", keys: "↑ / ↓", action: "Move in the completion popup" },
  { mode: "Edit", keys: "Shift+Tab", action: "Show documentation for the name at the cursor" },
  { mode: "Edit", keys: "Tab", action: "Accept the ghost text (grey suggestion); without one, indent" },
  { mode: "Edit", keys: "Ctrl+→", action: "Accept the next word of the ghost text" },
  { mode: "Edit", keys: "Ctrl+↓", action: "Accept the next line of the ghost text" },
  { mode: "Edit", keys: "Ctrl+Space", action: "Ask for ghost text now (no debounce, no skip rules)" },
  { mode: "Edit", keys: "Ctrl+Z / Ctrl+Shift+Z", action: "Undo / redo in the cell" },
  { mode: "Any", keys: "Ctrl+K", action: "Edit with AI: say what to change in the cell (or the selected lines)" },
  { mode: "Review", keys: "Ctrl+Enter / Esc", action: "Accept / reject the proposed edit (each block: Keep / Drop)" },
  { mode: "Command", keys: "Enter", action: "Edit the selected cell" },
  { mode: "Command", keys: "↑ / k, ↓ / j", action: "Select the cell above / below" },
  { mode: "Command", keys: "a / b", action: "Insert a cell above / below" },
  { mode: "Command", keys: "d d", action: "Delete the selected cell" },
  { mode: "Command", keys: "z", action: "Restore the last deleted cells" },
  { mode: "Command", keys: "c / x", action: "Copy / cut the selected cell" },
  { mode: "Command", keys: "v / Shift+V", action: "Paste the cell below / above" },
  { mode: "Command", keys: "m / y / r", action: "Make the cell markdown / code / raw" },
  { mode: "Command", keys: "Ctrl+↑ / Ctrl+↓", action: "Move the cell up / down" },
  { mode: "Command", keys: "i i", action: "Interrupt the kernel" },
  { mode: "Command", keys: "0 0", action: "Restart the kernel" },
  { mode: "Command", keys: "? / h", action: "Show or hide this panel (also the ? button on the toolbar)" },
  { mode: "Data viewer", keys: "Page Down / Page Up", action: "Next / previous page of the table (Variables panel: click a DataFrame's name)" },
  { mode: "Data viewer", keys: "Home / End", action: "First / last page" },
  { mode: "Data viewer", keys: "Esc", action: "Close the data viewer (in the Variables panel: close the panel)" },
];

export class ShortcutsHelp {
  readonly panel: HTMLElement;

  constructor() {
    const rows = SHORTCUTS.map((s) =>
      el("tr", {}, el("td", { class: "mode" }, s.mode), el("td", {}, el("kbd", {}, s.keys)), el("td", {}, s.action)),
    );
    this.panel = el(
      "div",
      { class: "shortcuts-panel", testid: "shortcuts-panel", role: "dialog", "aria-label": "Keyboard shortcuts" },
      el(
        "div",
        { class: "shortcuts-header" },
        el("h2", {}, "Keyboard shortcuts"),
        button("×", "close-shortcuts", "Close", () => this.hide(), "icon-button"),
      ),
      el("table", {}, el("tbody", {}, ...rows)),
    );
    this.panel.hidden = true;
    document.body.appendChild(this.panel);
  }

  get visible(): boolean {
    return !this.panel.hidden;
  }

  toggle(): void {
    this.panel.hidden = !this.panel.hidden;
  }

  hide(): void {
    this.panel.hidden = true;
  }
}
