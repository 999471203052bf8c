// Pure rules of ghost text (no DOM, no CodeMirror): when to ask automatically, how long to wait, how
// typed characters consume a suggestion, and how much a word / line acceptance takes.
// The server applies the same gate (notebook/ghostbook/completion/gate.py); checking here first
// saves a round trip and keeps requests off the wire where they would be skipped anyway.

/** Characters right of the cursor that do not block an automatic request (closers and blanks). */
const CLOSERS = new Set([")", "]", "}", '"', "'", "`", " ", "\t"]);
/** "A few" characters right of the cursor that are not closers. */
export const MAX_RIGHT_CHARS = 3;

export interface GateInput {
  text: string;
  /** Cursor offset (any unit, consistent with `text`). */
  cursor: number;
  /** True when the selection is not a single empty caret. */
  selection: boolean;
  /** False in command mode (the editor has no focus). */
  editing: boolean;
  codeCell: boolean;
  enabled: boolean;
}

/** Why an automatic request should not be sent here, or null to go ahead. Ctrl+Space skips this. */
export function autoSkipReason(input: GateInput): string | null {
  if (!input.enabled) return "completion is off";
  if (!input.codeCell) return "not a code cell";
  if (!input.editing) return "command mode";
  if (input.selection) return "text is selected";
  const { text, cursor } = input;
  if (!text.trim()) return "empty cell";
  const lineStart = text.lastIndexOf("\n", cursor - 1) + 1;
  let lineEnd = text.indexOf("\n", cursor);
  if (lineEnd < 0) lineEnd = text.length;
  const before = text.slice(lineStart, cursor);
  const after = text.slice(cursor, lineEnd);
  if (!before && after.trim()) return "cursor at the start of a non-empty line";
  let blocking = 0;
  for (const c of after) if (!CLOSERS.has(c)) blocking++;
  if (blocking > MAX_RIGHT_CHARS) return "text right of the cursor";
  return null;
}

/** Where the cursor is, for the user's statistics (protocol `SuggestionKind`): nothing but indentation
 * left of it on its line ("new_line"), code left and nothing but closers and blanks right ("end_of_line"),
 * or code on both sides ("mid_line"). */
export function cursorKind(text: string, cursor: number): "new_line" | "end_of_line" | "mid_line" {
  const lineStart = text.lastIndexOf("\n", cursor - 1) + 1;
  let lineEnd = text.indexOf("\n", cursor);
  if (lineEnd < 0) lineEnd = text.length;
  if (!text.slice(lineStart, cursor).trim()) return "new_line";
  for (const c of text.slice(cursor, lineEnd)) if (!CLOSERS.has(c)) return "mid_line";
  return "end_of_line";
}

export type DebounceMode = "fixed" | "adaptive";

const WORD = /[\p{L}\p{N}_]/u;

/** The wait after the last keystroke. "adaptive" (as Tabby does) waits less after a non-word
 * character (a space, `(`, `.`, a newline: a natural place to pause) and more in the middle of a word. */
export function debounceDelay(baseMs: number, mode: DebounceMode | string, charBefore: string): number {
  if (mode !== "adaptive") return baseMs;
  if (charBefore && WORD.test(charBefore)) return Math.round(baseMs * 1.5);
  return Math.round(baseMs * 0.5);
}

/** The still-untyped rest of a suggestion whose first `typed` characters the user has typed, or
 * null when the typed text no longer matches it (then the suggestion is dropped). */
export function remainder(suggestion: string, typed: string): string | null {
  return suggestion.startsWith(typed) ? suggestion.slice(typed.length) : null;
}

/** True when typing `input` at the ghost text's position just spells its next characters. */
export function typesThrough(ghost: string, input: string): boolean {
  return input.length > 0 && ghost.startsWith(input);
}

/** Closing characters of the openers a word may start with. */
const CLOSER: Record<string, string> = { "(": ")", "[": "]", "{": "}", "'": "'", '"': '"' };

/** The part of `ghost` that Ctrl+→ accepts: a word as code has them. Blanks, then any punctuation, then an
 * identifier or number, then the closers of the openers it began with (innermost first): `'key'` of
 * `'key']`, `["col"]` of `["col"].sum()`, `.method` of `.method(`, `  x` of `  x = 1`. Quotes and brackets
 * go with the word that follows them (VS Code's accept-next-word takes a lone `'`; issue 37.9). A run
 * of punctuation with no word after it (`]`, `):`, ` ==`) is a word of its own; at a line break, the break
 * and the next line's indentation. */
export function nextWord(ghost: string): string {
  const [whole, , prefix, core] = /^([ \t]*)([^\p{L}\p{N}_\s]*)([\p{L}\p{N}_]*)/u.exec(ghost) ?? ["", "", "", ""];
  if (!core) {
    if (prefix) return whole;
    return /^[ \t]*\r?\n[ \t]*/.exec(ghost)?.[0] ?? ghost;
  }
  let end = whole.length;
  for (const opener of [...prefix].reverse()) {
    const closer = CLOSER[opener];
    if (!closer || ghost[end] !== closer) break;
    end += 1;
  }
  return ghost.slice(0, end);
}

/** The part of `ghost` that the accept-line key takes: the rest of the current line (without its
 * line break); when the ghost text starts with a line break, that break and the next line. */
export function nextLine(ghost: string): string {
  const first = ghost.indexOf("\n");
  if (first < 0) return ghost;
  if (first > 0) return ghost.slice(0, first);
  const second = ghost.indexOf("\n", 1);
  return second < 0 ? ghost : ghost.slice(0, second);
}

/** The word the intellisense popup completes: identifier characters (and `%`) before the cursor. */
export function wordBefore(lineBefore: string): string {
  return /[\w%]*$/.exec(lineBefore)?.[0] ?? "";
}

/** True when ghost text agrees with the popup's selected entry `label`: the word before the cursor
 * plus the ghost text spells that entry and perhaps goes on (`np.ar` + `ray(…)` for `array`), or is
 * a start of it. Otherwise the ghost text would propose one name beside a popup proposing another. */
export function ghostFitsCompletion(word: string, ghost: string, label: string): boolean {
  const after = word + ghost;
  return after.startsWith(label) || label.startsWith(after);
}
