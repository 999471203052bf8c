// Find and replace, the pure part: what matches, and what a replacement makes of a text. The matching
// is @codemirror/search's `SearchQuery` (the same one the editors' highlights use), so counts, the
// highlighted ranges and what Replace changes always agree.
//
// The options are JupyterLab's (packages/documentsearch: "Match Case", "Match Whole Word", "Use Regular
// Expression"); a regex replacement expands `$1`, `$&`, `$<name>` and `$$` as JavaScript's
// String.prototype.replace does, which is what JupyterLab's replace uses.

import { SearchQuery } from "@codemirror/search";
import { Text } from "@codemirror/state";

export interface SearchOptions {
  text: string;
  caseSensitive: boolean;
  wholeWord: boolean;
  regex: boolean;
}

export const DEFAULT_OPTIONS: SearchOptions = { text: "", caseSensitive: false, wholeWord: false, regex: false };

/** A query ready to use, nothing to search for (empty text), or why the text is not a valid regex. */
export type Compiled = { query: SearchQuery; error?: undefined } | { query: null; error: string | null };

/** At most this many matches are counted per text (a pathological pattern stays cheap). */
export const MAX_MATCHES_PER_TEXT = 10_000;

export function compile(options: SearchOptions): Compiled {
  if (!options.text) return { query: null, error: null };
  if (options.regex) {
    try {
      new RegExp(options.text, "gmu");
    } catch (error) {
      return { query: null, error: `Invalid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, "")}` };
    }
  }
  // literal: "\n" in the text means a backslash and an n, as in JupyterLab (CodeMirror would unquote it).
  const query = new SearchQuery({
    search: options.text,
    caseSensitive: options.caseSensitive,
    wholeWord: options.wholeWord,
    regexp: options.regex,
    literal: true,
  });
  if (!query.valid) return { query: null, error: "Invalid regular expression" };
  return { query };
}

export interface Match {
  from: number;
  to: number;
  /** The regex match (groups for `$1`), for a regular expression query. */
  groups?: RegExpExecArray;
}

export function toText(text: string | Text): Text {
  return typeof text === "string" ? Text.of(text.split("\n")) : text;
}

/** Every non-empty match of `query` in `text`, in order. */
export function findMatches(text: string | Text, query: SearchQuery, limit = MAX_MATCHES_PER_TEXT): Match[] {
  const matches: Match[] = [];
  const cursor = query.getCursor(toText(text));
  for (let next = cursor.next(); !next.done && matches.length < limit; next = cursor.next()) {
    const value = next.value as { from: number; to: number; match?: RegExpExecArray };
    if (value.to === value.from) continue; // `^` or `a*`: nothing to show or replace
    matches.push(value.match ? { from: value.from, to: value.to, groups: value.match } : { from: value.from, to: value.to });
  }
  return matches;
}

/** What `replace` becomes for one match: literal text, or (regex) with `$1`, `$&`, `$<name>`, `$$` expanded. */
export function replacementFor(replace: string, match: Match): string {
  const groups = match.groups;
  if (!groups) return replace;
  return replace.replace(/\$(\$|&|<([^>]*)>|\d{1,2})/g, (whole, token: string, name: string | undefined) => {
    if (token === "$") return "$";
    if (token === "&") return groups[0];
    if (name !== undefined) return groups.groups && name in groups.groups ? (groups.groups[name] ?? "") : whole;
    // $12 means group 12 when there are that many, else group 1 followed by "2" (as JavaScript does).
    for (let length = token.length; length > 0; length--) {
      const index = Number(token.slice(0, length));
      if (index > 0 && index < groups.length) return (groups[index] ?? "") + token.slice(length);
    }
    return whole;
  });
}

/** `text` with every match replaced; `count`: how many were. */
export function replaceAll(text: string, query: SearchQuery, replace: string): { text: string; count: number } {
  const matches = findMatches(text, query, Number.POSITIVE_INFINITY);
  if (!matches.length) return { text, count: 0 };
  let out = "";
  let at = 0;
  for (const match of matches) {
    out += text.slice(at, match.from) + replacementFor(replace, match);
    at = match.to;
  }
  return { text: out + text.slice(at), count: matches.length };
}
