// Unit tests of the ghost-text rules (src/ghost-text/logic.ts) and the settings panel's wording.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  autoSkipReason,
  cursorKind,
  debounceDelay,
  type GateInput,
  ghostFitsCompletion,
  nextLine,
  nextWord,
  remainder,
  typesThrough,
  wordBefore,
} from "../src/ghost-text/logic";
import { modelStatusText, statsText, tallyText } from "../src/ghost-text/labels";

function gate(text: string, cursor = text.length, extra: Partial<GateInput> = {}): string | null {
  return autoSkipReason({ text, cursor, selection: false, editing: true, codeCell: true, enabled: true, ...extra });
}

test("gate: automatic requests are skipped where they annoy", () => {
  assert.equal(gate("x = 1 +"), null);
  assert.equal(gate(""), "empty cell");
  assert.equal(gate("  \n\t"), "empty cell");
  assert.equal(gate("x = 1\nprint(x)", 6), "cursor at the start of a non-empty line");
  assert.equal(gate("x = 1\n", 6), null); // start of an empty line: fine
  assert.equal(gate("foo(", 4), null);
  assert.equal(gate("foo()", 4), null); // closing brackets right of the cursor are fine
  assert.equal(gate('f("")]}', 2), null);
  assert.equal(gate("foo(abc)", 4), null); // "a few" (3) other characters are fine
  assert.equal(gate("foo(abcd)", 4), "text right of the cursor");
  assert.equal(gate("x = ", 4, { selection: true }), "text is selected");
  assert.equal(gate("x = ", 4, { editing: false }), "command mode");
  assert.equal(gate("# title", 7, { codeCell: false }), "not a code cell");
  assert.equal(gate("x = ", 4, { enabled: false }), "completion is off");
  // only the cursor's line counts for "right of the cursor"
  assert.equal(gate("x = \nsome long line", 4), null);
});

test("debounce: fixed, or adaptive around word characters", () => {
  assert.equal(debounceDelay(500, "fixed", "a"), 500);
  assert.equal(debounceDelay(500, "fixed", " "), 500);
  assert.equal(debounceDelay(500, "adaptive", "a"), 750); // mid-word: wait longer
  assert.equal(debounceDelay(500, "adaptive", "_"), 750);
  assert.equal(debounceDelay(500, "adaptive", "é"), 750);
  assert.equal(debounceDelay(500, "adaptive", "("), 250); // a natural pause: sooner
  assert.equal(debounceDelay(500, "adaptive", " "), 250);
  assert.equal(debounceDelay(500, "adaptive", "\n"), 250);
  assert.equal(debounceDelay(500, "adaptive", ""), 250); // start of the cell
  assert.equal(debounceDelay(0, "adaptive", "a"), 0);
});

test("typed-through: matching keystrokes consume the suggestion", () => {
  assert.equal(typesThrough("range(10)", "r"), true);
  assert.equal(typesThrough("range(10)", "ran"), true);
  assert.equal(typesThrough("range(10)", "range(10)"), true);
  assert.equal(typesThrough("range(10)", "x"), false);
  assert.equal(typesThrough("range(10)", ""), false);
  assert.equal(typesThrough("ab", "abc"), false);
  assert.equal(remainder("range(10)", "ran"), "ge(10)");
  assert.equal(remainder("range(10)", ""), "range(10)");
  assert.equal(remainder("range(10)", "range(10)"), "");
  // the stream grows: what was typed stays consumed; a new text that disagrees drops it
  assert.equal(remainder("range(10):\n    pass", "ran"), "ge(10):\n    pass");
  assert.equal(remainder("rows", "ran"), null);
});

test("accept word: up to the end of the next word or run of symbols", () => {
  assert.equal(nextWord("foo bar"), "foo");
  assert.equal(nextWord(" bar baz"), " bar");
  assert.equal(nextWord("(x, y)"), "(x");
  assert.equal(nextWord(", y)"), ",");
  assert.equal(nextWord("df.groupby('a')"), "df");
  assert.equal(nextWord(".groupby('a')"), ".groupby");
  // quotes and brackets go with the word after them, and their closers with it (issue 37.9)
  assert.equal(nextWord("'key']"), "'key'");
  assert.equal(nextWord("]"), "]");
  assert.equal(nextWord('df["col"]'), "df");
  assert.equal(nextWord('["col"].sum()'), '["col"]');
  assert.equal(nextWord(".method("), ".method");
  assert.equal(nextWord("("), "(");
  assert.equal(nextWord("  x = 1"), "  x");
  assert.equal(nextWord(" = 1"), " =");
  assert.equal(nextWord(" 1"), " 1");
  assert.equal(nextWord("'key"), "'key");
  assert.equal(nextWord("(x)"), "(x)");
  assert.equal(nextWord('"""doc""" x'), '"""doc"""');
  assert.equal(nextWord("('a', 'b')"), "('a'");
  assert.equal(nextWord("): "), "):");
  assert.equal(nextWord("   "), "   ");
  assert.equal(nextWord("'café'"), "'café'");
  assert.equal(nextWord("\n    return x"), "\n    ");
  assert.equal(nextWord("  \n  y"), "  \n  ");
  assert.equal(nextWord("naïve_name = 1"), "naïve_name");
  assert.equal(nextWord("x"), "x");
  // repeated acceptance walks the whole text
  let rest = "total += value * 2\nprint(df['a'], [x]) # ok";
  let taken = "";
  while (rest) {
    const chunk = nextWord(rest);
    assert.ok(chunk.length > 0);
    taken += chunk;
    rest = rest.slice(chunk.length);
  }
  assert.equal(taken, "total += value * 2\nprint(df['a'], [x]) # ok");
});

