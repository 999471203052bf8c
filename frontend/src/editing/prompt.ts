// The inline prompt under a cell (Ctrl+K or the cell's "Edit with AI" button): one input; Enter sends
// the instruction, Esc closes (and stops a request on its way).

import { button, el } from "../dom";

export interface PromptHandlers {
  submit(instruction: string): void;
  close(): void;
}

export class PromptBox {
  readonly element: HTMLElement;
  readonly input: HTMLInputElement;
  private readonly status: HTMLElement;

  constructor(handlers: PromptHandlers) {
    this.input = el("input", {
      type: "text",
      class: "edit-prompt-input",
      testid: "edit-prompt",
      placeholder: "Edit with AI: say what to change (Enter sends, Esc closes)",
      "aria-label": "Edit with AI: instruction",
      maxlength: "4000",
      spellcheck: "false",
      autocomplete: "off",
    });
    this.status = el("span", { class: "edit-prompt-status", testid: "edit-status", role: "status" });
    const close = button("×", "edit-prompt-close", "Close (Esc)", () => handlers.close(), "icon-button");
    this.element = el("div", { class: "edit-prompt-box", testid: "edit-prompt-box" }, el("span", { class: "edit-spark" }, "✦"), this.input, this.status, close);
    this.input.addEventListener("keydown", (event) => {
      if (event.isComposing) return;
      if (event.key === "Enter" && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        event.stopPropagation();
        handlers.submit(this.input.value);
      } else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        handlers.close();
      }
    });
  }

  /** Show the prompt with a hint of what it will rewrite. */
  show(hint: string, instruction?: string): void {
    this.element.hidden = false;
    if (instruction !== undefined) this.input.value = instruction;
    this.setBusy(false, hint);
  }

  hide(): void {
    this.element.hidden = true;
  }

  get visible(): boolean {
    return !this.element.hidden;
  }

  /** While a request is on its way the input stays (Esc stops it), with a note that it is. */
  setBusy(busy: boolean, text: string): void {
    this.element.dataset.busy = String(busy);
    this.input.readOnly = busy;
    this.status.textContent = text;
  }

  focus(): void {
    this.input.focus();
    this.input.select();
  }
}
