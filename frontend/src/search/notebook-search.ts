// Find and replace across the whole notebook (JupyterLab's documentsearch on a notebook): one bar for
// every cell's source and, on request, its outputs (read-only). Keys, as JupyterLab's
// packages/documentsearch-extension/schema/plugin.json binds them: Ctrl+F opens (in a cell editor too:
// it replaces CodeMirror's own per-cell panel), Ctrl+G / Ctrl+Shift+G next / previous, Esc closes; F3 /
// Shift+F3 as browsers do; Ctrl+H opens with the replace field (JupyterLab's
// `documentsearch:startWithReplace`). Replace All is one `replace_sources` operation, undone in one
// step by the bar's "Undo replace all" or Ctrl+Z in command mode.

import type { SearchQuery } from "@codemirror/search";
import type { EditorView } from "@codemirror/view";
import { EditorView as View } from "@codemirror/view";
import { registerEditorExtension } from "../editor";
import { isTextTarget } from "../keyboard";
import { showToast } from "../toast";
import { SearchBar } from "./bar";
import { currentMarks, searchMarks, setSearchMarks } from "./highlight";
import { clearOutputMatches, outputMatches, paintOutputMatches } from "./outputs";
import { compile, findMatches, MAX_MATCHES_PER_TEXT, replaceAll, replacementFor } from "./query";

/** One cell as the search sees it. */
export interface SearchCell {
  id: string;
  editor: EditorView;
  /** The rendered outputs (searched when "Search outputs" is on). */
  outputs: HTMLElement;
  /** A markdown cell showing its rendering instead of its source. */
  isRendered: boolean;
  /** Show the source of a rendered markdown (or hidden-source) cell, without focusing it. */
  reveal(): void;
  /** Render the markdown again (the search moved on from a cell it revealed). */
  render(): void;
}

export interface SearchHost {
  /** The cells, in notebook order. */
  cells(): SearchCell[];
  /** Is the cell being edited (selected in edit mode)? A revealed cell being edited stays open. */
  isEditing(id: string): boolean;
  /** Send one `replace_sources`; false when it could not go out. */
  replaceSources(changes: { cell_id: string; source: string }[]): boolean;
}

interface Found {
  cell: string;
  /** Notebook order: 2 × cell index, +1 for an output match (after the cell's source). */
  order: number;
  kind: "source" | "output";
  from: number;
  to: number;
  range?: Range;
}

interface ReplaceRecord {
  changes: { cell_id: string; before: string; after: string }[];
}

function before(a: { order: number; from: number }, b: { order: number; from: number }): boolean {
  return a.order < b.order || (a.order === b.order && a.from < b.from);
}

/** The search that handles the keys now (the notebook page's; null elsewhere). */
let active: NotebookSearch | null = null;

// Every editor shows the search's marks and tells the search when its text changes.
registerEditorExtension(() => [
  searchMarks(),
  View.updateListener.of((update) => {
    if (update.docChanged) active?.changed();
  }),
]);

export class NotebookSearch {
  readonly bar: SearchBar;
  private matches: Found[] = [];
  private current = -1;
  /** Where focus was when the bar opened (Esc returns there). */
  private opener: HTMLElement | null = null;
  private revealed = new Set<string>();
  private undo: ReplaceRecord | null = null;
  private timer: number | undefined;
  private readonly onKey = (event: KeyboardEvent) => this.key(event);

  constructor(private readonly host: SearchHost) {
    this.bar = new SearchBar({
      changed: () => this.refresh("query"),
      next: () => this.move(1),
      previous: () => this.move(-1),
      replaceOne: () => this.replaceOne(),
      replaceAll: () => this.replaceAll(),
      undoReplaceAll: () => this.undoReplaceAll(),
      close: () => this.close(),
    });
    active = this;
    document.addEventListener("keydown", this.onKey, true); // before CodeMirror's own keymaps
  }

