// The client's copy of the notebook: an ordered list of cells kept in step with server events.
// The server is the source of truth; this only mirrors what it says (plus local render flags).

import type { Attachments, Cell, CellState, CellType, KernelInfo, KernelSpecInfo, Output, SaveInfo, Snapshot } from "./protocol";

export interface CellModel {
  id: string;
  type: CellType;
  source: string;
  outputs: Output[];
  executionCount: number | null;
  state: CellState;
  metadata?: Record<string, unknown>;
  attachments?: Attachments;
}

export function cellFromWire(cell: Cell): CellModel {
  return {
    id: cell.id,
    type: cell.cell_type,
    source: cell.source,
    outputs: cell.outputs ?? [],
    executionCount: cell.execution_count ?? null,
    state: cell.state ?? "idle",
    metadata: cell.metadata ?? {},
    attachments: cell.attachments ?? {},
  };
}

export class NotebookState {
  clientId = "";
  revision = 0;
  path = "";
  cells: CellModel[] = [];
  kernel: KernelInfo = { status: "starting", name: "", display_name: "", reason: null, can_install: false };
  kernelspecs: KernelSpecInfo[] = [];
  save: SaveInfo = { status: "saved", message: null };

  load(snapshot: Snapshot): void {
    this.clientId = snapshot.client_id;
    this.revision = snapshot.revision;
    this.path = snapshot.path;
    this.cells = snapshot.notebook.cells.map(cellFromWire);
    this.kernel = snapshot.kernel;
    this.kernelspecs = snapshot.kernelspecs;
    this.save = snapshot.save;
  }

  indexOf(id: string): number {
    return this.cells.findIndex((cell) => cell.id === id);
  }

  get(id: string): CellModel | undefined {
    return this.cells.find((cell) => cell.id === id);
  }

  insert(index: number, cell: CellModel): number {
    const at = Math.max(0, Math.min(index, this.cells.length));
    this.cells.splice(at, 0, cell);
    return at;
  }

  remove(id: string): number {
    const index = this.indexOf(id);
    if (index !== -1) this.cells.splice(index, 1);
    return index;
  }

  /** Put the cells in `order` (ids it does not name keep their place after those it does). */
  reorder(order: string[]): void {
    const rank = new Map(order.map((id, i) => [id, i]));
    const known = this.cells.filter((cell) => rank.has(cell.id)).sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
    this.cells = [...known, ...this.cells.filter((cell) => !rank.has(cell.id))];
  }

  /** Move a cell so that it ends up at `index`; returns the final index or -1. */
  move(id: string, index: number): number {
    const from = this.indexOf(id);
    if (from === -1) return -1;
    const [cell] = this.cells.splice(from, 1);
    const to = Math.max(0, Math.min(index, this.cells.length));
    this.cells.splice(to, 0, cell);
    return to;
  }
}
