// The texts of an edit review, as pure functions: the cell with a proposal in its range, the cell as
// shown while the proposal still streams, the range's text after the per-block choices, and a typed
// edit of the review carried over onto the original cell (the user's edit wins, the proposal goes).

import { diff } from "@codemirror/merge";
import { ChangeSet, Text } from "@codemirror/state";
import { toCodePoints, toUtf16 } from "../offsets";

/** A range of the cell in UTF-16 units (CodeMirror's and JS strings' offsets). */
export interface Range {
  from: number;
  to: number;
}

/** The wire's [from, to] (code points, as Python counts) as a range of `text` in UTF-16 units. */
export function rangeFromWire(text: string, range: readonly [number, number]): Range {
  const from = toUtf16(text, Math.max(0, range[0]));
  return { from, to: Math.max(from, toUtf16(text, Math.max(0, range[1]))) };
}

/** A selection of `text` for the wire (code points); null when empty. */
export function selectionToWire(text: string, from: number, to: number): [number, number] | null {
  if (from === to) return null;
  const [a, b] = from < to ? [from, to] : [to, from];
  return [toCodePoints(text, a), toCodePoints(text, b)];
}

/** `original` with its `range` replaced by `text`. */
export function applyRange(original: string, range: Range, text: string): string {
  return original.slice(0, range.from) + text + original.slice(range.to);
}

/** The range's text within `reviewed` (the whole cell as reviewed: outside the range it is the original). */
export function rangeText(original: string, range: Range, reviewed: string): string {
  const suffix = original.length - range.to;
  return reviewed.slice(range.from, Math.max(range.from, reviewed.length - suffix));
}

/**
 * What to show while a proposal for `original` still streams: its complete lines so far, then the
 * original's lines not yet reached, so that the part still to come reads as unchanged rather than
 * deleted. The last complete line is matched to the original line it copies (the one nearest its
 * own line number); a line the original does not have stands for the original line at its number.
 */
export function streamingText(original: string, partial: string): string {
  const end = partial.lastIndexOf("\n");
  if (end === -1) return original; // not one line yet
  const done = partial.slice(0, end).split("\n");
  const lines = original.split("\n");
  const last = done[done.length - 1];
  let at = -1;
  if (last.trim()) {
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] !== last) continue;
      if (at === -1 || Math.abs(i - (done.length - 1)) <= Math.abs(at - (done.length - 1))) at = i;
    }
  }
  if (at === -1) at = done.length - 1;
  const rest = lines.slice(at + 1);
  return rest.length ? `${done.join("\n")}\n${rest.join("\n")}` : done.join("\n");
}

/** The changes that turn `a` into `b`, as CodeMirror changes (minimal, from the merge package's diff). */
export function changesBetween(a: string, b: string): ChangeSet {
  const specs = diff(a, b).map((change) => ({ from: change.fromA, to: change.toA, insert: b.slice(change.fromB, change.toB) }));
  return ChangeSet.of(specs, a.length);
}

/**
 * The user edited the review (`shown` became something else by `changes`): the same edit made to
 * `original` instead, and where the cursor at `head` (in `shown`, before the edit) ends up. Edits in
 * unchanged lines land where they were typed; edits inside a proposed block land at that block's
 * place in the original.
 */
export function carryOver(
  original: string,
  shown: string,
  changes: ChangeSet,
  head: number,
): { text: string; changes: ChangeSet; head: number } {
  const back = changesBetween(shown, original);
  const mapped = changes.map(back);
  const text = mapped.apply(Text.of(original.split("\n"))).toString();
  return { text, changes: mapped, head: mapped.mapPos(back.mapPos(head, -1), 1) };
}
