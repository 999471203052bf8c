// Output renderers' pure parts: the frame's policy and document, height messages, the mime choice,
// and what each library needs (issue 29 items 1 and 2).

import assert from "node:assert/strict";
import { test } from "node:test";
import { pickMime } from "../src/outputs";
import { bokehRoots, bokehScripts, isBokehLoadingNote } from "../src/outputs/bokeh";
import { frameDocument, frameHeight, framePolicy, inertJson, MAX_FRAME_HEIGHT } from "../src/outputs/frame";
import { librariesFor } from "../src/outputs/html";
import { plotlyBundle } from "../src/outputs/plotly";
import { vegaPrelude } from "../src/outputs/vega";

const ORIGIN = "http://127.0.0.1:8888";

test("a frame's policy allows no network but the server's static scripts", () => {
  const policy = framePolicy(ORIGIN, false);
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /connect-src 'none'/);
  assert.match(policy, /form-action 'none'/);
  assert.match(policy, new RegExp(`script-src ${ORIGIN}/static/ 'unsafe-eval'(;|$)`));
  assert.doesNotMatch(policy, /unsafe-inline'?[^;]*script|script-src[^;]*unsafe-inline/);
  assert.match(framePolicy(ORIGIN, true), /script-src [^;]*'unsafe-inline'/);
  assert.doesNotMatch(policy, /https?:\/\/(?!127\.0\.0\.1:8888)/); // no other host anywhere
});

test("the frame document puts the policy first and its data where no script can break out", () => {
  const doc = frameDocument(ORIGIN, { title: "t", bundles: ["plotly"], data: { x: "</script><script>alert(1)</script>" }, body: "<p>hi</p>" });
  const head = doc.slice(0, doc.indexOf("</head>"));
  assert.ok(head.indexOf("Content-Security-Policy") < head.indexOf("<script"));
  assert.ok(!head.includes("</script><script>alert"));
  assert.ok(head.includes(`<script src="${ORIGIN}/static/build/frames/runtime.js"></script><script src="${ORIGIN}/static/build/frames/plotly.js">`));
  assert.ok(doc.endsWith("<body><p>hi</p></body></html>"));
  assert.equal(JSON.parse(inertJson({ a: "<!-- </script> \u2028" })).a, "<!-- </script> \u2028");
});

test("only a finite height message sizes a frame, clamped", () => {
  assert.equal(frameHeight({ ghostbook: "height", height: 120.2 }), 121);
  assert.equal(frameHeight({ ghostbook: "height", height: 1e9 }), MAX_FRAME_HEIGHT);
  assert.equal(frameHeight({ ghostbook: "height", height: -5 }), 0);
  for (const bad of [{ ghostbook: "height", height: "99" }, { ghostbook: "height", height: NaN }, { height: 10 }, null, "height", 10]) {
    assert.equal(frameHeight(bad), null, JSON.stringify(bad));
  }
});

test("the richest mime type wins, in JupyterLab's order, with the bundled renderers first", () => {
  const plotly = { "application/vnd.plotly.v1+json": {}, "text/html": "<script></script>", "text/plain": "Figure" };
  assert.equal(pickMime(plotly), "application/vnd.plotly.v1+json");
  assert.equal(pickMime({ "application/vnd.vegalite.v6.json": "{}", "text/plain": "x" }), "application/vnd.vegalite.v6.json");
  assert.equal(pickMime({ "application/vnd.vega.v5+json": {}, "image/png": "AAA" }), "application/vnd.vega.v5+json");
  assert.equal(pickMime({ "application/javascript": "1", "text/html": "<b>x</b>" }), "text/html");
  assert.equal(pickMime({ "application/javascript": "1", "text/plain": "x" }), "application/javascript");
  const exec = { "application/javascript": "Bokeh.embed", "application/vnd.bokehjs_exec.v0+json": "" };
  assert.equal(pickMime(exec), "application/vnd.bokehjs_exec.v0+json");
  assert.equal(pickMime({ "text/latex": "$x$", "image/png": "AAA", "text/plain": "x" }), "text/latex"); // KaTeX
});

test("bokeh: the loader's note is recognised, the roots and the files come from the embed code", () => {
  assert.ok(isBokehLoadingNote({ "text/html": '<a class="bk-notebook-logo"></a><span id="x">Loading BokehJS ...</span>' }));
  assert.ok(!isBokehLoadingNote({ "text/html": "<b>Loading</b>" }));
  const code = 'const docs_json = {"d":{"version":"3.9.2","roots":[{"name":"Figure","output_backend":"webgl"}]}};\n'
    + '  const render_items = [{"docid":"d","roots":{"p1008":"ee7c"},"root_ids":["p1008"]}];\n'
    + "  void root.Bokeh.embed.embed_items_notebook(docs_json, render_items);";
  assert.deepEqual(bokehRoots(code), { p1008: "ee7c" });
  assert.deepEqual(bokehScripts(code), ["bokeh/bokeh.min.js", "bokeh/bokeh-gl.min.js", "bokeh/bokeh-widgets.min.js", "bokeh/bokeh-tables.min.js"]);
  assert.ok(bokehScripts('{"name":"TeX"}').includes("bokeh/bokeh-mathjax.min.js"));
  assert.deepEqual(bokehRoots("no items here"), {});
});

test("HTML that calls a bundled library gets it, and altair's template is told it is loaded", () => {
  const altair = 'maybeLoadScript("vega", "6")\n .then(() => maybeLoadScript("vega-lite", "6.4.1"))\n'
    + '.then(() => maybeLoadScript("vega-embed", "7")) .then(() => displayChart(vegaEmbed));';
  const libraries = librariesFor(altair);
  assert.deepEqual(libraries.bundles, ["vega"]);
  assert.match(libraries.prelude, /"vega_version":"6","vegalite_version":"6.4.1","vegaembed_version":"7"/);
  assert.equal(vegaPrelude("<b>nothing</b>"), "");
  assert.deepEqual(librariesFor('Plotly.newPlot("id", data)').bundles, ["plotly"]);
  assert.deepEqual(librariesFor("<b>plain</b>"), { bundles: [], scripts: [], prelude: "" });
});

test("plotly: the cartesian bundle when every trace is cartesian, else the full one", () => {
  assert.equal(plotlyBundle({ data: [{ type: "scatter" }, { x: [1] }, { type: "histogram" }] }), "plotly-cartesian");
  assert.equal(plotlyBundle({ data: [{ type: "scatter" }, { type: "scatter3d" }] }), "plotly");
  assert.equal(plotlyBundle({ data: [{ type: "bar" }], frames: [{ data: [{ type: "scattergl" }] }] }), "plotly");
  assert.equal(plotlyBundle({ data: [{ type: 5 }] }), "plotly");
  assert.equal(plotlyBundle(null), "plotly-cartesian"); // nothing to draw: the small one
});
