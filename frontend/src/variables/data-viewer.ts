// The data viewer: a DataFrame, Series or 1-D/2-D array of the kernel as a paginated, sortable table.
// Only the page shown travels (`get_data_page`); sorting happens in the kernel (the first pages of a big
// numeric column without sorting all of it; a whole sort is kept for the pages after it). Every cell arrives
// as text and is shown as text (never HTML).

import type { Connection } from "../connection";
import { button, el } from "../dom";
import type { DataPage, GetDataPage } from "../protocol";
import { count, isNumeric, nextSort, pageStart, rangeText } from "./format";

export const PAGE_SIZE = 50;
const SORT_RETRIES = 6;

export class DataViewer {
  private readonly dialog: HTMLDialogElement;
  private readonly title = el("h2", { class: "data-viewer-title", testid: "data-viewer-title" });
  private readonly table = el("table", { class: "data-table", testid: "data-table" });
  private readonly range = el("span", { class: "data-range", testid: "data-range" });
  private readonly status = el("div", { class: "data-status", testid: "data-status", role: "status" });
  private readonly scroller = el("div", { class: "data-scroller" }, this.table);
  private start = 0;
  private total = 0;
  private sort: number | null = null;
  private ascending = true;
  private asked = 0; // the latest request: older answers are dropped

  constructor(private readonly connection: Connection, readonly name: string) {
    const pager = el(
      "div",
      { class: "data-pager" },
      button("⇤", "data-first", "First page (Home)", () => this.go("first"), "button icon-button"),
      button("‹ Prev", "data-prev", "Previous page (Page Up)", () => this.go(-1)),
      this.range,
      button("Next ›", "data-next", "Next page (Page Down)", () => this.go(1)),
      button("⇥", "data-last", "Last page (End)", () => this.go("last"), "button icon-button"),
    );
    this.dialog = el(
      "dialog",
      { class: "data-viewer", testid: "data-viewer", "aria-labelledby": "data-viewer-title" },
      el("div", { class: "data-viewer-header" }, this.title,
        button("×", "close-data-viewer", "Close (Esc)", () => this.close(), "icon-button")),
      this.status,
      this.scroller,
      pager,
    );
    this.title.id = "data-viewer-title";
    this.title.textContent = name;
    this.dialog.addEventListener("keydown", (event) => this.onKey(event));
    this.dialog.addEventListener("close", () => this.dialog.remove());
    document.body.append(this.dialog);
    this.dialog.showModal();
    void this.load();
  }

  close(): void {
    if (this.dialog.open) this.dialog.close();
  }

  get isOpen(): boolean {
    return this.dialog.open;
  }

  private onKey(event: KeyboardEvent): void {
    event.stopPropagation(); // the notebook's command-mode keys stay out of the dialog
    const moves: Record<string, number | "first" | "last"> = { PageDown: 1, PageUp: -1, Home: "first", End: "last" };
    const move = moves[event.key];
    if (move !== undefined && !(event.target instanceof HTMLInputElement)) {
      event.preventDefault();
      this.go(move);
    }
  }

  private go(delta: number | "first" | "last"): void {
    const start = pageStart(this.start, PAGE_SIZE, this.total, delta);
    if (start !== this.start) void this.load(start);
  }

  private async load(start = this.start): Promise<void> {
    const asked = ++this.asked;
    this.dialog.dataset.loading = "true";
    this.status.textContent = this.sort === null ? "Loading…" : "Loading… (the kernel sorts the whole table once per column)";
    const message: GetDataPage = { type: "get_data_page", name: this.name, start, count: PAGE_SIZE, sort: this.sort, ascending: this.ascending };
    let reply = await this.connection.request<DataPage>(message);
    // No answer within the request's 15 s: a first sort of a very large column still running in the kernel.
    // Ask again (a few times): the request queues behind the sort and gets the order the kernel keeps.
    for (let again = 0; !reply && again < SORT_RETRIES && this.connection.state === "open"; again++) {
      if (asked !== this.asked || !this.dialog.open) return;
      this.status.textContent = "Still sorting in the kernel…";
      reply = await this.connection.request<DataPage>(message);
    }
    if (asked !== this.asked || !this.dialog.open) return;
    delete this.dialog.dataset.loading;
    if (!reply || reply.type === "error") {
      this.status.textContent = reply ? reply.message : "No answer from the server";
      this.status.dataset.error = "true";
      return;
    }
    delete this.status.dataset.error;
    this.render(reply as DataPage);
  }

  private render(page: DataPage): void {
    this.start = page.start;
    this.total = page.total;
    const shape = page.type_name === "DataFrame" || page.columns.length > 1
      ? `${count(page.total)} rows × ${count(page.column_count)} columns` : `${count(page.total)} rows`;
    this.title.textContent = `${page.name} — ${page.type_name}, ${shape}`;
    const more = page.column_count > page.columns.length ? ` The first ${count(page.columns.length)} of ${count(page.column_count)} columns are shown.` : "";
    this.status.textContent = more.trim();
    this.range.textContent = rangeText(page.start, page.rows.length, page.total);
    const header = el("tr", {}, this.headerCell(page.index_name ?? "", "", -1, page));
    page.columns.forEach((column, i) => header.append(this.headerCell(column.name, column.dtype, i, page)));
    const numeric = [false, ...page.columns.map((column) => isNumeric(column.dtype))];
    const body = el("tbody", {});
    for (const row of page.rows) {
      const tr = el("tr", { testid: "data-row" });
      row.forEach((cell, i) => tr.append(i === 0 ? el("th", { scope: "row" }, cell)
        : el("td", numeric[i] ? { class: "data-number" } : {}, cell)));
      body.append(tr);
    }
    this.table.replaceChildren(el("thead", {}, header), body);
    this.scroller.scrollTop = 0;
  }

  private headerCell(label: string, dtype: string, column: number, page: DataPage): HTMLElement {
    const sorted = page.sort === column;
    const arrow = sorted ? (page.ascending ? " ▲" : " ▼") : "";
    const what = column === -1 ? "the index" : label;
    const th = el(
      "th",
      { scope: "col", testid: "data-column", class: isNumeric(dtype) ? "data-number" : undefined, "data-column": String(column), title: `Sort by ${what}`,
        "aria-sort": sorted ? (page.ascending ? "ascending" : "descending") : "none" },
      el("span", { class: "data-column-name" }, label + arrow),
      ...(dtype ? [el("span", { class: "data-dtype" }, dtype)] : []),
    );
    th.addEventListener("click", () => {
      ({ sort: this.sort, ascending: this.ascending } = nextSort(this.sort, this.ascending, column));
      void this.load(0);
    });
    return th;
  }
}
