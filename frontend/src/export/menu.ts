// "Export" (download or export) in the notebook's toolbar and in the file browser's rows: the notebook as .ipynb,
// a .py script in the percent format, one offline HTML file or a PDF, made by nbconvert on the server
// (GET /api/export). In a notebook the edits typed so far reach the server first, so the export is what
// the page shows, saved or not. "Print…" prints the page itself (styles.css leaves the toolbars out).

import type { Connection } from "../connection";
import { el } from "../dom";
import { registerToolbarItem } from "../kernel-bar";
import { showToast } from "../toast";
import { EXPORT_FORMATS, type ExportFormat, exportUrl, saveFrom } from "./download";
import "./export.css";

export interface ExportMenuOptions {
  /** The notebook's path now (it follows renames). */
  path(): string;
  /** Runs before each export (a notebook sends its pending edits and waits for the server to apply them). */
  before?(): Promise<void>;
  /** Adds "Print…" (the notebook page only). */
  print?: boolean;
  testid?: string;
  className?: string;
  label?: string;
}

function stem(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.endsWith(".ipynb") ? name.slice(0, -".ipynb".length) : name;
}

export async function exportNotebook(path: string, format: ExportFormat, before?: () => Promise<void>): Promise<void> {
  await before?.();
  await saveFrom(exportUrl(path, format), `${stem(path)}.${format}`);
}

/** A button that opens a menu of the export formats (closed by Escape, a click outside or a choice). */
export function exportMenu(options: ExportMenuOptions): HTMLElement {
  const testid = options.testid ?? "export-menu";
  const toggle = el("button", { class: options.className ?? "button", testid, type: "button", title: "Download or export this notebook",
    "aria-haspopup": "menu", "aria-expanded": "false" }, options.label ?? "Export ▾");
  const list = el("div", { class: "export-menu-list", role: "menu", testid: "export-menu-list" });
  list.hidden = true;
  const root = el("span", { class: "export-menu" }, toggle, list);
  const close = () => {
    list.hidden = true;
    toggle.setAttribute("aria-expanded", "false");
    document.removeEventListener("mousedown", outside, true);
  };
  const outside = (event: MouseEvent) => {
    if (!root.contains(event.target as Node)) close();
  };
  const item = (label: string, id: string, run: () => Promise<void> | void) => {
    const entry = el("button", { class: "export-menu-item", role: "menuitem", type: "button", testid: id }, label);
    entry.addEventListener("click", () => {
      close();
      root.dataset.busy = "true";
      toggle.disabled = true;
      Promise.resolve(run())
        .catch((error: unknown) => showToast(`Export failed: ${(error as Error).message}`))
        .finally(() => {
          delete root.dataset.busy;
          toggle.disabled = false;
        });
    });
    return entry;
  };
  for (const { format, label } of EXPORT_FORMATS) {
    list.append(item(label, `export-${format}`, () => exportNotebook(options.path(), format, options.before)));
  }
  if (options.print) list.append(item("Print…", "export-print", () => window.print()));
  toggle.addEventListener("click", () => {
    if (!list.hidden) return close();
    list.hidden = false;
    toggle.setAttribute("aria-expanded", "true");
    document.addEventListener("mousedown", outside, true);
    (list.firstElementChild as HTMLElement | null)?.focus();
  });
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !list.hidden) {
      event.stopPropagation();
      close();
      toggle.focus();
    }
  });
  return root;
}

/** The notebook toolbar's menu: the path is the page's (data-path follows renames). */
function toolbarMenu(connection: Connection): HTMLElement {
  let menu: HTMLElement | null = null;
  const path = () => menu?.closest<HTMLElement>("[data-testid=notebook]")?.dataset.path ?? "";
  const before = async () => {
    // Sends the edits typed so far (the before-send hooks), then waits for the server to have applied them.
    const reply = await connection.request({ type: "ping" });
    if (reply === null) throw new Error("the server cannot be reached");
  };
  menu = exportMenu({ path, before, print: true });
  return menu;
}

registerToolbarItem(toolbarMenu);
