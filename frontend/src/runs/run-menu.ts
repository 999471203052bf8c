// The toolbar's Run menu: JupyterLab's Run menu commands and labels (packages/notebook-extension/src/index.ts:
// notebook:run-cell, run-all-above, run-all-below, run-all-cells, restart-run-all). The order of the
// cells is the server's (run_above / run_below / restart_and_run_all in session/reducer.py).

import { el } from "../dom";

export interface RunMenuActions {
  runSelected(): void;
  runAbove(): void;
  runBelow(): void;
  runAll(): void;
  /** Asks first, as the toolbar's Restart does. */
  restartAndRunAll(): void;
  /** A cell is selected (and, for runAbove, it is not the first). */
  canRun(which: "selected" | "above" | "below"): boolean;
}

interface Item {
  testid: string;
  label: string;
  run: () => void;
  enabled?: () => boolean;
}

export function runMenu(actions: RunMenuActions): HTMLElement {
  const items: Item[] = [
    { testid: "run-menu-selected", label: "Run Selected Cell", run: () => actions.runSelected(), enabled: () => actions.canRun("selected") },
    { testid: "run-menu-above", label: "Run All Above Selected Cell", run: () => actions.runAbove(), enabled: () => actions.canRun("above") },
    { testid: "run-menu-below", label: "Run Selected Cell and All Below", run: () => actions.runBelow(), enabled: () => actions.canRun("below") },
    { testid: "run-menu-all", label: "Run All Cells", run: () => actions.runAll() },
    { testid: "run-menu-restart-run-all", label: "Restart Kernel and Run All Cells…", run: () => actions.restartAndRunAll() },
  ];
  const toggle = el("button", { class: "button", testid: "run-menu", type: "button", title: "Run cells", "aria-haspopup": "menu", "aria-expanded": "false" }, "Run ▾");
  const buttons = items.map((item) => {
    const entry = el("button", { class: "run-menu-item", testid: item.testid, type: "button", role: "menuitem" }, item.label);
    entry.addEventListener("click", () => {
      close();
      item.run();
    });
    return entry;
  });
  const list = el("div", { class: "run-menu-list", testid: "run-menu-list", role: "menu" }, ...buttons);
  list.hidden = true;
  const root = el("div", { class: "run-menu" }, toggle, list);

  const onOutside = (event: MouseEvent) => {
    if (!root.contains(event.target as Node)) close();
  };
  function open(): void {
    items.forEach((item, i) => (buttons[i].disabled = item.enabled ? !item.enabled() : false));
    list.hidden = false;
    toggle.setAttribute("aria-expanded", "true");
    document.addEventListener("mousedown", onOutside, true);
    buttons.find((b) => !b.disabled)?.focus();
  }
  function close(): void {
    list.hidden = true;
    toggle.setAttribute("aria-expanded", "false");
    document.removeEventListener("mousedown", onOutside, true);
  }
  toggle.addEventListener("mousedown", (event) => event.preventDefault()); // the selected cell keeps its focus
  toggle.addEventListener("click", () => (list.hidden ? open() : close()));
  // The menu's keys are its own, not the notebook's command-mode keys.
  list.addEventListener("keydown", (event) => {
    event.stopPropagation();
    const enabled = buttons.filter((b) => !b.disabled);
    const at = enabled.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === "Escape") {
      close();
      toggle.focus();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      enabled[(at + step + enabled.length) % enabled.length]?.focus();
    } else return;
    event.preventDefault();
  });
  return root;
}
