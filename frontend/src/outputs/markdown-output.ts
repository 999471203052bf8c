// text/markdown outputs: rendered and sanitised like Markdown cells.

import { renderMarkdown } from "../markdown";
import { typesetMath } from "../math";
import { joinText } from "./text";
import type { RenderContext } from "./registry";

export function renderMarkdownOutput({ value }: RenderContext): HTMLElement {
  const div = document.createElement("div");
  div.classList.add("markdown-body");
  div.innerHTML = renderMarkdown(joinText(value));
  void typesetMath(div);
  return div;
}
