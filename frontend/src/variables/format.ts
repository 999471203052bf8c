// How the Variables panel and the data viewer write sizes, shapes and page ranges (pure, unit-tested).

import type { Variable } from "../protocol";

const UNITS = ["B", "KB", "MB", "GB", "TB"];

/** 1536 -> "1.5 KB" (powers of 1024, as JupyterLab's file browser writes sizes); null -> "". */
export function bytesText(bytes: number | null): string {
  if (bytes === null || !Number.isFinite(bytes) || bytes < 0) return "";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${UNITS[unit]}`;
}

/** "1,000 × 3" for a shape, "len 5" for a sized builtin, "" otherwise. */
export function shapeText(variable: Pick<Variable, "shape" | "length">): string {
  if (variable.shape) return variable.shape.length ? variable.shape.map(count).join(" × ") : "scalar";
  return variable.length === null ? "" : `len ${count(variable.length)}`;
}

export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** "Rows 51–100 of 10,000,000" (1-based, inclusive); "No rows" for an empty table. */
export function rangeText(start: number, rows: number, total: number): string {
  if (total === 0 || rows === 0) return "No rows";
  return `Rows ${count(start + 1)}–${count(start + rows)} of ${count(total)}`;
}

/** The first row of the page `delta` pages from `start` (clamped to the table); `last`: the last page. */
export function pageStart(start: number, pageSize: number, total: number, delta: number | "first" | "last"): number {
  const lastStart = total === 0 ? 0 : Math.floor((total - 1) / pageSize) * pageSize;
  if (delta === "first") return 0;
  if (delta === "last") return lastStart;
  return Math.max(0, Math.min(lastStart, start + delta * pageSize));
}

/** Sorting a column cycles ascending, descending, as it is (a click on another column starts ascending). */
export function nextSort(sort: number | null, ascending: boolean, column: number): { sort: number | null; ascending: boolean } {
  if (sort !== column) return { sort: column, ascending: true };
  return ascending ? { sort: column, ascending: false } : { sort: null, ascending: true };
}

/** Variables whose name or type contains `filter` (case-insensitive). */
export function filterVariables(variables: Variable[], filter: string): Variable[] {
  const needle = filter.trim().toLowerCase();
  if (!needle) return variables;
  return variables.filter((v) => v.name.toLowerCase().includes(needle) || v.type.toLowerCase().includes(needle));
}

/** Numbers are right-aligned: numpy/pandas dtypes int*, uint*, float*, complex* (and their nullable Int64...). */
export function isNumeric(dtype: string): boolean {
  return /^(u?int|float|complex)\d*$/i.test(dtype);
}
