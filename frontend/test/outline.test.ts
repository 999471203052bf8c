// The outline's pure logic (src/outline/headings.ts): headings as markdown-it parses them, the sections
// they make, and which collapsed headings to expand to show a cell.

import assert from "node:assert/strict";
import { test } from "node:test";
import { collapsePatch, headingId, headingsToExpand, type OutlineCell, parseHeadings, sections } from "../src/outline/headings";

const md = (id: string, source: string, metadata: Record<string, unknown> = {}): OutlineCell => ({ id, type: "markdown", source, metadata });
const code = (id: string): OutlineCell => ({ id, type: "code", source: "# not a heading", metadata: {} });

test("outline: ATX and setext headings, not code blocks or # in code cells", () => {
  assert.deepEqual(parseHeadings("# One\ntext\n\n## Two *em* `x`\n\nSetext\n======\n\nSub\n---\n\n```\n# no\n```"),
    [{ level: 1, text: "One" }, { level: 2, text: "Two em x" }, { level: 1, text: "Setext" }, { level: 2, text: "Sub" }]);
  assert.deepEqual(parseHeadings("plain text\n#hashtag"), []);
  assert.equal(sections([code("c")]).get("c")!.level, 0);
});

test("outline: a collapsed heading hides cells until a heading of its level or higher", () => {
  const cells = [md("h1", "# A"), md("h2", "## B", { "jp-MarkdownHeadingCollapsed": true }), code("c1"), md("h3", "### C"), code("c2"),
    md("h2b", "## D"), code("c3")];
  const facts = sections(cells);
  assert.deepEqual(cells.map((c) => facts.get(c.id)!.hidden), [false, false, true, true, true, false, false]);
  assert.equal(facts.get("h2")!.hiddenCount, 3);
  assert.equal(facts.get("c2")!.section, "h3");
  assert.equal(facts.get("c3")!.section, "h2b");
  assert.equal(facts.get("c1")!.hiddenBy, "h2");
});

test("outline: the classic Notebook's heading_collapsed is read too", () => {
  const facts = sections([md("h", "# A", { heading_collapsed: true }), code("c")]);
  assert.equal(facts.get("c")!.hidden, true);
});

test("outline: selecting a hidden cell expands every collapsed heading that hides it", () => {
  const cells = [md("a", "# A", { "jp-MarkdownHeadingCollapsed": true }), md("b", "## B", { "jp-MarkdownHeadingCollapsed": true }), code("c")];
  assert.deepEqual(headingsToExpand(cells, "c"), ["a", "b"]);
  assert.deepEqual(headingsToExpand(cells, "a"), []);
  assert.deepEqual(collapsePatch(false), { "jp-MarkdownHeadingCollapsed": null, heading_collapsed: null });
});

test("outline: heading ids as JupyterLab makes them (spaces to dashes)", () => {
  assert.equal(headingId("A model, and more"), "A-model,-and-more");
});
