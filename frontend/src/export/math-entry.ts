// Math in an exported HTML file (build/export/math.js + math.css, inlined by the server's exporter when a
// notebook has math): KaTeX and its auto-render typeset what nbconvert leaves for MathJax, with no CDN.
// The delimiters are MathJax's in JupyterLab ($…$, $$…$$, \(…\), \[…\], \begin{…}…\end{…}).

import "katex/dist/katex.min.css";
import renderMathInElement from "katex/contrib/auto-render";

const ENVIRONMENTS = ["equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
  "eqnarray", "eqnarray*", "CD"];

function typeset(): void {
  for (const element of document.querySelectorAll<HTMLElement>(".jp-RenderedMarkdown, .jp-RenderedLatex")) {
    renderMathInElement(element, {
      delimiters: [
        { left: "$$", right: "$$", display: true },
        { left: "\\[", right: "\\]", display: true },
        ...ENVIRONMENTS.map((env) => ({ left: `\\begin{${env}}`, right: `\\end{${env}}`, display: true })),
        { left: "$", right: "$", display: false },
        { left: "\\(", right: "\\)", display: false },
      ],
      throwOnError: false,
      ignoredTags: ["script", "noscript", "style", "textarea", "pre", "code"],
    });
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", typeset);
else typeset();