  get isOpen(): boolean {
    return !this.bar.element.hidden;
  }

  dispose(): void {
    document.removeEventListener("keydown", this.onKey, true);
    if (active === this) active = null;
  }

  /** Ctrl+F and friends, wherever the focus is on the notebook page (capture phase). */
  private key(event: KeyboardEvent): void {
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    let handled = true;
    if (mod && !event.altKey && !event.shiftKey && key === "f") this.open(false);
    else if (mod && !event.altKey && !event.shiftKey && key === "h") this.open(true);
    else if ((mod && !event.altKey && key === "g") || (event.key === "F3" && !mod && !event.altKey)) {
      if (!this.isOpen || !this.bar.input.value) this.open(false);
      else this.move(event.shiftKey ? -1 : 1);
    } else if (mod && !event.altKey && !event.shiftKey && key === "z" && this.undo && !isTextTarget(event.target)) {
      // Command mode, right after a Replace All (its cells unchanged since): undo it; else the key is not ours.
      if (this.undoable()) this.undoReplaceAll();
      else {
        this.forgetUndo();
        handled = false;
      }
    } else if (event.key === "Escape" && this.isOpen && !isTextTarget(event.target)) {
      this.close(); // command mode with the bar open: Esc ends the search, as JupyterLab's documentsearch:end
    } else handled = false;
    if (!handled) return;
    event.preventDefault();
    event.stopPropagation();
  }

  /** Open the bar (or focus it again), prefilled with the editor's selected text when it is one line. */
  open(withReplace: boolean): void {
    const focused = document.activeElement;
    if (!this.isOpen) {
      this.opener = focused instanceof HTMLElement && !this.bar.element.contains(focused) ? focused : null;
      const selected = this.selectedText();
      if (selected) this.bar.input.value = selected;
      this.bar.element.hidden = false;
      this.refresh("open");
    } else {
      const selected = this.bar.element.contains(focused) ? "" : this.selectedText();
      if (selected && selected !== this.bar.input.value) {
        this.bar.input.value = selected;
        this.refresh("query");
      }
    }
    if (withReplace) this.bar.showReplace(true);
    const field = withReplace && this.bar.input.value ? this.bar.replaceInput : this.bar.input;
    field.focus();
    field.select();
  }

  private selectedText(): string {
    const editor = this.host.cells().find((cell) => cell.editor.hasFocus)?.editor;
    if (!editor) return "";
    const { from, to } = editor.state.selection.main;
    const text = editor.state.sliceDoc(from, to);
    return text.includes("\n") ? "" : text;
  }

  /** Esc: close, clear every mark, and put the focus back where it was. */
  close(): void {
    if (!this.isOpen) return;
    this.bar.element.hidden = true;
    window.clearTimeout(this.timer);
    this.timer = undefined;
    this.matches = [];
    this.current = -1;
    for (const cell of this.host.cells()) {
      if (currentMarks(cell.editor.state).query) cell.editor.dispatch({ effects: setSearchMarks.of({ query: null, current: null }) });
    }
    clearOutputMatches();
    this.rerenderRevealed(null);
    const opener = this.opener;
    this.opener = null;
    if (opener?.isConnected) opener.focus({ preventScroll: true });
  }

  /** Something in the notebook changed (an edit here or in another tab, outputs, cells): count again soon. */
  changed(): void {
    if (!this.isOpen || this.timer !== undefined) return;
    this.timer = window.setTimeout(() => {
      this.timer = undefined;
      if (this.isOpen) this.refresh("edit");
    }, 60);
  }

