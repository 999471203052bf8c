// TeX math as Jupyter accepts it: `$…$`, `$$…$$` and `\begin{env}…\end{env}` in Markdown cells (a
// markdown-it plugin) and in `text/latex` outputs (outputs/latex.ts). Math is marked up as
// `.math-tex` elements holding the TeX as text; `typesetMath` renders them with KaTeX, which is loaded
// the first time a page shows math (its own bundle, build/katex.js + katex.css and fonts: no CDN).
//
// A `$` in prose stays a dollar (pandoc's rule, as VS Code's notebooks do): the opening `$` must have a
// non-space right after it, the closing one a non-space right before it and no digit right after, and
// no other `$` may come between. So `costs $5 and $10` is text, `$x$` and `$\alpha_1$` are math, and
// `\$` is always a dollar.

import type { MarkdownIt, StateBlock, StateInline } from "markdown-it";

export interface MathSpan {
  tex: string;
  display: boolean;
  /** Where the span ends in the text (just after its closing delimiter). */
  end: number;
}

const DOLLAR = 0x24;
const BACKSLASH = 0x5c;
const BEGIN = /^\\begin\{([A-Za-z]+\*?)\}/;

function isSpace(ch: string | undefined): boolean {
  return ch === undefined || /\s/.test(ch);
}

function isEscaped(text: string, at: number): boolean {
  let slashes = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === BACKSLASH; i--) slashes++;
  return slashes % 2 === 1;
}

/** The next unescaped `delimiter` at or after `from`, or -1. */
function findClosing(text: string, delimiter: string, from: number): number {
  let at = text.indexOf(delimiter, from);
  while (at !== -1 && isEscaped(text, at)) at = text.indexOf(delimiter, at + 1);
  return at;
}

/** Math that starts exactly at `start` in `text`, or null. `brackets`: also `\(…\)` and `\[…\]` (text/latex
 * accepts them; in Markdown a backslash before a bracket is an escape). No span crosses a blank line. */
export function mathAt(text: string, start: number, brackets = false): MathSpan | null {
  const span = scan(text, start, brackets);
  return span && !/\n[ \t]*\n/.test(span.tex) ? span : null;
}

function scan(text: string, start: number, brackets: boolean): MathSpan | null {
  if (text.charCodeAt(start) === DOLLAR) {
    if (isEscaped(text, start)) return null;
    if (text.charCodeAt(start + 1) === DOLLAR) {
      const close = findClosing(text, "$$", start + 2);
      const tex = close === -1 ? "" : text.slice(start + 2, close);
      return tex.trim() ? { tex, display: true, end: close + 2 } : null;
    }
    if (isSpace(text[start + 1])) return null;
    const close = findClosing(text, "$", start + 1);
    if (close === -1 || isSpace(text[close - 1]) || /[0-9]/.test(text[close + 1] ?? "")) return null;
    return { tex: text.slice(start + 1, close), display: false, end: close + 1 };
  }
  if (text.charCodeAt(start) !== BACKSLASH) return null;
  const begin = BEGIN.exec(text.slice(start, start + 40));
  if (begin) {
    const endTag = `\\end{${begin[1]}}`;
    const close = text.indexOf(endTag, start + begin[0].length);
    if (close === -1) return null;
    const end = close + endTag.length;
    return { tex: text.slice(start, end), display: true, end };
  }
  if (!brackets) return null;
  const open = text.slice(start, start + 2);
  if (open !== "\\(" && open !== "\\[") return null;
  const close = text.indexOf(open === "\\(" ? "\\)" : "\\]", start + 2);
  if (close === -1) return null;
  const tex = text.slice(start + 2, close);
  return tex.trim() ? { tex, display: open === "\\[", end: close + 2 } : null;
}

export type MathPiece = { text: string } | MathSpan;

/** Split `text` into prose and math (for text/latex outputs). */
export function splitMath(text: string): MathPiece[] {
  const pieces: MathPiece[] = [];
  let prose = 0;
  for (let at = 0; at < text.length; at++) {
    const ch = text.charCodeAt(at);
    if (ch !== DOLLAR && ch !== BACKSLASH) continue;
    const span = mathAt(text, at, true);
    if (!span) {
      if (ch === BACKSLASH && text[at + 1] === "$") at++; // `\$` is a dollar
      continue;
    }
    if (at > prose) pieces.push({ text: text.slice(prose, at) });
    pieces.push(span);
    prose = span.end;
    at = span.end - 1;
  }
  if (prose < text.length) pieces.push({ text: text.slice(prose) });
  return pieces;
}

