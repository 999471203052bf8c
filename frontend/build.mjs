// Bundles src/main.ts (and the CSS it imports) into the server package's static build folder.
import * as esbuild from "esbuild";

const watch = process.argv.includes("--watch");
const options = {
  entryPoints: { main: "src/main.ts" },
  bundle: true,
  format: "esm",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  outdir: "../notebook/ghostbook/web/static/build",
  minify: !watch,
  sourcemap: true,
  logLevel: "info",
  legalComments: "linked",
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}
