// Find and replace's pure logic (frontend/src/search/query.ts): matching with @codemirror/search's
// SearchQuery, counts, whole word / case / regex, `$1` replacements, invalid regexes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compile, DEFAULT_OPTIONS, findMatches, replaceAll, replacementFor, type SearchOptions } from "../src/search/query";

function query(text: string, options: Partial<SearchOptions> = {}) {
  const compiled = compile({ ...DEFAULT_OPTIONS, text, ...options });
  assert.ok(compiled.query, `expected a query for ${text}: ${compiled.error}`);
  return compiled.query;
}

const spans = (text: string, q: ReturnType<typeof query>) => findMatches(text, q).map((m) => text.slice(m.from, m.to));

test("plain search ignores case unless Match Case is on", () => {
  const text = "Data = data.copy()\nDATA";
  assert.deepEqual(spans(text, query("data")), ["Data", "data", "DATA"]);
  assert.deepEqual(spans(text, query("data", { caseSensitive: true })), ["data"]);
  assert.deepEqual(findMatches(text, query("data")).map((m) => m.from), [0, 7, 19]);
});

test("whole word skips matches inside longer names", () => {
  const text = "df = df2 + my_df + df";
  assert.equal(findMatches(text, query("df")).length, 4);
  assert.deepEqual(findMatches(text, query("df", { wholeWord: true })).map((m) => m.from), [0, 19]);
});

test("plain text is literal: regex characters and backslashes match themselves", () => {
  assert.deepEqual(spans("a.b axb a\\nb", query("a.b")), ["a.b"]);
  assert.deepEqual(spans("a.b axb a\\nb", query("a\\nb")), ["a\\nb"]);
});

test("regex search, and an invalid regex is an error, not an exception", () => {
  assert.deepEqual(spans("x1 = y22 + z", query("[a-z](\\d+)", { regex: true })), ["x1", "y22"]);
  const bad = compile({ ...DEFAULT_OPTIONS, text: "(unclosed", regex: true });
  assert.equal(bad.query, null);
  assert.match(bad.error ?? "", /^Invalid regular expression: .*/);
  assert.deepEqual(compile({ ...DEFAULT_OPTIONS, text: "" }), { query: null, error: null });
  // a pattern that only matches the empty string finds nothing to show or replace
  assert.equal(findMatches("abc", query("x*", { regex: true })).length, 0);
});

test("regex replacement expands $1, $&, $<name> and $$ as JavaScript does", () => {
  const q = query("(?<name>\\w+)_(\\d)", { regex: true });
  const [match] = findMatches("col_1", q);
  assert.ok(match);
  assert.equal(replacementFor("$2-$1", match), "1-col");
  assert.equal(replacementFor("[$&]", match), "[col_1]");
  assert.equal(replacementFor("$<name>!", match), "col!");
  assert.equal(replacementFor("$$1 $9", match), "$1 $9");
  assert.equal(replacementFor("$10", match), "col0"); // no group 10: group 1 then "0"
  // plain search: the replacement is literal
  const [plain] = findMatches("col_1", query("col"));
  assert.ok(plain);
  assert.equal(replacementFor("$1", plain), "$1");
});

test("replace all rewrites every match of a text and counts them", () => {
  assert.deepEqual(replaceAll("a = 1\nb = a + a", query("a", { wholeWord: true }), "x"), { text: "x = 1\nb = x + x", count: 3 });
  assert.deepEqual(replaceAll("f(1, 22)", query("(\\d+)", { regex: true }), "n$1"), { text: "f(n1, n22)", count: 2 });
  assert.deepEqual(replaceAll("nothing", query("zzz"), "y"), { text: "nothing", count: 0 });
  // matches across lines with a regex
  assert.deepEqual(replaceAll("one\ntwo", query("e\\nt", { regex: true }), "E T"), { text: "onE Two", count: 1 });
});