  /**
   * Find every match again. `query`: the query changed, so the current match is the first one at or
   * after the old current one (or the selected editor's cursor); `edit`: the same match stays current
   * when it is still there, else the next one; `open`: as `query`.
   */
  private refresh(why: "open" | "query" | "edit", anchor?: { order: number; from: number }): void {
    if (!this.isOpen) return;
    const compiled = compile(this.bar.options);
    const cells = this.host.cells();
    const previous = this.matches[this.current];
    const found: Found[] = [];
    let capped = false;
    if (compiled.query) {
      const query = compiled.query;
      cells.forEach((cell, index) => {
        const sources = findMatches(cell.editor.state.doc, query);
        capped ||= sources.length >= MAX_MATCHES_PER_TEXT;
        for (const { from, to } of sources) found.push({ cell: cell.id, order: 2 * index, kind: "source", from, to });
        if (!this.bar.searchOutputs) return;
        outputMatches(cell.outputs, query).forEach((range, at) => {
          found.push({ cell: cell.id, order: 2 * index + 1, kind: "output", from: at, to: at, range });
        });
      });
    }
    this.matches = found;
    const start = anchor ?? (previous && why !== "open" ? { order: previous.order, from: previous.from } : this.cursorAnchor(cells));
    let current = found.findIndex((m) => !before(m, start));
    if (why === "edit" && previous && anchor === undefined) {
      const same = found.findIndex((m) => m.cell === previous.cell && m.kind === previous.kind && m.from === previous.from);
      if (same !== -1) current = same;
    }
    this.current = found.length ? (current === -1 ? 0 : current) : -1;
    this.bar.setCount(this.current, found.length, compiled.error ?? null, capped);
    this.paint(compiled.query ?? null, cells, why !== "edit");
  }

  /** Where a new search starts: the cursor of the editor that has (or had) the focus, else the top. */
  private cursorAnchor(cells: SearchCell[]): { order: number; from: number } {
    const index = cells.findIndex((cell) => cell.editor.hasFocus || (this.opener !== null && cell.editor.dom.contains(this.opener)));
    if (index !== -1) return { order: 2 * index, from: cells[index]!.editor.state.selection.main.from };
    const selected = cells.findIndex((cell) => this.opener !== null && this.opener.closest("[data-cell-id]")?.getAttribute("data-cell-id") === cell.id);
    return { order: 2 * Math.max(selected, 0), from: 0 };
  }

  /** Mark every match, the current one apart; `reveal`: scroll to it (and open a rendered markdown cell). */
  private paint(query: SearchQuery | null, cells: SearchCell[], reveal: boolean): void {
    const current = this.matches[this.current];
    if (current?.kind === "source" && reveal) this.revealCell(cells.find((cell) => cell.id === current.cell));
    this.rerenderRevealed(current?.kind === "source" ? current.cell : null);
    for (const cell of cells) {
      const here = current && current.kind === "source" && current.cell === cell.id ? { from: current.from, to: current.to } : null;
      const shown = currentMarks(cell.editor.state);
      const same = shown.query === query || (shown.query !== null && query !== null && shown.query.eq(query));
      if (same && shown.current?.from === here?.from && shown.current?.to === here?.to) continue;
      cell.editor.dispatch({ effects: setSearchMarks.of({ query, current: here }) });
    }
    paintOutputMatches(this.matches.flatMap((m) => (m.range ? [m.range] : [])), current?.range ?? null);
    if (!reveal || !current) return;
    if (current.range) {
      current.range.startContainer.parentElement?.scrollIntoView({ block: "center", inline: "nearest" });
      return;
    }
    const editor = cells.find((cell) => cell.id === current.cell)?.editor;
    editor?.dispatch({ selection: { anchor: current.from, head: current.to }, effects: View.scrollIntoView(current.from, { y: "center" }) });
  }

  private revealCell(cell: SearchCell | undefined): void {
    if (!cell) return;
    if (cell.isRendered) this.revealed.add(cell.id);
    cell.reveal();
  }

  /** Render again the markdown cells the search opened, except `keep` and any being edited. */
  private rerenderRevealed(keep: string | null): void {
    if (!this.revealed.size) return;
    const cells = new Map(this.host.cells().map((cell) => [cell.id, cell]));
    for (const id of [...this.revealed]) {
      if (id === keep) continue;
      this.revealed.delete(id);
      if (!this.host.isEditing(id)) cells.get(id)?.render();
    }
  }

