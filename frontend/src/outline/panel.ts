// The table-of-contents side panel: every Markdown heading of the notebook, indented by level; a click
// selects the heading's cell; the entry of the section holding the selected cell is highlighted.

import { button, el } from "../dom";
import type { CellSection } from "./headings";

const OPEN_KEY = "ghostbook.outline.open";

export class OutlinePanel {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly empty: HTMLElement;
  private active: string | null = null;

  constructor(private readonly jump: (cellId: string) => void) {
    this.list = el("ol", { class: "outline-list", testid: "outline-list" });
    this.empty = el("p", { class: "outline-empty", testid: "outline-empty" }, "No headings. Markdown cells that start with # appear here.");
    this.element = el(
      "aside",
      { class: "outline-panel", testid: "outline-panel", "aria-label": "Table of contents" },
      el(
        "div",
        { class: "outline-header" },
        el("h2", {}, "Table of Contents"),
        button("×", "close-outline", "Close the table of contents (Ctrl+Shift+K)", () => this.setOpen(false), "icon-button"),
      ),
      this.list,
      this.empty,
    );
    this.setOpen(localStorage.getItem(OPEN_KEY) === "true");
    document.body.appendChild(this.element);
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  setOpen(open: boolean): void {
    this.element.hidden = !open;
    document.body.classList.toggle("outline-open", open);
    try {
      localStorage.setItem(OPEN_KEY, String(open));
    } catch {
      // storage unavailable: the panel just forgets
    }
  }

  toggle(): void {
    this.setOpen(!this.open);
  }

  /** Redraw the entries from the cells' section facts (in notebook order). */
  update(facts: Map<string, CellSection>): void {
    const items: HTMLElement[] = [];
    for (const [cellId, fact] of facts) {
      fact.headings.forEach((heading, index) => {
        const item = el("button", {
          type: "button",
          class: "outline-item",
          testid: "outline-item",
          "data-cell-id": cellId,
          "data-level": String(heading.level),
          title: heading.text,
        }, heading.text || "(empty heading)");
        item.style.paddingLeft = `${8 + (heading.level - 1) * 14}px`;
        if (fact.hidden) item.classList.add("in-collapsed");
        if (index === fact.headings.length - 1) item.dataset.last = "true";
        item.addEventListener("click", () => this.jump(cellId));
        items.push(el("li", {}, item));
      });
    }
    this.list.replaceChildren(...items);
    this.empty.hidden = items.length > 0;
    this.markActive(this.active);
  }

  /** Highlight the section (its heading cell's last heading) the selected cell is in. */
  markActive(sectionCellId: string | null): void {
    this.active = sectionCellId;
    for (const item of this.list.querySelectorAll<HTMLElement>(".outline-item")) {
      const on = sectionCellId !== null && item.dataset.cellId === sectionCellId && item.dataset.last === "true";
      item.classList.toggle("active", on);
      if (on) item.setAttribute("aria-current", "location");
      else item.removeAttribute("aria-current");
    }
  }
}
