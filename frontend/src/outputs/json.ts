// application/json as a collapsible tree (as JupyterLab shows it): the top level open, deeper levels
// closed and built only when first opened, so a large document costs nothing until explored.

export function jsonTree(value: unknown): HTMLElement {
  if (typeof value === "string") {
    try {
      value = JSON.parse(value); // older notebooks keep JSON as text
    } catch {
      // shown as the string it is
    }
  }
  const root = document.createElement("div");
  root.className = "json-tree";
  root.dataset.testid = "json-tree";
  root.appendChild(jsonNode(null, value, true));
  return root;
}

function jsonNode(key: string | null, value: unknown, open = false): HTMLElement {
  const label = (): DocumentFragment => {
    const fragment = document.createDocumentFragment();
    if (key !== null) fragment.append(span("json-key", `${key}: `));
    return fragment;
  };
  if (value === null || typeof value !== "object") {
    const leaf = document.createElement("div");
    const kind = value === null ? "null" : typeof value;
    leaf.append(label(), span(`json-${kind}`, JSON.stringify(value) ?? String(value)));
    return leaf;
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value as Record<string, unknown>);
  const details = document.createElement("details");
  details.dataset.testid = "json-node";
  const summary = document.createElement("summary");
  const [openBracket, closeBracket] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  const noun = Array.isArray(value) ? "item" : "key";
  const count = `${entries.length} ${noun}${entries.length === 1 ? "" : "s"}`;
  summary.append(label(), `${openBracket}`, span("json-summary", ` ${count} `), closeBracket);
  details.appendChild(summary);
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    for (const [childKey, child] of entries) details.appendChild(jsonNode(childKey, child));
  };
  details.addEventListener("toggle", () => details.open && build());
  if (open) {
    details.open = true;
    build();
  }
  return details;
}

function span(className: string, text: string): HTMLSpanElement {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}
