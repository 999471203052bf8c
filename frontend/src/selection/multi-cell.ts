// Many cells at once, as in JupyterLab: Shift+↑/↓ and Shift+click extend the selection from an anchor,
// Ctrl+A selects all; delete, copy/cut/paste, change type, move, run, merge (Shift+M) and split
// (Ctrl+Shift+-) act on the whole selection, each as one operation of the session (one `z` undoes it);
// a cell dragged by its left column (the prompt) moves, with the rest of the selection when it is in it.
// notebook-view.ts only wires this in: the page's events, the command keys and `select`.

import type { Mode, RunHow } from "../cell-view";
import type { CellEditor } from "../editor";
import { toCodePoints } from "../offsets";
import type { CellType, ClientMessage, NewCell } from "../protocol";
import { CellRange, dropIndex, mergeTargets, splitOffsets } from "./range";

/** What the selection needs of one cell's view. */
export interface SelectableCell {
  readonly element: HTMLElement;
  readonly editor: CellEditor;
  readonly type: CellType;
  metadata: Record<string, unknown>;
  renderMarkdown(): void;
}

/** What the selection needs of the page. */
export interface SelectionHost {
  readonly list: HTMLElement;
  order(): string[];
  cell(id: string): SelectableCell | undefined;
  mode(): Mode;
  select(id: string, mode: Mode, scroll?: boolean): void;
  /** Send a document change; false (and the user told) when it could not go out. */
  act(message: ClientMessage): boolean;
  /** Select the cell `id` in `mode` when the server announces it (a cell this tab asked for). */
  expect(id: string, mode: Mode): void;
  insertAt(index: number, type?: CellType, mode?: Mode): void;
}

const DRAG_TYPE = "application/x-ghostbook-cells";