// ---- markdown-it --------------------------------------------------------------------------------

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function mathInline(state: StateInline, silent: boolean): boolean {
  const span = mathAt(state.src, state.pos);
  if (!span || span.end > state.posMax) return false;
  if (!silent) {
    const token = state.push(span.display ? "math_display" : "math_inline", "", 0);
    token.content = span.tex;
  }
  state.pos = span.end;
  return true;
}

/** `$$` or `\begin{env}` opening a block: the math runs to the line that closes it (no blank lines). */
function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const start = state.bMarks[startLine] + state.tShift[startLine];
  if (state.sCount[startLine] - state.blkIndent >= 4) return false; // indented code
  const opener = state.src.charCodeAt(start);
  if (opener !== DOLLAR && opener !== BACKSLASH) return false;
  const span = mathAt(state.src, start);
  if (!span || !span.display) return false;
  let last = startLine;
  while (last < endLine && state.eMarks[last] < span.end) last++;
  if (last >= endLine || state.src.slice(span.end, state.eMarks[last]).trim()) return false; // text after it
  if (silent) return true;
  const token = state.push("math_block", "div", 0);
  token.block = true;
  token.content = span.tex;
  token.map = [startLine, last + 1];
  state.line = last + 1;
  return true;
}

/** The markdown-it plugin: math becomes `.math-tex` elements for `typesetMath`. */
export function mathPlugin(md: MarkdownIt): void {
  md.inline.ruler.before("escape", "math", mathInline);
  md.block.ruler.before("fence", "math_block", mathBlock, { alt: ["paragraph", "reference", "blockquote", "list"] });
  const tex = (tag: string, display: boolean) => (tokens: { content: string }[], idx: number) =>
    `<${tag} class="math-tex${display ? " math-display" : ""}">${escapeHtml(tokens[idx].content)}</${tag}>${tag === "div" ? "\n" : ""}`;
  md.renderer.rules.math_inline = tex("span", false);
  md.renderer.rules.math_display = tex("span", true);
  md.renderer.rules.math_block = tex("div", true);
}

// ---- KaTeX, loaded on first use -----------------------------------------------------------------

interface Katex {
  render(tex: string, element: HTMLElement, options: Record<string, unknown>): void;
}

/** The KaTeX bundle (build.mjs's `katex` entry point) beside main.js. */
const KATEX_JS = "/static/build/katex.js";
const KATEX_CSS = "/static/build/katex.css";

let katex: Promise<Katex> | null = null;

function loadKatex(): Promise<Katex> {
  katex ??= (async () => {
    const css = new Promise<void>((resolve) => {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = KATEX_CSS;
      link.onload = link.onerror = () => resolve();
      document.head.append(link);
    });
    const url = KATEX_JS; // a variable: esbuild leaves the import to the browser
    const module = (await import(url)) as { default: Katex };
    await css;
    return module.default;
  })();
  katex.catch(() => {
    katex = null; // try again next time (the server may have been restarting)
  });
  return katex;
}

/** Render the `.math-tex` elements under `root` with KaTeX (once each; errors show the TeX in red). */
export async function typesetMath(root: HTMLElement): Promise<void> {
  const pending = Array.from(root.querySelectorAll<HTMLElement>(".math-tex:not([data-typeset])"));
  if (root.matches(".math-tex:not([data-typeset])")) pending.push(root);
  if (!pending.length) return;
  let renderer: Katex;
  try {
    renderer = await loadKatex();
  } catch (error) {
    console.warn("KaTeX did not load", error);
    return;
  }
  for (const element of pending) {
    if (element.dataset.typeset) continue;
    const tex = element.textContent ?? "";
    element.dataset.typeset = "true";
    element.title = tex;
    renderer.render(tex, element, {
      displayMode: element.classList.contains("math-display"),
      throwOnError: false, // a TeX error shows the source in red, as Jupyter does
      trust: false, // no \href, \url, \includegraphics, \htmlClass...
      strict: "ignore",
      output: "htmlAndMathml",
    });
  }
}