test("accept line: the rest of this line, then each next line with its break", () => {
  assert.equal(nextLine("x = 1"), "x = 1");
  assert.equal(nextLine("x = 1\ny = 2"), "x = 1");
  assert.equal(nextLine("\ny = 2\nz = 3"), "\ny = 2");
  assert.equal(nextLine("\nz = 3"), "\nz = 3");
  assert.equal(nextLine("\n"), "\n");
  const parts: string[] = [];
  let rest = "):\n    a = 1\n    return a";
  while (rest) {
    const chunk = nextLine(rest);
    parts.push(chunk);
    rest = rest.slice(chunk.length);
  }
  assert.deepEqual(parts, ["):", "\n    a = 1", "\n    return a"]);
});

test("settings panel: model status and stats wording", () => {
  const model = {
    state: "loading" as const, name: "tiny", path: "/m/tiny.gguf", progress: 0.4, message: null,
    bytes_done: null, bytes_total: null, serving: null, serving_name: "",
  };
  assert.equal(modelStatusText(model), "loading tiny… 40%");
  assert.equal(modelStatusText({ ...model, progress: null }), "loading tiny…");
  assert.equal(modelStatusText({ ...model, state: "ready" }), "ready: tiny");
  assert.equal(modelStatusText({ ...model, state: "error", message: "corrupt file" }), "error: corrupt file");
  assert.equal(modelStatusText(null), "unknown");
  // a failed switch: the model before serves on, meanwhile and after
  assert.equal(
    modelStatusText({ ...model, serving: "default", serving_name: "default" }),
    "loading tiny… 40% · default answers meanwhile",
  );
  assert.equal(
    modelStatusText({ ...model, state: "ready", name: "default", message: "Could not load tiny: gone. Still using the built-in model; pick another model or retry." }),
    "ready: default — Could not load tiny: gone. Still using the built-in model; pick another model or retry.",
  );
  const downloading = { ...model, state: "downloading" as const, progress: 0.25, bytes_done: 1.2e9, bytes_total: 4.8e9 };
  assert.equal(modelStatusText(downloading), "downloading tiny… 25% (1.2 GB of 4.8 GB)");
  assert.equal(
    modelStatusText({ ...downloading, progress: null, bytes_done: null, message: "connecting to the hub…" }),
    "downloading tiny… connecting to the hub…",
  );
  const stats = {
    shown: 4, accepted: 1, acceptance_rate: 0.25, p50_ms: 31.2, p95_ms: 80.9, requests: 6, model_calls: 5,
    cache_hits: 1, server_p50_ms: 20, server_p95_ms: 60,
  };
  assert.equal(
    statsText(stats),
    "shown 4 · accepted 1 · acceptance 25% · p50 31 ms · p95 81 ms · requests 6 · model calls 5",
  );
  assert.match(statsText({ ...stats, shown: 0, acceptance_rate: null, p50_ms: null, p95_ms: null }), /acceptance – · p50 –/);
  assert.equal(statsText(null), "no suggestions yet");
});

test("ghost text beside the popup: only when it agrees with the selected entry (issue 14.16)", () => {
  assert.equal(wordBefore("x = np.ar"), "ar");
  assert.equal(wordBefore("%ti"), "%ti");
  assert.equal(wordBefore("np."), "");
  assert.equal(ghostFitsCompletion("ar", "ray", "arange"), false); // np.ar: popup arange, ghost ray
  assert.equal(ghostFitsCompletion("ar", "ray([1, 2])", "array"), true);
  assert.equal(ghostFitsCompletion("ar", "ange(10)", "arange"), true);
  assert.equal(ghostFitsCompletion("ar", "r", "array"), true); // a start of the entry
  assert.equal(ghostFitsCompletion("ar", "ray(", "array_equal"), false);
  assert.equal(ghostFitsCompletion("", "abs(x)", "abs"), true);
  assert.equal(ghostFitsCompletion("my_var", " width", "my_variable_alpha"), false);
});

test("cursorKind: where the cursor was, for the user's statistics", () => {
  assert.equal(cursorKind("", 0), "new_line");
  assert.equal(cursorKind("x = 1\n", 6), "new_line");
  assert.equal(cursorKind("def f():\n    ", 13), "new_line"); // indentation only
  assert.equal(cursorKind("total = 1 +", 11), "end_of_line");
  assert.equal(cursorKind("print(x)", 7), "end_of_line"); // only closers right of it
  assert.equal(cursorKind('f("")] \nnext line', 2), "end_of_line");
  assert.equal(cursorKind("foo(a, b)", 4), "mid_line");
  assert.equal(cursorKind("x = 1\nfoo bar", 9), "mid_line");
});

test("tallyText: one line per group of the user's statistics", () => {
  const tally = { shown: 8, accepted: 3, whole: 1, word: 1, line: 1, dismissed: 4, acceptance_rate: 0.375,
    p50_ms: 120.4, p95_ms: 310 };
  assert.equal(tallyText(tally),
    "shown 8 · accepted 3 (38%: 1 whole, 1 by word, 1 by line) · dismissed 4 · p50 120 ms · p95 310 ms");
  assert.equal(tallyText({ ...tally, shown: 0, accepted: 0 }), "no suggestions recorded");
});
