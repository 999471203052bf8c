// Which cells are selected: the active cell (the one keys act from, JupyterLab's `activeCell`) and a
// contiguous range from an anchor to it, as JupyterLab's `extendContiguousSelectionTo`
// (packages/notebook/src/widget.ts: the active cell is the range's head and moves with Shift+↑/↓, so
// Shift+M takes the type of the cell the keys ended on). Pure logic over the notebook's order of cell
// ids, so it is tested without a page.

export class CellRange {
  private anchorId: string | null = null;
  private activeId: string | null = null;
  /** Every cell (select all), not a range from the anchor. */
  private all = false;

  constructor(private readonly order: () => string[]) {}

  get active(): string | null {
    return this.activeId;
  }

  /** One cell selected and active (a click, arrow keys, a new cell). */
  collapse(id: string): void {
    this.anchorId = this.activeId = id;
    this.all = false;
  }

  /** Shift+click: from the anchor to `id`, which becomes active. */
  extendTo(id: string): void {
    if (this.anchorId === null || !this.order().includes(this.anchorId)) this.anchorId = this.activeId ?? id;
    this.activeId = id;
    this.all = false;
  }

  /** Shift+↑ / Shift+↓: the active cell moves by `delta` (Shift+Home / Shift+End: to the first or last
   * cell) and the range follows it, shrinking when it moves back toward the anchor. Returns the new
   * active id, or null at the notebook's edge. */
  extendBy(delta: number): string | null {
    const order = this.order();
    const at = this.activeId === null ? -1 : order.indexOf(this.activeId);
    const next = order[Math.max(0, Math.min(order.length - 1, at + delta))];
    if (at === -1 || next === this.activeId) return null;
    if (this.all) this.anchorId = delta > 0 ? order[0] : order[order.length - 1];
    this.extendTo(next);
    return next;
  }

  /** Ctrl+A: every cell; the active cell stays. */
  selectAll(): void {
    this.all = true;
  }

  /** The selected ids in document order (the active cell alone when nothing is extended). */
  ids(): string[] {
    const order = this.order();
    if (this.all) return order;
    if (this.activeId === null) return [];
    const a = order.indexOf(this.anchorId ?? this.activeId);
    const b = order.indexOf(this.activeId);
    if (b === -1) return [];
    if (a === -1) return [this.activeId];
    return order.slice(Math.min(a, b), Math.max(a, b) + 1);
  }

  get isMulti(): boolean {
    return this.ids().length > 1;
  }

  has(id: string): boolean {
    return this.ids().includes(id);
  }
}

/** The cells Shift+M merges: the selection, or the active cell and the one below it (JupyterLab's
 * mergeCells with one cell selected); null when there is nothing to merge with. */
export function mergeTargets(selected: string[], active: string, order: string[]): string[] | null {
  if (selected.length > 1) return selected;
  const next = order[order.indexOf(active) + 1];
  return next === undefined ? null : [active, next];
}

/** Where a dragged block lands: the index, in the order without the dragged cells, of the gap before
 * `target` (or after it, `after`). Null when the drop would change nothing. */
export function dropIndex(order: string[], dragged: string[], target: string, after: boolean): number | null {
  const moving = new Set(dragged);
  if (moving.has(target)) return null;
  const rest = order.filter((id) => !moving.has(id));
  const index = rest.indexOf(target) + (after ? 1 : 0);
  const result = [...rest.slice(0, index), ...order.filter((id) => moving.has(id)), ...rest.slice(index)];
  return result.every((id, i) => id === order[i]) ? null : index;
}

/** JupyterLab's split points: the cursor of each empty selection range, start and end of the others. */
export function splitOffsets(ranges: { from: number; to: number }[]): number[] {
  const offsets: number[] = [];
  for (const { from, to } of ranges) {
    if (from === to) offsets.push(from);
    else offsets.push(Math.min(from, to), Math.max(from, to));
  }
  return offsets.sort((x, y) => x - y);
}
