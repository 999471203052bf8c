// The file browser: folders, notebooks and files under ROOT; open, create, rename (inline), delete (with an
// inline confirmation), download, export a notebook, upload (export/upload.ts).

import * as api from "./api";
import { button, el } from "./dom";
import { fileUrl, saveFrom } from "./export/download";
import { exportMenu, exportNotebook } from "./export/menu";
import { installUpload } from "./export/upload";
import { icon } from "./icons";
import { showToast } from "./toast";

export function notebookUrl(path: string): string {
  return `/notebooks/${path.split("/").map(encodeURIComponent).join("/")}`;
}

export function treeUrl(dir: string): string {
  return dir ? `/tree/${dir.split("/").map(encodeURIComponent).join("/")}` : "/";
}

function joinPath(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

function formatSize(size: number | null): string {
  if (size == null) return "";
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

function formatModified(value: string | number | null): string {
  if (value == null) return "";
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

export class FileBrowser {
  private readonly root: HTMLElement;
  private readonly list: HTMLElement;
  private readonly crumbs: HTMLElement;
  private uploadLimit: number | null = null;

  constructor(
    container: HTMLElement,
    private readonly dir: string,
  ) {
    document.title = `${dir || "Files"} – Ghostbook`;
    this.crumbs = el("nav", { class: "breadcrumbs", testid: "breadcrumbs" });
    this.list = el("ul", { class: "file-list", testid: "file-list" });
    const actions = el(
      "div",
      { class: "browser-actions" },
      button("+ Notebook", "new-notebook", "Create a notebook here", () => void this.createNotebook()),
      button("+ Folder", "new-folder", "Create a folder here", () => void this.createFolder()),
    );
    this.root = el(
      "div",
      { class: "file-browser", testid: "file-browser", "data-path": dir },
      el("header", { class: "browser-header" }, el("span", { class: "logo" }, icon("ghost", 18), " Ghostbook"), this.crumbs, actions),
      this.list,
    );
    actions.append(installUpload(this.root, { dir, limit: () => this.uploadLimit, done: () => this.refresh() }));
    container.replaceChildren(this.root);
    this.renderCrumbs();
    void this.refresh();
  }

  private renderCrumbs(): void {
    const parts = this.dir ? this.dir.split("/") : [];
    const links: (Node | string)[] = [el("a", { href: "/", testid: "crumb" }, "Files")];
    parts.forEach((part, i) => {
      links.push(" / ", el("a", { href: treeUrl(parts.slice(0, i + 1).join("/")), testid: "crumb" }, part));
    });
    this.crumbs.replaceChildren(...links);
  }

  async refresh(): Promise<void> {
    let listing: api.Listing;
    try {
      listing = await api.listDir(this.dir);
    } catch (error) {
      this.list.replaceChildren(el("li", { class: "browser-error", testid: "browser-error" }, String((error as Error).message)));
      return;
    }
    this.uploadLimit = listing.max_upload_bytes ?? null;
    const rows: HTMLElement[] = [];
    if (this.dir) {
      const up = this.dir.includes("/") ? this.dir.slice(0, this.dir.lastIndexOf("/")) : "";
      rows.push(el("li", { class: "file-entry parent" }, el("a", { href: treeUrl(up), testid: "parent-folder", class: "entry-link" }, icon("folder"), " ..")));
    }
    for (const entry of listing.entries) rows.push(this.renderEntry(entry));
    if (!listing.entries.length) rows.push(el("li", { class: "empty", testid: "empty-folder" }, "Nothing here yet: create a notebook, or drop files here to upload them."));
    this.list.replaceChildren(...rows);
    this.root.dataset.loaded = "true";
  }

  private renderEntry(entry: api.Entry): HTMLElement {
    const isDir = entry.type === "directory";
    const isFile = entry.type === "file";
    const href = isDir ? treeUrl(entry.path) : isFile ? fileUrl(entry.path) : notebookUrl(entry.path);
    const link = el(
      "a",
      { class: "entry-link", testid: "entry-link", href, download: isFile ? entry.name : undefined },
      icon(isDir ? "folder" : isFile ? "file" : "notebook"),
      ` ${entry.name}`,
    );
    const row = el(
      "li",
      { class: "file-entry", testid: "file-entry", "data-path": entry.path, "data-type": entry.type },
      link,
      el("span", { class: "entry-meta" }, isDir ? "" : formatSize(entry.size)),
      el("span", { class: "entry-meta" }, formatModified(entry.modified)),
    );
    const download = () =>
      entry.type === "notebook" ? exportNotebook(entry.path, "ipynb") : saveFrom(fileUrl(entry.path), entry.name);
    const transfer: HTMLElement[] = isDir
      ? []
      : [button("Download", "download-entry", `Download ${entry.name}`, () => {
          download().catch((error: unknown) => showToast(`Download failed: ${(error as Error).message}`));
        }, "small-button")];
    if (entry.type === "notebook") {
      transfer.push(exportMenu({ path: () => entry.path, testid: "export-entry", className: "small-button", label: "Export ▾" }));
    }
    const tools = el(
      "span",
      { class: "entry-tools" },
      ...transfer,
      button("Rename", "rename-entry", `Rename ${entry.name}`, () => this.startRename(row, entry), "small-button"),
      button("Delete", "delete-entry", `Delete ${entry.name}`, () => this.confirmDelete(row, tools, entry), "small-button danger"),
    );
    row.appendChild(tools);
    return row;
  }

  private startRename(row: HTMLElement, entry: api.Entry): void {
    const input = el("input", { class: "rename-input", testid: "rename-input", value: entry.name, "aria-label": "New name" });
    const commit = async () => {
      const name = input.value.trim();
      if (!name || name === entry.name) return void this.refresh();
      try {
        await api.rename(entry.path, joinPath(this.dir, name));
      } catch (error) {
        showToast((error as Error).message);
      }
      void this.refresh();
    };
    const form = el(
      "form",
      { class: "rename-form" },
      input,
      el("button", { class: "small-button", testid: "rename-confirm", type: "submit" }, "OK"),
      button("Cancel", "rename-cancel", "Cancel", () => void this.refresh(), "small-button"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void commit();
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") void this.refresh();
    });
    row.replaceChildren(form);
    input.focus();
    const dot = entry.type === "notebook" ? entry.name.lastIndexOf(".") : -1;
    input.setSelectionRange(0, dot > 0 ? dot : entry.name.length);
  }

  private confirmDelete(row: HTMLElement, tools: HTMLElement, entry: api.Entry): void {
    const confirm = el(
      "span",
      { class: "entry-tools confirm" },
      `Delete ${entry.name}?`,
      button("Delete", "confirm-delete", "Confirm delete", async () => {
        try {
          await api.remove(entry.path);
        } catch (error) {
          showToast((error as Error).message);
        }
        void this.refresh();
      }, "small-button danger"),
      button("Cancel", "cancel-delete", "Cancel", () => void this.refresh(), "small-button"),
    );
    row.replaceChild(confirm, tools);
  }

  private async createNotebook(): Promise<void> {
    try {
      const { path } = await api.create(this.dir, "notebook");
      location.assign(notebookUrl(path));
    } catch (error) {
      showToast((error as Error).message);
    }
  }

  private async createFolder(): Promise<void> {
    try {
      await api.create(this.dir, "directory");
      await this.refresh();
    } catch (error) {
      showToast((error as Error).message);
    }
  }
}
