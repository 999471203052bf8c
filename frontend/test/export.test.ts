// Export and upload helpers (src/export/): the saved file's name, the size check's message.

import assert from "node:assert/strict";
import { test } from "node:test";
import { dispositionName, exportUrl } from "../src/export/download";
import { tooLarge } from "../src/export/upload";

test("export: the file name from Content-Disposition, filename* first", () => {
  assert.equal(dispositionName('attachment; filename="table.csv"', "x"), "table.csv");
  assert.equal(dispositionName("attachment; filename=\"Caf? notes.py\"; filename*=UTF-8''Caf%C3%A9%20notes.py", "x"), "Café notes.py");
  assert.equal(dispositionName("attachment; filename*=UTF-8''%E0%A4%A", "fallback.py"), "fallback.py");
  assert.equal(dispositionName(null, "fallback.py"), "fallback.py");
  assert.equal(exportUrl("a b/c&d.ipynb", "html"), "/api/export?path=a%20b%2Fc%26d.ipynb&to=html");
});

test("upload: the too-large message names the file and the limit", () => {
  assert.equal(tooLarge("big.csv", 10 * 1024),
    "big.csv is too large: uploads are limited to 10 KB (start ghostbook with --max-upload-mb to change it)");
  assert.equal(tooLarge("x", 100 * 1024 * 1024).includes("100.0 MB"), true);
});
