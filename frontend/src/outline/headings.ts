// The Markdown headings of a notebook (`#`..`######` and setext, as markdown-it parses them) and the
// sections they make: which cells a collapsed heading hides, and the heading a cell lies under.
// Pure functions over plain data, so they are unit-tested without a DOM.

import MarkdownIt from "markdown-it";
import { mathPlugin } from "../math";

const md = new MarkdownIt({ html: true }).use(mathPlugin);

export interface Heading {
  /** 1..6 */
  level: number;
  /** The heading's text, as it reads (no markup). */
  text: string;
}

/** Parsed sources (typing re-reads every cell on each frame; only the edited one is new). */
const cache = new Map<string, Heading[]>();
const CACHE_SIZE = 2000;

/** The headings of one Markdown source, in order. */
export function parseHeadings(source: string): Heading[] {
  if (!/(^|\n)\s{0,3}(#|=|-)/.test(source)) return []; // no heading can start anywhere: skip the parse
  let headings = cache.get(source);
  if (!headings) {
    if (cache.size >= CACHE_SIZE) cache.clear();
    headings = parse(source);
    cache.set(source, headings);
  }
  return headings;
}

function parse(source: string): Heading[] {
  const tokens = md.parse(source, {});
  const headings: Heading[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type !== "heading_open") continue;
    const inline = tokens[i + 1];
    const text = (inline?.children ?? []).map((child) => child.content).join("").trim();
    headings.push({ level: Number(token.tag.slice(1)), text });
  }
  return headings;
}

/** The id JupyterLab gives a rendered heading (`#Some-heading` links to it): its text with spaces
 * turned to dashes (packages/rendermime/src/renderers.ts, `renderMarkdown.createHeaderId`). */
export function headingId(text: string): string {
  return text.replace(/ /g, "-");
}

/** JupyterLab 4's cell-metadata key for a collapsed heading section (packages/cells/src/widget.ts,
 * `MARKDOWN_HEADING_COLLAPSED`, written by MarkdownCell's `headingCollapsed` setter: `true`, or the
 * key removed when expanded). */
export const COLLAPSED_KEY = "jp-MarkdownHeadingCollapsed";
/** The classic Notebook's (collapsible_headings nbextension) key: read, and removed on expanding. */
export const CLASSIC_COLLAPSED_KEY = "heading_collapsed";

export function isCollapsed(metadata: Record<string, unknown> | undefined): boolean {
  return metadata?.[COLLAPSED_KEY] === true || metadata?.[CLASSIC_COLLAPSED_KEY] === true;
}

/** The metadata patch (for `set_cell_metadata`) that collapses or expands a heading. */
export function collapsePatch(collapsed: boolean): Record<string, unknown> {
  return collapsed ? { [COLLAPSED_KEY]: true } : { [COLLAPSED_KEY]: null, [CLASSIC_COLLAPSED_KEY]: null };
}

export interface OutlineCell {
  id: string;
  type: string;
  source: string;
  metadata?: Record<string, unknown>;
}

export interface CellSection {
  /** The cell's own headings (Markdown cells). */
  headings: Heading[];
  /** Its section level as JupyterLab counts it: the highest (smallest) of its headings; 0 for none. */
  level: number;
  /** A heading cell whose section is collapsed. */
  collapsed: boolean;
  /** Hidden inside a collapsed section above it. */
  hidden: boolean;
  /** For a collapsed heading: how many cells its section hides. */
  hiddenCount: number;
  /** The id of the collapsed heading cell that hides this one (the outermost), or null. */
  hiddenBy: string | null;
  /** The id of the nearest heading cell at or above this one (its section), or null. */
  section: string | null;
}

/** Section facts for every cell: a collapsed heading of level L hides every cell below it until the
 * next heading of level L or higher (a smaller number), as JupyterLab's collapsible headings do. */
export function sections(cells: OutlineCell[]): Map<string, CellSection> {
  const result = new Map<string, CellSection>();
  let hiddenBy: string | null = null;
  let hideLevel = 0; // 0: nothing hidden
  let section: string | null = null;
  for (const cell of cells) {
    const headings = cell.type === "markdown" ? parseHeadings(cell.source) : [];
    const level = headings.length ? Math.min(...headings.map((h) => h.level)) : 0;
    const collapsed = level > 0 && isCollapsed(cell.metadata);
    if (hiddenBy !== null && level > 0 && level <= hideLevel) hiddenBy = null;
    const hidden = hiddenBy !== null;
    if (hidden) result.get(hiddenBy!)!.hiddenCount += 1;
    if (level > 0) section = cell.id;
    result.set(cell.id, { headings, level, collapsed, hidden, hiddenCount: 0, hiddenBy, section });
    if (!hidden && collapsed) {
      hiddenBy = cell.id;
      hideLevel = level;
    }
  }
  return result;
}

/** The collapsed heading cells to expand so that `id` shows (the one hiding it, and any collapsed
 * heading between that one and the cell, which would hide it once the outer one opens). */
export function headingsToExpand(cells: OutlineCell[], id: string): string[] {
  const open: string[] = [];
  let facts = sections(cells);
  let hiding = facts.get(id)?.hiddenBy ?? null;
  const expanded = new Set<string>();
  while (hiding !== null && !expanded.has(hiding)) {
    expanded.add(hiding);
    open.push(hiding);
    cells = cells.map((cell) => (cell.id === hiding ? { ...cell, metadata: { ...cell.metadata, ...collapsePatch(false) } } : cell));
    facts = sections(cells);
    hiding = facts.get(id)?.hiddenBy ?? null;
  }
  return open;
}
