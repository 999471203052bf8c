// The settings panel's Appearance section: Theme (System / Light / Dark) and the editor font size, each
// saved and applied as soon as it changes.

import { el } from "../dom";
import { type Appearance, currentAppearance, FONT_SIZE_RANGE, saveAppearance, type ThemeSetting } from "./appearance";

/** How the settings panel lays out a labelled input with its hint. */
export type Field = (label: string, input: HTMLElement, hint: string) => HTMLElement;

const THEMES: [ThemeSetting, string][] = [["system", "System"], ["light", "Light"], ["dark", "Dark"]];

export class AppearanceSection {
  readonly element: HTMLElement;
  private readonly theme = el("select", { testid: "setting-theme" },
    ...THEMES.map(([value, label]) => el("option", { value }, label)));
  private readonly fontSize = el("input", { type: "number", testid: "setting-editor-font-size", step: "1",
    min: String(FONT_SIZE_RANGE[0]), max: String(FONT_SIZE_RANGE[1]) });
  private readonly error = el("div", { class: "settings-error", testid: "appearance-error", role: "alert" });

  constructor(field: Field) {
    this.element = el(
      "div",
      { class: "appearance-section", testid: "appearance-section" },
      el("h3", {}, "Appearance"),
      field("Theme", this.theme, "System follows the operating system's light or dark mode"),
      field("Editor font size (px)", this.fontSize, `code and Markdown editors, ${FONT_SIZE_RANGE[0]}–${FONT_SIZE_RANGE[1]}`),
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
