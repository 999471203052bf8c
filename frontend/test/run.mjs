// Bundles the unit tests with esbuild and runs them with node's built-in test runner.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esbuild from "esbuild";

const out = mkdtempSync(join(tmpdir(), "ghostbook-unit-"));
try {
  await esbuild.build({
    entryPoints: ["test/unit.test.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: join(out, "unit.test.mjs"),
    logLevel: "warning",
  });
  const result = spawnSync(process.execPath, ["--test", join(out, "unit.test.mjs")], { stdio: "inherit" });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
