// The "File Changed" bar: the notebook's file changed on disk (a `git pull`, another editor) since this
// session opened or saved it. JupyterLab asks in a dialog (docregistry's context.ts, `_raiseConflict`); here
// it is a bar at the top of the notebook in every tab, not modal: typing goes on, and the server keeps it
// (nothing is saved over the file) until someone chooses Revert or Overwrite.

import { el } from "../dom";
import type { SaveInfo } from "../protocol";
import "./file-changed.css";

export type FileChangeChoice = "overwrite" | "revert";

/** JupyterLab's words for it. */
export function fileChangedText(path: string): string {
  return `"${path}" has changed on disk since the last time it was opened or saved. ` +
    "Do you want to overwrite the file on disk with the version open here, or load the version on disk (revert)?";
}

export class FileChangedBar {
  readonly element: HTMLElement;
  private readonly text: HTMLElement;
  private readonly buttons: HTMLButtonElement[];

  /** `choose` sends the choice; false when it could not go out (the buttons stay usable then). */
  constructor(choose: (choice: FileChangeChoice) => boolean) {
    this.text = el("span", { class: "file-changed-text", testid: "file-changed-text" });
    const choice = (label: string, value: FileChangeChoice, title: string): HTMLButtonElement => {
      const b = el("button", { type: "button", class: `file-changed-${value}`, testid: `file-changed-${value}`, title }, label);
      b.addEventListener("mousedown", (event) => event.preventDefault()); // the editor keeps the focus
      b.addEventListener("click", () => {
        if (choose(value)) this.setBusy(true); // until the server answers (save_status or a snapshot)
      });
      return b;
    };
    this.buttons = [
      choice("Revert", "revert", "Load the version on disk (the kernel keeps running)"),
      choice("Overwrite", "overwrite", "Save the version open here over the file on disk"),
    ];
    this.element = el(
      "div",
      { class: "file-changed-bar", testid: "file-changed-bar", role: "alert" },
      el("strong", {}, "File Changed"),
      this.text,
      el("span", { class: "file-changed-buttons" }, ...this.buttons),
    );
    this.element.hidden = true;
  }

  get visible(): boolean {
    return !this.element.hidden;
  }

  /** Shown while the server says the file changed on disk (save status "conflict"), hidden otherwise. */
  follow(save: SaveInfo, path: string): void {
    if (save.status === "conflict") this.show(path);
    else this.element.hidden = true;
  }

  show(path: string): void {
    this.text.textContent = ` ${fileChangedText(path)}`;
    this.setBusy(false);
    this.element.hidden = false;
  }

  private setBusy(busy: boolean): void {
    for (const b of this.buttons) b.disabled = busy;
  }
}
