// Missing packages (src/install.ts): which errors get an Install button, and for which distribution.

import assert from "node:assert/strict";
import { test } from "node:test";
import { distributionFor, missingModule } from "../src/install";
import type { Output } from "../src/protocol";

function notFound(evalue: string, ename = "ModuleNotFoundError"): Output {
  return { output_type: "error", ename, evalue, traceback: [] } as Output;
}

test("install: the module a ModuleNotFoundError names, by its top-level package", () => {
  assert.equal(missingModule(notFound("No module named 'pandas'")), "pandas");
  assert.equal(missingModule(notFound("No module named 'sklearn.linear_model'")), "sklearn");
  assert.equal(missingModule(notFound("No module named 'foo'; 'foo' is not a package")), "foo");
  assert.equal(missingModule(notFound("No module named '_ctypes'")), null);
  assert.equal(missingModule(notFound("cannot import name 'x' from 'y'", "ImportError")), null);
  assert.equal(missingModule({ output_type: "stream", name: "stdout", text: "No module named 'x'" } as Output), null);
});

test("install: import names map to their distributions", () => {
  const cases: [string, string][] = [
    ["sklearn", "scikit-learn"], ["cv2", "opencv-python"], ["PIL", "pillow"], ["yaml", "PyYAML"],
    ["bs4", "beautifulsoup4"], ["skimage", "scikit-image"], ["dateutil", "python-dateutil"], ["pandas", "pandas"],
  ];
  for (const [module, distribution] of cases) assert.equal(distributionFor(module), distribution, module);
  assert.equal(distributionFor("tkinter"), null);
});
