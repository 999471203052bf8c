// The review of an Ask answer's changes to several cells: each change in its cell, as Edit with AI's diff
// review (editing/review.ts: deleted lines red, new ones green, Keep / Drop per block), with Keep and Drop
// for the cell; Accept all and Reject all in the panel. Nothing changes before Keep or Accept all, each
// one `apply_cell_changes` (one undoable step: `z`). A change to a new cell is reviewed below (or above)
// its neighbour; a deletion shows the whole cell as deleted lines. A cell deleted meanwhile (another tab)
// drops its change and says so; a refused request (a cell changed since) keeps every review open.
// The cells an accepted change modified or added are remembered (`changed()`, for "Run changed cells"),
// each with its text before the change and the question, for its Fix (editing/fix-cause.ts).

import { el } from "../dom";
import type { CellChange, ClientMessage, PlannedChange, ServerMessage } from "../protocol";
import { acceptedChange, noteAcceptedChange } from "../editing/fix-cause";
import { ReviewView } from "../editing/review";

export type Slot = "above" | "in" | "below";

/** What the review needs of the notebook page. */
export interface PlanHost {
  /** This tab's id on the server (the `origin` of the events its own changes cause). */
  clientId(): string;
  /** The cell's text as this tab has it; null when the cell is gone. */
  cellSource(id: string): string | null;
  /** The cell's number (1-based); 0 when it is gone. */
  cellNumber(id: string): number;
  /** The first cell's id (a new cell "at the top" is reviewed above it); null in an empty notebook. */
  firstCell(): string | null;
  /** Where a review at the cell goes: above it, in its place, below it. */
  slot(id: string, where: Slot): HTMLElement | null;
  /** Select the cell in command mode (after Accept all: `z` undoes it there). */
  selectCell(id: string): void;
  send(message: ClientMessage): boolean;
}

let applyRefs = 0;

/** One change under review. */
class ChangeReview {
  readonly element: HTMLElement;
  readonly view: ReviewView;
  /** The cell whose review shows it: the changed cell, or the new cell's neighbour. */
  readonly anchor: string;
  private readonly slot: Slot;

  constructor(readonly change: PlannedChange, readonly original: string, anchor: string, keep: () => void, drop: () => void) {
    this.anchor = anchor;
    this.slot = change.kind !== "insert" ? "in" : change.cell_id === null ? "above" : "below";
    this.view = new ReviewView({ accept: keep, reject: drop, userEdit: () => undefined }, {
      accept: ["Keep cell", "change-keep", "Apply this cell's change as reviewed (Ctrl+Enter)"],
      reject: ["Drop cell", "change-drop", "Drop this cell's change: the cell stays as it is (Esc)"],
    });
    const title = change.kind === "modify" ? "Proposed change to this cell" : change.kind === "delete"
      ? "Proposed: delete this cell" : change.cell_id === null ? "Proposed new cell at the top" : "Proposed new cell below";
    this.element = el("div", { class: "plan-change", testid: "plan-change", "data-kind": change.kind },
      el("div", { class: "plan-change-title" }, title), this.view.element);
    this.element.addEventListener("mousedown", (event) => event.stopPropagation()); // the cell keeps its mode
  }

  show(host: PlanHost): boolean {
    const slot = host.slot(this.anchor, this.slot);
    if (!slot) return false;
    slot.append(this.element);
    this.view.show(this.original, this.change.kind === "delete" ? "" : this.change.source, true);
    this.view.setStatus({ streaming: false, complete: true, summary: "", warning: null, description: null, notice: null });
    if (this.slot === "in") slot.closest(".cell")?.classList.add("plan-reviewing");
    return true;
  }

  close(): void {
    const cell = this.element.closest(".cell");
    this.view.close();
    this.element.remove();
    if (this.slot === "in") cell?.classList.remove("plan-reviewing");
  }

  /** The change as reviewed, for the server; null when it changes nothing. */
  wire(): CellChange | null {
    const text = this.view.text;
    if (this.change.kind === "insert") return text.trim() ? { kind: "insert", after: this.change.cell_id, source: text } : null;
    if (text === this.original) return null;
    const id = this.change.cell_id;
    if (this.change.kind === "delete" && text === "") return { kind: "delete", cell_id: id, expected: this.original };
    return { kind: "modify", cell_id: id, source: text, expected: this.original };
  }
}

/** A request on its way: its ref, the reviews it takes (kept open until the server has it), the cells it
 *  modifies (with their text before) and how many cells it adds. */
interface Applying {
  ref: string;
  reviews: ChangeReview[];
  modified: { id: string; before: string }[];
  inserts: number;
}

export class PlanReview {
  private reviews: ChangeReview[] = [];
  private applying: Applying | null = null;
  /** The question whose answer is under review (the instruction an accepted change carries to its Fix). */
  private question = "";
  /** The cells accepted changes modified or added, in the order accepted; new cells still to come. */
  private accepted: string[] = [];
  private insertsToCome = 0;

  constructor(private readonly host: PlanHost, private readonly onChange: (notice: string | null) => void) {}

  get open(): boolean {
    return this.reviews.length > 0;
  }

