// Math in Markdown and text/latex (src/math.ts): what is math, what stays a dollar.

import assert from "node:assert/strict";
import { test } from "node:test";
import MarkdownIt from "markdown-it";
import { mathAt, mathPlugin, splitMath } from "../src/math";

const md = new MarkdownIt({ html: true }).use(mathPlugin);

function mathOf(source: string): string[] {
  return Array.from(md.render(source).matchAll(/<(span|div) class="math-tex( math-display)?">([\s\S]*?)<\/\1>/g),
    (m) => `${m[2] ? "D" : "I"}:${m[3]}`);
}

test("math: inline $…$, display $$…$$ and \\begin{equation} as Jupyter accepts them", () => {
  assert.deepEqual(mathOf("Euler: $e^{i\\pi} + 1 = 0$."), ["I:e^{i\\pi} + 1 = 0"]);
  assert.deepEqual(mathOf("$$\\frac{a}{b}$$"), ["D:\\frac{a}{b}"]);
  assert.deepEqual(mathOf("Sum:\n$$\n\\sum_{i=1}^n i = \\frac{n(n+1)}{2}\n$$\nand on."), ["D:\n\\sum_{i=1}^n i = \\frac{n(n+1)}{2}\n"]);
  assert.deepEqual(mathOf("\\begin{equation}\nE = mc^2\n\\end{equation}"), ["D:\\begin{equation}\nE = mc^2\n\\end{equation}"]);
  assert.deepEqual(mathOf("\\begin{align*}\na &= 1 \\\\\n- b &= 2\n\\end{align*}"), ["D:\\begin{align*}\na &amp;= 1 \\\\\n- b &amp;= 2\n\\end{align*}"]);
  assert.deepEqual(mathOf("two: $\\alpha$ and $\\beta_1$"), ["I:\\alpha", "I:\\beta_1"]);
});

test("math: markdown never touches the TeX (underscores, stars, backslashes, list markers)", () => {
  assert.deepEqual(mathOf("$a_1 * b_2 * c_3$"), ["I:a_1 * b_2 * c_3"]);
  assert.deepEqual(mathOf("$$\na \\\\\n- b\n$$"), ["D:\na \\\\\n- b\n"]);
  assert.equal(md.render("$x<y$"), '<p><span class="math-tex">x&lt;y</span></p>\n');
});

test("math: a dollar in prose stays a dollar", () => {
  assert.deepEqual(mathOf("It costs $5 and $10."), []);
  assert.deepEqual(mathOf("between $ 5 and 6 $"), []);
  assert.deepEqual(mathOf("paid $20, then $30"), []);
  assert.deepEqual(mathOf("escaped \\$x\\$ here"), []);
  assert.deepEqual(mathOf("code `$x$` stays"), []);
  assert.deepEqual(mathOf("```\n$$x$$\n```"), []);
  assert.deepEqual(mathOf("$5 and $10 and $x$"), ["I:x"]);
  assert.deepEqual(mathOf("$a\n\nb$"), []); // not across a blank line
  assert.equal(mathAt("$x$1", 0), null); // a closing $ followed by a digit is a price
});

test("text/latex: sympy's output and prose around math", () => {
  assert.deepEqual(splitMath("$\\displaystyle \\int x\\, dx$"), [{ tex: "\\displaystyle \\int x\\, dx", display: false, end: 27 }]);
  const pieces = splitMath("The area is \\[ \\pi r^2 \\] exactly, or $\\tau r^2/2$.");
  assert.deepEqual(pieces.map((p) => ("tex" in p ? `${p.display ? "D" : "I"}:${p.tex}` : p.text)),
    ["The area is ", "D: \\pi r^2 ", " exactly, or ", "I:\\tau r^2/2", "."]);
  assert.deepEqual(splitMath("costs \\$5"), [{ text: "costs \\$5" }]);
});
