// The keyboard shortcuts panel (the list is what keyboard.ts and cell-view.ts implement).

import { button, el } from "./dom";

export const SHORTCUTS: { mode: string; keys: string; action: string }[] = [
  { mode: "Any", keys: "Shift+Enter", action: "Run the selected cells, select the next one (a new cell at the end)" },
  { mode: "Any", keys: "Ctrl+Enter", action: "Run the selected cells in place" },
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
  { mode: "Any", keys: "Ctrl+F", action: "Find in the whole notebook (sources; outputs with “Search outputs”)" },
  { mode: "Any", keys: "Ctrl+H", action: "Find and replace in the whole notebook" },
  { mode: "Find", keys: "Enter / Shift+Enter", action: "Next / previous match (also Ctrl+G / Ctrl+Shift+G, F3 / Shift+F3)" },
  { mode: "Find", keys: "Enter / Ctrl+Alt+Enter", action: "In the Replace field: replace the current match / replace all" },
  { mode: "Find", keys: "Esc", action: "Close the find bar; the focus goes back where it was" },
  { mode: "Command", keys: "Ctrl+Z", action: "Right after Replace All: undo it (every changed cell in one step)" },
  { mode: "Command", keys: "Enter", action: "Edit the selected cell" },
  { mode: "Command", keys: "↑ / k, ↓ / j", action: "Select the cell above / below (cells hidden in a collapsed section are skipped)" },
  { mode: "Command", keys: "a / b", action: "Insert a cell above / below" },
  { mode: "Command", keys: "Shift+↑ / Shift+↓ (Shift+K / Shift+J)", action: "Extend the selection to the cell above / below" },
  { mode: "Command", keys: "Shift+Home / Shift+End", action: "Extend the selection to the first / last cell" },
  { mode: "Command", keys: "Shift+click", action: "Select every cell from the active one to the clicked one" },
  { mode: "Command", keys: "Ctrl+A", action: "Select all cells" },
  { mode: "Command", keys: "d d", action: "Delete the selected cells" },
  { mode: "Command", keys: "z / Ctrl+Z", action: "Undo the last cell operation (delete, merge, split, paste, move, type change, accepted AI changes)" },
  { mode: "Command", keys: "c / x", action: "Copy / cut the selected cells" },
  { mode: "Command", keys: "v / Shift+V", action: "Paste the cells below / above" },
  { mode: "Command", keys: "m / y / r", action: "Make the selected cells markdown / code / raw" },
  { mode: "Command", keys: "Ctrl+↑ / Ctrl+↓", action: "Move the selected cells up / down" },
  { mode: "Command", keys: "Shift+M", action: "Merge the selected cells (one selected: with the cell below)" },
  { mode: "Edit", keys: "Ctrl+Shift+-", action: "Split the cell at the cursor (or around the selected text)" },
  { mode: "Any", keys: "Drag the left column", action: "Move the cell (a selected cell: the whole selection)" },
  { mode: "Command", keys: "i i", action: "Interrupt the kernel" },
  { mode: "Command", keys: "0 0", action: "Restart the kernel" },
  { mode: "Command", keys: "o", action: "Hide or show the selected cell's outputs (also a click on the bar left of them)" },
  { mode: "Command", keys: "Shift+O", action: "Hide all outputs, or show them all when all are hidden" },
  { mode: "Toolbar", keys: "Run ▾", action: "Run all above the selected cell / the selected cell and all below / all; restart the kernel and run all (no keys, as in JupyterLab)" },
  { mode: "Command", keys: "? / h", action: "Show or hide this panel (also the ? button on the toolbar)" },
  { mode: "Any", keys: "Ctrl+Shift+K", action: "Show or hide the table of contents (also the Outline button on the toolbar)" },
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