/** A cell id chosen by this tab (so it can select the cell when the server announces it). */
export function newCellId(): string {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function cellIdOf(target: EventTarget | null): string | null {
  const cell = target instanceof Element ? target.closest<HTMLElement>(".cell[data-cell-id]") : null;
  return cell?.dataset.cellId ?? null;
}

export class MultiCell {
  readonly range: CellRange;
  /** Cells copied with c or cut with x, pasted with v / Shift+V (their order, types, sources, metadata). */
  private clipboard: NewCell[] = [];
  /** Set while this module moves the active cell itself, so `selected` keeps the range. */
  private keep = false;
  /** Cells pasted here: selected together when they arrive. */
  private pasted: string[] | null = null;
  private dragged: string[] | null = null;
  private dropMark: HTMLElement | null = null;

  constructor(private readonly host: SelectionHost) {
    this.range = new CellRange(() => host.order());
    const list = host.list;
    list.addEventListener("mousedown", (event) => this.onMouseDown(event), true);
    list.addEventListener("click", (event) => this.onSideClick(event));
    list.addEventListener("dragstart", (event) => this.onDragStart(event));
    list.addEventListener("dragover", (event) => this.onDragOver(event), true);
    list.addEventListener("drop", (event) => this.onDrop(event), true);
    list.addEventListener("dragend", () => this.endDrag());
    document.addEventListener("keydown", (event) => this.onSplitKey(event), true);
  }

  /** The selected cell ids, in document order. */
  ids(): string[] {
    return this.range.ids();
  }

  /** The page selected `id` (a click, a key, a new cell): one cell, unless this module extended to it. */
  selected(id: string): void {
    if (!this.keep) this.range.collapse(id);
    this.mark();
  }

  /** Draw which cells are selected (class `multi-selected` and aria-selected), and make every cell's
   * left column a drag handle. */
  mark(): void {
    const chosen = new Set(this.range.isMulti ? this.range.ids() : []);
    for (const element of this.host.list.querySelectorAll<HTMLElement>(":scope > .cell[data-cell-id]")) {
      const id = element.dataset.cellId!;
      const on = chosen.has(id);
      element.classList.toggle("multi-selected", on);
      element.setAttribute("aria-selected", String(on || id === this.range.active));
      const side = element.querySelector<HTMLElement>(":scope > .cell-side");
      if (side && !side.draggable) {
        side.draggable = true;
        side.dataset.testid = "cell-drag-handle";
        side.title = "Drag to move the cell (and the other selected cells)";
      }
    }
  }

  /** Select the active cell again (it moved: focus and scroll follow it), keeping the range. */
  reselect(mode: Mode): void {
    if (this.range.active) this.activate(this.range.active, mode);
  }

  private activate(id: string, mode: Mode = "command", scroll = true): void {
    this.keep = true;
    try {
      this.host.select(id, mode, scroll);
    } finally {
      this.keep = false;
    }
  }

  // ---- selecting ------------------------------------------------------------------------------

  extendBy(delta: number): void {
    const id = this.range.extendBy(delta);
    if (id) this.activate(id);
  }

  selectAll(): void {
    this.range.selectAll();
    this.mark();
  }

  private onMouseDown(event: MouseEvent): void {
    const id = cellIdOf(event.target);
    if (!id || event.button !== 0 || (event.target as Element).closest("button, select, input, a")) return;
    const active = this.range.active;
    if (event.shiftKey && !(id === active && this.host.mode() === "edit")) {
      event.preventDefault(); // no text selection, no focus change
      event.stopPropagation(); // the cell would select itself alone
      if (active === null) this.range.collapse(id);
      else this.range.extendTo(id);
      this.activate(id, "command", false);
    } else if (this.onSide(event.target) && this.range.isMulti && this.range.has(id)) {
      event.stopPropagation(); // maybe the start of dragging the whole selection (a click collapses it)
    }
  }

  private onSideClick(event: MouseEvent): void {
    const id = cellIdOf(event.target);
    if (id && !event.shiftKey && this.onSide(event.target) && this.range.isMulti) this.host.select(id, "command", false);
  }

  private onSide(target: EventTarget | null): boolean {
    return target instanceof Element && target.closest(".cell-side") !== null;
  }

  // ---- acting on the selection ----------------------------------------------------------------

  delete(): void {
    const ids = this.ids();
    if (ids.length) this.host.act({ type: "delete_cells", cell_ids: ids });
  }

  copy(cut: boolean): void {
    const ids = this.ids();
    this.clipboard = ids.flatMap((id) => {
      const cell = this.host.cell(id);
      return cell ? [{ cell_type: cell.type, source: cell.editor.source, metadata: structuredClone(cell.metadata) }] : [];
    });
    if (cut && ids.length) this.host.act({ type: "delete_cells", cell_ids: ids });
  }

  paste(where: "above" | "below"): void {
    if (!this.clipboard.length) return;
    const order = this.host.order();
    const ids = this.ids();
    const index = ids.length ? order.indexOf(where === "above" ? ids[0] : ids[ids.length - 1]) + (where === "above" ? 0 : 1) : order.length;
    const cells = this.clipboard.map((cell) => ({ ...cell, cell_id: newCellId() }));
    const last = cells[cells.length - 1].cell_id;
    this.pasted = cells.map((cell) => cell.cell_id);
    this.host.expect(last, "command");
    this.host.act({ type: "insert_cells", index: Math.max(0, index), cells });
  }

  /** Cells arrived from the server: select the ones this tab pasted together. */
  arrived(ids: string[]): void {
    const pasted = this.pasted;
    if (!pasted || !ids.includes(pasted[pasted.length - 1])) return;
    this.pasted = null;
    this.range.collapse(pasted[0]);
    this.range.extendTo(pasted[pasted.length - 1]);
    this.activate(pasted[pasted.length - 1]);
  }

  setType(type: CellType): void {
    const ids = this.ids().filter((id) => this.host.cell(id)?.type !== type);
    if (ids.length) this.host.act({ type: "set_cells_type", cell_ids: ids, cell_type: type });
  }

  move(delta: number): void {
    const ids = this.ids();
    if (ids.length) this.host.act({ type: "move_cells", cell_ids: ids, delta });
  }

  /** Run every selected cell (code cells in one request, markdown rendered); false with one cell
   * selected, which the page runs as before. */
  run(how: RunHow): boolean {
    if (!this.range.isMulti) return false;
    const ids = this.ids();
    const code = ids.filter((id) => this.host.cell(id)?.type === "code");
    for (const id of ids) if (this.host.cell(id)?.type === "markdown") this.host.cell(id)!.renderMarkdown();
    if (code.length) this.host.act({ type: "execute_cells", cell_ids: code });
    const order = this.host.order();
    const after = order.indexOf(ids[ids.length - 1]) + 1;
    if (how === "stay") this.mark();
    else if (how === "insert" || !order[after]) this.host.insertAt(after, "code", "edit");
    else this.host.select(order[after], "command");
    return true;
  }

  /** Shift+M: merge the selection, or the active cell with the one below. */
  merge(): void {
    const active = this.range.active;
    const cell_ids = active ? mergeTargets(this.ids(), active, this.host.order()) : null;
    if (!active || !cell_ids) return;
    const id = newCellId();
    this.host.expect(id, this.host.mode());
    this.host.act({ type: "merge_cells", cell_ids, primary: active, new_cell_id: id });
  }

  /** Ctrl+Shift+- in edit mode: split the cell at the cursor, or around the selected text. */
  split(id: string): void {
    const cell = this.host.cell(id);
    if (!cell) return;
    const state = cell.editor.view.state;
    const text = state.doc.toString();
    const offsets = splitOffsets(state.selection.ranges.map((r) => ({ from: r.from, to: r.to }))).map((at) => toCodePoints(text, at));
    const ids = [...offsets, 0].map(() => newCellId());
    const main = state.selection.main;
    this.host.expect(ids[main.empty ? ids.length - 1 : ids.length - 2], "edit");
    this.host.act({ type: "split_cell", cell_id: id, offsets, new_cell_ids: ids });
  }

  private onSplitKey(event: KeyboardEvent): void {
    const mod = event.ctrlKey || event.metaKey;
    if (!mod || !event.shiftKey || event.altKey || (event.code !== "Minus" && event.key !== "_" && event.key !== "-")) return;
    const active = this.range.active;
    if (!active || this.host.mode() !== "edit" || !this.host.cell(active)?.editor.hasFocus()) return;
    event.preventDefault();
    event.stopPropagation();
    this.split(active);
  }

  // ---- dragging -------------------------------------------------------------------------------

  private onDragStart(event: DragEvent): void {
    const id = cellIdOf(event.target);
    if (!id || !this.onSide(event.target) || !event.dataTransfer) return;
    if (!this.range.has(id)) this.host.select(id, "command", false);
    this.dragged = this.range.has(id) ? this.ids() : [id];
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData(DRAG_TYPE, this.dragged.join(" "));
    const element = this.host.cell(id)?.element;
    if (element) event.dataTransfer.setDragImage(element, 8, 8);
  }

  private dropTarget(event: DragEvent): { id: string; element: HTMLElement; after: boolean; index: number } | null {
    const element = event.target instanceof Element ? event.target.closest<HTMLElement>(".cell[data-cell-id]") : null;
    if (!this.dragged || !element) return null;
    const box = element.getBoundingClientRect();
    const after = event.clientY > box.top + box.height / 2;
    const index = dropIndex(this.host.order(), this.dragged, element.dataset.cellId!, after);
    return index === null ? null : { id: element.dataset.cellId!, element, after, index };
  }

  private onDragOver(event: DragEvent): void {
    if (!this.dragged) return;
    event.preventDefault(); // the editors must not take the drop as text
    event.stopPropagation();
    const target = this.dropTarget(event);
    if (event.dataTransfer) event.dataTransfer.dropEffect = target ? "move" : "none";
    this.showDrop(target?.element ?? null, target?.after ?? false);
  }

  private onDrop(event: DragEvent): void {
    if (!this.dragged) return;
    event.preventDefault();
    event.stopPropagation();
    const target = this.dropTarget(event);
    if (target) this.host.act({ type: "move_cells", cell_ids: this.dragged, index: target.index });
    this.endDrag();
  }

  private showDrop(element: HTMLElement | null, after: boolean): void {
    if (this.dropMark && this.dropMark !== element) this.dropMark.classList.remove("drop-before", "drop-after");
    this.dropMark = element;
    element?.classList.toggle("drop-before", !after);
    element?.classList.toggle("drop-after", after);
  }

  private endDrag(): void {
    this.dragged = null;
    this.showDrop(null, false);
  }
}
