// Bundles src/main.ts (and the CSS it imports) into the server package's static build folder.
import { writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import * as esbuild from "esbuild";

const watch = process.argv.includes("--watch");
const options = {
  // katex: loaded on first use by src/math.ts (KaTeX and its fonts, ~0.3 MB + 1 MB of fonts, off the main bundle)
  entryPoints: {
    main: "src/main.ts",
    katex: "src/katex-entry.ts",
    // widgets: the Jupyter widget manager and controls, with their CSS, loaded by src/outputs/widgets.ts
    // the first time a notebook has a widget
    widgets: "src/outputs/widgets-manager.ts",
    // charts: uPlot and its CSS, loaded by src/telemetry-panel.ts when the settings panel first shows the
    // user's completion statistics
    charts: "src/telemetry-chart.ts",
  },
  // base-manager's default description sanitiser (sanitize-html, with postcss) is never used: ours is DOMPurify
  alias: { "sanitize-html": "./src/outputs/sanitize-html-unused.ts" },
  bundle: true,
  format: "esm",
  // chunks loaded on first use by `import()` (markdown-language.ts) and the modules the entry points share
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  outdir: "../notebook/ghostbook/web/static/build",
  minify: !watch,
  sourcemap: true,
  logLevel: "info",
  legalComments: "linked",
  loader: { ".woff2": "file", ".woff": "file", ".ttf": "file" },
  assetNames: "assets/[name]-[hash]",
  metafile: true,
};

// The chunks main.js imports statically, for the page's <link rel="modulepreload"> (web/pages.py): the
// browser fetches and compiles them beside main.js instead of after reading it.
function writePreloads(result) {
  const main = Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint === "src/main.ts");
  const base = resolve(options.outdir);
  const chunks = (main?.[1].imports ?? [])
    .filter((entry) => entry.kind === "import-statement")
    .map((entry) => relative(base, resolve(entry.path)).split(sep).join("/"));
  writeFileSync(join(base, "preload.json"), JSON.stringify(chunks) + "\n");
}

// Output frames (src/outputs/frames/): classic scripts (a sandboxed frame has an opaque origin, and a
// module script would need CORS), each loaded only by the frames that draw its mime type.
const frames = {
  entryPoints: {
    "frames/runtime": "src/outputs/frames/runtime.ts",
    "frames/plotly": "src/outputs/frames/plotly.ts",
    "frames/plotly-cartesian": "src/outputs/frames/plotly-cartesian.ts",
    "frames/vega": "src/outputs/frames/vega.ts",
  },
  bundle: true,
  format: "iife",
  target: options.target,
  outdir: options.outdir,
  minify: !watch,
  sourcemap: true,
  logLevel: "info",
  legalComments: "linked",
};

// Math and widgets for exported HTML files (src/export/*-entry.ts): classic scripts and stylesheets whose
// fonts are inlined (woff2, which every current browser reads), so the server can put them in the file.
const exportMath = {
  entryPoints: { "export/math": "src/export/math-entry.ts", "export/widgets": "src/export/widgets-entry.ts" },
  bundle: true,
  format: "iife",
  target: options.target,
  outdir: options.outdir,
  minify: !watch,
  logLevel: "info",
  legalComments: "none",
  loader: { ".woff2": "dataurl", ".woff": "empty", ".ttf": "empty" },
};

if (watch) {
  const preloads = { name: "preloads", setup: (build) => build.onEnd((result) => result.metafile && writePreloads(result)) };
  await (await esbuild.context({ ...options, plugins: [preloads] })).watch();
  for (const config of [frames, exportMath]) await (await esbuild.context(config)).watch();
} else {
  const [result] = await Promise.all([esbuild.build(options), esbuild.build(frames), esbuild.build(exportMath)]);
  writePreloads(result);
}
