// Matches in a cell's rendered outputs (read-only: counted, highlighted and scrolled to, never
// replaced). The text is the page's own text nodes as drawn (so a match is what the user sees); the
// marks use the CSS Custom Highlight API, which paints ranges without touching the output's DOM.
// Outputs drawn in a sandboxed iframe (scripts: plotly, vega, ...) are out of reach, as in JupyterLab.

import type { SearchQuery } from "@codemirror/search";
import { findMatches } from "./query";

export const MATCH_HIGHLIGHT = "gb-search-match";
export const CURRENT_HIGHLIGHT = "gb-search-current";

/** The visible text nodes under `root`, in document order. */
function textNodes(root: HTMLElement): Text[] {
  const nodes: Text[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => {
      const parent = node.parentElement;
      if (!parent || parent.closest("script, style, template, [hidden]")) return NodeFilter.FILTER_REJECT;
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
  return nodes;
}

/** The DOM ranges of every match of `query` in the output area `root` (none when it is not shown). */
export function outputMatches(root: HTMLElement, query: SearchQuery): Range[] {
  if (!root.getClientRects().length) return []; // collapsed or empty: nothing a user could see
  const nodes = textNodes(root);
  const starts: number[] = [];
  let text = "";
  for (const node of nodes) {
    starts.push(text.length);
    text += node.data;
  }
  // The node holding offset `at` (a match's end belongs to the node it ends in).
  const locate = (at: number, end: boolean): [Text, number] => {
    let lo = 0;
    let hi = nodes.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! < at || (!end && starts[mid] === at)) lo = mid;
      else hi = mid - 1;
    }
    return [nodes[lo]!, at - starts[lo]!];
  };
  return findMatches(text, query).map(({ from, to }) => {
    const range = document.createRange();
    range.setStart(...locate(from, false));
    range.setEnd(...locate(to, true));
    return range;
  });
}

/** Paint `all` as matches and `current` as the current one (none: clear). */
export function paintOutputMatches(all: Range[], current: Range | null): void {
  if (typeof CSS === "undefined" || !("highlights" in CSS)) return;
  CSS.highlights.set(MATCH_HIGHLIGHT, new Highlight(...all.filter((range) => range !== current)));
  if (current) CSS.highlights.set(CURRENT_HIGHLIGHT, new Highlight(current));
  else CSS.highlights.delete(CURRENT_HIGHLIGHT);
}

export function clearOutputMatches(): void {
  if (typeof CSS === "undefined" || !("highlights" in CSS)) return;
  CSS.highlights.delete(MATCH_HIGHLIGHT);
  CSS.highlights.delete(CURRENT_HIGHLIGHT);
}

/** Scroll the page so the range is in view (centred, as the editors do). */
export function scrollToRange(range: Range): void {
  const rect = range.getBoundingClientRect();
  const top = rect.top - window.innerHeight / 2;
  if (rect.top < 80 || rect.bottom > window.innerHeight - 20) window.scrollBy({ top, behavior: "instant" as ScrollBehavior });
  const scroller = range.startContainer.parentElement?.closest<HTMLElement>(".output-scroll, pre");
  scroller?.scrollIntoView({ block: "nearest", inline: "nearest" });
}
