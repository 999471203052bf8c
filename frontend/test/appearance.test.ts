// Appearance (issue 37 item 8): a plotly figure's colours under the dark theme.

import assert from "node:assert/strict";
import { test } from "node:test";
import { frameDocument } from "../src/outputs/frame";
import { DARK_LAYOUT, themedLayout } from "../src/outputs/frames/plotly-theme";

const PLOTLY_DEFAULT = { data: { bar: [{ type: "bar" }] }, layout: { plot_bgcolor: "#E5ECF6", colorway: ["#636efa"] } };

test("plotly's default template becomes plotly_dark's colours under the dark theme", () => {
  const layout = { title: { text: "t" }, template: PLOTLY_DEFAULT };
  assert.equal(themedLayout(layout, "light"), layout); // light: untouched
  const dark = themedLayout(layout, "dark") as { title: unknown; template: { layout: Record<string, unknown>; data: Record<string, unknown> } };
  assert.deepEqual(dark.title, { text: "t" });
  assert.equal(dark.template.layout.plot_bgcolor, DARK_LAYOUT.plot_bgcolor);
  assert.equal(dark.template.layout.paper_bgcolor, "rgb(17,17,17)");
  assert.deepEqual(dark.template.layout.colorway, ["#636efa"]); // the rest of the template stays
  assert.ok(dark.template.data.bar && dark.template.data.table);
  // no template at all (plotly.js's own look): dark too
  assert.equal((themedLayout({}, "dark") as { template: { layout: { paper_bgcolor: string } } }).template.layout.paper_bgcolor,
    "rgb(17,17,17)");
});

test("a figure's own template or colours are kept under the dark theme", () => {
  const own = { template: { layout: { plot_bgcolor: "#fafafa" } } };
  assert.equal(themedLayout(own, "dark"), own);
  const explicit = themedLayout({ paper_bgcolor: "pink" }, "dark") as { paper_bgcolor: string };
  assert.equal(explicit.paper_bgcolor, "pink"); // the layout's own colour wins over any template
});

test("a frame carries the theme it was made under", () => {
  assert.match(frameDocument("http://x", { title: "t", theme: "dark" }), /^<!doctype html><html data-theme="dark">/);
  assert.match(frameDocument("http://x", { title: "t" }), /<html data-theme="light">/); // no page: light
});
