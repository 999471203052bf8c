// The settings panel's Appearance section: Theme (System / Light / Dark) and the editor font size, each
// saved and applied as soon as it changes.

import { el } from "../dom";
import { type Appearance, currentAppearance, FONT_SIZE_RANGE, saveAppearance, type ThemeSetting } from "./appearance";

function row(label: string, input: HTMLElement, hint: string): HTMLElement {
  return el(
    "label",
    { class: "settings-field" },
    el("span", { class: "settings-label" }, label),
    input,
    el("span", { class: "settings-hint" }, hint),
  );
}

export class AppearanceSection {
  readonly element: HTMLElement;
  private readonly theme = el(
    "select",
    { testid: "setting-theme" },
    el("option", { value: "system" }, "System"),
    el("option", { value: "light" }, "Light"),
    el("option", { value: "dark" }, "Dark"),
  );
  private readonly fontSize = el("input", {
    type: "number",
    testid: "setting-editor-font-size",
    min: String(FONT_SIZE_RANGE[0]),
    max: String(FONT_SIZE_RANGE[1]),
    step: "1",
  });
  private readonly error = el("div", { class: "settings-error", testid: "appearance-error", role: "alert" });

  constructor() {
    this.element = el(
      "div",
      { class: "appearance-section", testid: "appearance-section" },
      el("h3", {}, "Appearance"),
      row("Theme", this.theme, "System follows the operating system's light or dark mode"),
      row("Editor font size (px)", this.fontSize, `code and Markdown editors, ${FONT_SIZE_RANGE[0]}–${FONT_SIZE_RANGE[1]}`),
      this.error,
    );
    this.error.hidden = true;
    this.theme.addEventListener("change", () => this.save({ theme: this.theme.value as ThemeSetting }));
    this.fontSize.addEventListener("change", () => this.save({ editor_font_size: Number(this.fontSize.value) }));
    this.refresh();
  }

  /** Show the appearance in effect (call when the panel opens: another tab may have changed it). */
  refresh(): void {
    const { theme, editor_font_size } = currentAppearance();
    this.theme.value = theme;
    this.fontSize.value = String(editor_font_size);
  }

  private save(changes: Partial<Appearance>): void {
    saveAppearance(changes).then(
      () => {
        this.error.hidden = true;
        this.refresh();
      },
      (error: unknown) => {
        this.error.textContent = error instanceof Error ? error.message : String(error);
        this.error.hidden = false;
        this.refresh();
      },
    );
  }
}