  /** The cells accepted changes of this review modified or added (and not deleted since), in notebook
   *  order, without those whose change was undone (their text is back to what it was). */
  changed(): string[] {
    const present = this.accepted.filter((id) => {
      const source = this.host.cellSource(id);
      return source !== null && acceptedChange(id, source) !== null;
    });
    return present.sort((a, b) => this.host.cellNumber(a) - this.host.cellNumber(b));
  }

  /** Some change of this review was accepted (the cells it touched may still be arriving). */
  get anyAccepted(): boolean {
    return this.accepted.length > 0 || this.insertsToCome > 0;
  }

  /** Show each change of the answer to `question` in its cell; what could not be shown is said in the notice. */
  start(changes: readonly PlannedChange[], question: string): void {
    this.closeAll();
    this.question = question;
    this.accepted = [];
    this.insertsToCome = 0;
    const missing: string[] = [];
    for (const change of changes) {
      const anchor = change.cell_id ?? this.host.firstCell();
      const original = change.kind === "insert" ? "" : change.cell_id !== null ? this.host.cellSource(change.cell_id) : null;
      if (anchor === null || original === null) {
        missing.push(change.cell_id ?? "the top");
        continue;
      }
      const review: ChangeReview = new ChangeReview(change, original, anchor, () => this.apply([review]), () => this.drop(review));
      if (review.show(this.host)) this.reviews.push(review);
      else missing.push(anchor);
    }
    this.onChange(missing.length ? `Some changes name cells that are gone (${missing.join(", ")}): they were left out.` : null);
  }

  acceptAll(): void {
    this.apply([...this.reviews]);
  }

  rejectAll(): void {
    this.closeAll();
    this.onChange(null);
  }

  /** A server message: a reviewed cell deleted (another tab), our request refused or done. */
  handle(message: ServerMessage): void {
    if (message.type === "error" && this.applying && message.ref === this.applying.ref) {
      this.applying = null;
      this.onChange(`Nothing was changed: ${message.message}`);
      return;
    }
    if (message.type === "snapshot") {
      this.applying = null; // the socket dropped: whether it arrived is not known; the reviews stay
      this.insertsToCome = 0;
    }
    const ours = "origin" in message && message.origin === this.host.clientId();
    if (ours && this.applying && ["cells_deleted", "cell_inserted", "sources_replaced"].includes(message.type)) {
      const done = this.applying.reviews;
      this.remember(this.applying);
      if (message.type === "cell_inserted") this.noteInserted(message.cell.id);
      this.applying = null;
      for (const review of done) this.remove(review);
      const first = done.find((review) => this.host.cellSource(review.anchor) !== null);
      if (first) this.host.selectCell(first.anchor);
      this.onChange(null);
      return;
    }
    if (ours && message.type === "cell_inserted" && this.insertsToCome > 0) this.noteInserted(message.cell.id);
    if (message.type === "cells_deleted" || message.type === "cells_replaced" || message.type === "snapshot") {
      queueMicrotask(() => this.dropGone(ours)); // once the page has taken the message (its cells are gone)
    }
  }

  /** Drop the reviews whose cell is gone. */
  private dropGone(ours: boolean): void {
    const gone = this.reviews.filter((review) => this.host.cellSource(review.anchor) === null);
    for (const review of gone) this.remove(review);
    if (gone.length && !ours) this.onChange("A reviewed cell was deleted in another tab: its change was dropped.");
  }

  /** An applied request's cells: modified ones now, new ones as their `cell_inserted` events come. */
  private remember(applied: Applying): void {
    for (const { id, before } of applied.modified) {
      noteAcceptedChange(id, { before, instruction: this.question });
      if (!this.accepted.includes(id)) this.accepted.push(id);
    }
    this.insertsToCome += applied.inserts;
  }

  private noteInserted(id: string): void {
    this.insertsToCome -= 1;
    noteAcceptedChange(id, { before: "", instruction: this.question });
    this.accepted.push(id);
  }

  private apply(reviews: ChangeReview[]): void {
    if (this.applying) return;
    const wired = reviews.flatMap((review) => {
      const change = review.wire();
      return change ? [{ review, change }] : [];
    });
    if (wired.length === 0) {
      for (const review of reviews) this.remove(review);
      this.onChange(null);
      return;
    }
    const ref = `apply${++applyRefs}`;
    if (!this.host.send({ type: "apply_cell_changes", ref, changes: wired.map(({ change }) => change) })) {
      this.onChange("Not connected to the server: nothing was changed.");
      return;
    }
    const modified = wired.flatMap(({ review, change }) =>
      change.kind === "modify" && change.cell_id ? [{ id: change.cell_id, before: review.original }] : []);
    this.applying = { ref, reviews, modified, inserts: wired.filter(({ change }) => change.kind === "insert").length };
  }

  private drop(review: ChangeReview): void {
    this.remove(review);
    this.onChange(null);
  }

  private remove(review: ChangeReview): void {
    review.close();
    this.reviews = this.reviews.filter((r) => r !== review);
  }

  private closeAll(): void {
    for (const review of this.reviews) review.close();
    this.reviews = [];
    this.applying = null;
  }
}
