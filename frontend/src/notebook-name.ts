// The notebook's name in its header: a click turns it into an input; Enter renames the notebook through
// the file browser's API (same rules, same errors, shown here inline), Esc cancels, leaving the field
// commits a changed name.

import * as api from "./api";
import { el } from "./dom";

function split(path: string): { dir: string; name: string } {
  const at = path.lastIndexOf("/");
  return at === -1 ? { dir: "", name: path } : { dir: path.slice(0, at), name: path.slice(at + 1) };
}

export class NotebookName {
  readonly element: HTMLElement;
  private readonly dir: HTMLElement;
  private readonly label: HTMLButtonElement;
  private form: HTMLFormElement | null = null;
  private path: string;

  /** `renamed(path)`: the rename went through; `done()`: editing ended (renamed or not). */
  constructor(
    path: string,
    private readonly renamed: (path: string) => void,
    private readonly done: () => void,
  ) {
    this.path = path;
    this.dir = el("span", { class: "notebook-dir", testid: "notebook-dir" });
    this.label = el("button", { type: "button", class: "notebook-name", testid: "notebook-name" });
    this.label.addEventListener("click", () => this.edit());
    this.element = el("span", { class: "notebook-name-box" }, this.dir, this.label);
    this.set(path);
  }

  /** Show `path` (after a rename here, in another tab or in the file browser). */
  set(path: string): void {
    this.path = path;
    const { dir, name } = split(path);
    this.dir.textContent = dir ? `${dir}/` : "";
    this.label.textContent = name;
    this.label.title = `${path}: click to rename`;
    this.label.setAttribute("aria-label", `Rename ${name}`);
  }

  get editing(): boolean {
    return this.form !== null;
  }

  /** Turn the name into an input, its stem selected (as the file browser does). */
  edit(): void {
    if (this.form) return;
    const { name } = split(this.path);
    const input = el("input", { class: "notebook-name-input", testid: "notebook-name-input", value: name,
      "aria-label": "Notebook name", spellcheck: "false" });
    const error = el("span", { class: "notebook-name-error", testid: "notebook-name-error", role: "alert" });
    error.hidden = true;
    const form = el("form", { class: "notebook-name-form" }, input, error);
    let busy = false;
    const commit = async () => {
      const wanted = input.value.trim();
      if (busy) return;
      if (!wanted || wanted === split(this.path).name) return this.close();
      busy = true;
      try {
        const { path } = await api.rename(this.path, this.join(wanted));
        this.close();
        this.renamed(path);
      } catch (failure) {
        error.textContent = (failure as Error).message;
        error.hidden = false;
        input.setAttribute("aria-invalid", "true");
        input.focus();
      } finally {
        busy = false;
      }
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void commit();
    });
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      this.close();
    });
    input.addEventListener("input", () => {
      error.hidden = true;
      input.removeAttribute("aria-invalid");
    });
    input.addEventListener("blur", () => {
      if (this.form === form && error.hidden) void commit();
    });
    this.form = form;
    this.label.replaceWith(form);
    input.focus();
    const dot = name.lastIndexOf(".");
    input.setSelectionRange(0, dot > 0 ? dot : name.length);
  }

  private join(name: string): string {
    const { dir } = split(this.path);
    return dir ? `${dir}/${name}` : name;
  }

  private close(): void {
    const form = this.form;
    if (!form) return;
    this.form = null;
    form.replaceWith(this.label);
    this.done();
  }
}
