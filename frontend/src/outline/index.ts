// The notebook's outline: the table-of-contents panel (toggled from the toolbar or with Ctrl+Shift+K,
// JupyterLab's `toc:show-panel` key), collapsible heading sections, and `#heading` links that jump to
// their cell. The notebook page tells it when cells change and asks it which cells are hidden.

import { drawSection } from "./collapse";
import { type CellSection, collapsePatch, headingId, headingsToExpand, type OutlineCell, sections } from "./headings";
import { OutlinePanel } from "./panel";
import "./outline.css";

export interface OutlineHost {
  /** The cells in notebook order (their source as typed here, metadata as last known). */
  cells(): OutlineCell[];
  element(id: string): HTMLElement | undefined;
  selected(): string | null;
  /** Select a cell in command mode and scroll it into view. */
  select(id: string): void;
  /** Set top-level metadata keys at once here and on the server (`set_cell_metadata`). */
  setMetadata(id: string, patch: Record<string, unknown>): void;
}

export class Outline {
  readonly panel: OutlinePanel;
  private facts: Map<string, CellSection> | null = null;
  private scheduled = false;

  constructor(private readonly host: OutlineHost) {
    this.panel = new OutlinePanel((id) => this.host.select(id));
    window.addEventListener("keydown", (event) => {
      if ((event.ctrlKey || event.metaKey) && event.shiftKey && !event.altKey && event.key.toLowerCase() === "k") {
        event.preventDefault();
        event.stopPropagation();
        this.panel.toggle();
      }
    }, true);
  }

  toggle(): void {
    this.panel.toggle();
  }

  /** Cells, their sources, types or metadata changed: redraw on the next frame (bursts coalesce). */
  changed(): void {
    this.facts = null;
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.render();
    });
  }

  /** Redraw the sections on the cells and the panel's entries now. */
  render(): void {
    const facts = this.current();
    for (const [id, fact] of facts) {
      const element = this.host.element(id);
      if (element) drawSection(element, fact, (collapse) => this.setCollapsed(id, collapse));
    }
    this.panel.update(facts);
    this.selectionChanged(this.host.selected());
  }

  private current(): Map<string, CellSection> {
    this.facts ??= sections(this.host.cells());
    return this.facts;
  }

  selectionChanged(id: string | null): void {
    this.panel.markActive(id === null ? null : (this.current().get(id)?.section ?? null));
  }

  isHidden(id: string): boolean {
    return this.current().get(id)?.hidden === true;
  }

  /** Expand the sections that hide cell `id` (it is being selected), as JupyterLab does. */
  reveal(id: string): void {
    const open = headingsToExpand(this.host.cells(), id);
    for (const heading of open) this.host.setMetadata(heading, collapsePatch(false));
    if (open.length) {
      this.facts = null;
      this.render();
    }
  }

  setCollapsed(id: string, collapse: boolean): void {
    this.host.setMetadata(id, collapsePatch(collapse));
    this.facts = null;
    this.render();
    const selected = this.host.selected();
    if (collapse && selected !== null && this.isHidden(selected)) this.host.select(id);
  }

  /** Follow a `#fragment` link: select the cell whose heading has that id (JupyterLab's ids). */
  jumpTo(fragment: string): boolean {
    let wanted = fragment;
    try {
      wanted = decodeURIComponent(fragment);
    } catch {
      // keep it as written
    }
    for (const [id, fact] of this.current()) {
      if (fact.headings.some((heading) => headingId(heading.text) === wanted)) {
        this.host.select(id);
        return true;
      }
    }
    return false;
  }

  /** `#heading` links in rendered Markdown (under `container`) jump within the notebook. */
  handleAnchorLinks(container: HTMLElement): void {
    container.addEventListener("click", (event) => {
      const link = (event.target as Element | null)?.closest?.("a[href^='#']");
      if (!(link instanceof HTMLAnchorElement) || !link.closest(".markdown-rendered")) return;
      event.preventDefault();
      event.stopPropagation();
      this.jumpTo(link.getAttribute("href")!.slice(1));
    });
  }
}