  /** Next (+1) or previous (-1) match, round the notebook. */
  move(delta: 1 | -1): void {
    if (!this.isOpen) return;
    if (!this.matches.length) {
      this.refresh("query");
      return;
    }
    this.current = (this.current + delta + this.matches.length) % this.matches.length;
    const compiled = compile(this.bar.options);
    this.bar.setCount(this.current, this.matches.length, null, false);
    this.paint(compiled.query ?? null, this.host.cells(), true);
  }

  /** Replace the current match (an ordinary edit of its cell: Ctrl+Z in the cell undoes it) and go on. */
  private replaceOne(): void {
    const compiled = compile(this.bar.options);
    const current = this.matches[this.current];
    if (!compiled.query || !current) return;
    if (current.kind === "output") {
      this.bar.setStatus("Outputs are read-only");
      this.move(1);
      return;
    }
    const cells = this.host.cells();
    const index = cells.findIndex((cell) => cell.id === current.cell);
    const editor = cells[index]?.editor;
    if (!editor || editor.state.readOnly) return;
    const match = findMatches(editor.state.doc, compiled.query).find((m) => m.from === current.from && m.to === current.to);
    if (!match) return this.refresh("edit");
    const insert = replacementFor(this.bar.replacement, match);
    editor.dispatch({
      changes: { from: match.from, to: match.to, insert },
      selection: { anchor: match.from + insert.length },
      userEvent: "input.replace",
    });
    this.bar.setStatus("");
    this.refresh("edit", { order: 2 * index, from: match.from + insert.length });
  }

  /** Replace every source match in the notebook as ONE operation (one revision, one undo). */
  private replaceAll(): void {
    const compiled = compile(this.bar.options);
    if (!compiled.query) return;
    const record: ReplaceRecord = { changes: [] };
    let count = 0;
    for (const cell of this.host.cells()) {
      if (cell.editor.state.readOnly) continue;
      const source = cell.editor.state.doc.toString();
      const replaced = replaceAll(source, compiled.query, this.bar.replacement);
      if (!replaced.count || replaced.text === source) continue;
      count += replaced.count;
      record.changes.push({ cell_id: cell.id, before: source, after: replaced.text });
    }
    if (!record.changes.length) {
      this.bar.setStatus("Nothing to replace");
      return;
    }
    if (!this.host.replaceSources(record.changes.map((c) => ({ cell_id: c.cell_id, source: c.after })))) return;
    this.undo = record;
    this.bar.setUndo(true);
    const cells = record.changes.length;
    this.bar.setStatus(`Replaced ${count} ${count === 1 ? "match" : "matches"} in ${cells} ${cells === 1 ? "cell" : "cells"}`);
  }

  /** Every cell the last Replace All changed still holds its replacement (or, before the server's echo,
   * its old text: the server applies the undo after the replacement, in order). */
  private undoable(): boolean {
    if (!this.undo) return false;
    const sources = new Map(this.host.cells().map((cell) => [cell.id, cell.editor.state.doc.toString()]));
    return this.undo.changes.every((change) => {
      const now = sources.get(change.cell_id);
      return now !== undefined && (now === change.after || now === change.before);
    });
  }

  private forgetUndo(): void {
    this.undo = null;
    this.bar.setUndo(false);
  }

  /** Put back every cell the last Replace All changed, in one operation (only if none changed since). */
  undoReplaceAll(): void {
    const record = this.undo;
    if (!record) return;
    const ok = this.undoable();
    this.forgetUndo();
    if (!ok) {
      showToast("Cannot undo Replace All: some of its cells were changed or deleted since");
      return;
    }
    if (this.host.replaceSources(record.changes.map((c) => ({ cell_id: c.cell_id, source: c.before })))) {
      this.bar.setStatus("Replace All undone");
    }
  }

}
