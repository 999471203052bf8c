// `text/latex` outputs (sympy's `$\displaystyle …$`, `$$…$$`, `\begin{equation}…`, `\[…\]`): the math
// typeset with KaTeX (loaded on first use, see ../math.ts), any prose around it kept as text.

import { splitMath, typesetMath } from "../math";
import type { RenderContext } from "./registry";
import { joinText } from "./text";

export function renderLatex({ value }: RenderContext): HTMLElement {
  const element = document.createElement("div");
  element.className = "output-latex";
  for (const piece of splitMath(joinText(value))) {
    if ("tex" in piece) {
      const math = document.createElement(piece.display ? "div" : "span");
      math.className = piece.display ? "math-tex math-display" : "math-tex";
      math.textContent = piece.tex;
      element.append(math);
    } else if (piece.text.trim()) {
      element.append(piece.text);
    }
  }
  void typesetMath(element);
  return element;
}
