// Collapsible heading sections on the cells themselves: a toggle beside each Markdown heading cell, the
// cells of a collapsed section hidden, and a "N cells hidden" button under its heading that expands it
// (as JupyterLab's MarkdownCell draws them, packages/cells/src/widget.ts).

import { button } from "../dom";
import type { CellSection } from "./headings";

/** Draw one cell's section state on its element; `toggle(collapse)` collapses or expands its section. */
export function drawSection(cell: HTMLElement, fact: CellSection, toggle: (collapse: boolean) => void): void {
  cell.classList.toggle("section-hidden", fact.hidden);
  cell.classList.toggle("heading-collapsed", fact.collapsed);
  let toggler = cell.querySelector<HTMLButtonElement>(":scope > .cell-side > .heading-toggle");
  if (fact.level > 0 && !toggler) {
    toggler = button("", "heading-toggle", "", (event) => {
      event.stopPropagation();
      toggle(cell.dataset.headingCollapsed !== "true");
    }, "heading-toggle");
    cell.querySelector(":scope > .cell-side")?.prepend(toggler);
  } else if (fact.level === 0 && toggler) {
    toggler.remove();
    toggler = null;
  }
  if (toggler) {
    const label = fact.collapsed ? "Expand this section" : "Collapse this section";
    toggler.title = label;
    toggler.setAttribute("aria-label", label);
    toggler.setAttribute("aria-expanded", String(!fact.collapsed));
    toggler.textContent = fact.collapsed ? "▸" : "▾";
  }
  cell.dataset.headingCollapsed = String(fact.collapsed);
  let expander = cell.querySelector<HTMLButtonElement>(":scope > .cell-main > .hidden-cells-button");
  const count = fact.collapsed ? fact.hiddenCount : 0;
  if (count > 0) {
    if (!expander) {
      expander = button("", "hidden-cells-button", "Show the hidden cells", (event) => {
        event.stopPropagation();
        toggle(false);
      }, "hidden-cells-button");
      cell.querySelector(":scope > .cell-main")?.append(expander);
    }
    expander.textContent = `${count} ${count === 1 ? "cell" : "cells"} hidden`;
  } else expander?.remove();
}
