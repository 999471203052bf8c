// The Variables panel's and the data viewer's pure helpers (src/variables/format.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Variable } from "../src/protocol";
import { bytesText, filterVariables, isNumeric, nextSort, pageStart, rangeText, shapeText } from "../src/variables/format";

test("sizes in B, KB, MB, GB", () => {
  assert.equal(bytesText(null), "");
  assert.equal(bytesText(28), "28 B");
  assert.equal(bytesText(1536), "1.5 KB");
  assert.equal(bytesText(160_000_128), "153 MB");
  assert.equal(bytesText(3 * 1024 ** 3), "3.0 GB");
});

test("shape, length, neither", () => {
  assert.equal(shapeText({ shape: [10_000_000, 3], length: null }), "10,000,000 × 3");
  assert.equal(shapeText({ shape: [], length: null }), "scalar");
  assert.equal(shapeText({ shape: null, length: 5 }), "len 5");
  assert.equal(shapeText({ shape: null, length: null }), "");
});

test("pages: ranges, moves clamped to the table, sort cycle", () => {
  assert.equal(rangeText(50, 50, 10_000_000), "Rows 51–100 of 10,000,000");
  assert.equal(rangeText(0, 0, 0), "No rows");
  assert.equal(pageStart(0, 50, 120, 1), 50);
  assert.equal(pageStart(100, 50, 120, 1), 100);
  assert.equal(pageStart(50, 50, 120, -2), 0);
  assert.equal(pageStart(0, 50, 120, "last"), 100);
  assert.equal(pageStart(0, 50, 100, "last"), 50);
  assert.equal(pageStart(70, 50, 0, "last"), 0);
  assert.deepEqual(nextSort(null, true, 2), { sort: 2, ascending: true });
  assert.deepEqual(nextSort(2, true, 2), { sort: 2, ascending: false });
  assert.deepEqual(nextSort(2, false, 2), { sort: null, ascending: true });
  assert.deepEqual(nextSort(2, false, -1), { sort: -1, ascending: true });
});

test("filter by name or type; numeric dtypes", () => {
  const v = (name: string, type: string): Variable => ({ name, type, shape: null, length: null, size: null, value: "", viewer: false });
  const all = [v("df", "DataFrame"), v("dfx", "int"), v("n", "int")];
  assert.deepEqual(filterVariables(all, " DF ").map((x) => x.name), ["df", "dfx"]);
  assert.deepEqual(filterVariables(all, "int").map((x) => x.name), ["dfx", "n"]);
  assert.equal(filterVariables(all, "").length, 3);
  assert.ok(isNumeric("float64") && isNumeric("Int64") && isNumeric("uint8") && !isNumeric("object") && !isNumeric("str"));
});
