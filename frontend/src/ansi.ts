// ANSI escape sequences (tracebacks, coloured streams) to HTML; ansi_up escapes the text itself.

import { AnsiUp } from "ansi_up";

const converter = new AnsiUp();
converter.use_classes = true;

export function hasAnsi(text: string): boolean {
  return text.includes("\u001b[");
}

/** HTML for `text` with its ANSI colours as classes; any HTML in the text is escaped. */
export function ansiToHtml(text: string): string {
  return converter.ansi_to_html(text);
}
