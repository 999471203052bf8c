// Relative URLs in Markdown resolve against the notebook's folder to /files/ (src/markdown-files/links.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveRelative } from "../src/markdown-files/links";

test("markdown files: relative paths resolve from the notebook's folder to /files/", () => {
  assert.equal(resolveRelative("pic.png", ""), "/files/pic.png");
  assert.equal(resolveRelative("pic.png", "reports/2024"), "/files/reports/2024/pic.png");
  assert.equal(resolveRelative("./data/x.csv", "reports"), "/files/reports/data/x.csv");
  assert.equal(resolveRelative("../shared/a%20b.png", "reports"), "/files/shared/a%20b.png");
  assert.equal(resolveRelative("data/x.csv#row=2", ""), "/files/data/x.csv#row=2");
});

test("markdown files: other URLs are left alone, and nothing climbs out of the root", () => {
  for (const url of ["https://example.com/x.png", "attachment:a.png", "data:image/png;base64,AA", "#Intro", "/abs.png",
                     "//host/x.png", "mailto:a@b.c", "javascript:alert(1)", ""]) {
    assert.equal(resolveRelative(url, "reports"), null, url);
  }
  assert.equal(resolveRelative("../../etc/passwd", "reports"), null);
  assert.equal(resolveRelative("..", ""), null);
});
