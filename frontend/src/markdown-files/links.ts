// Markdown beside its files: relative image sources and links (`![plot](pic.png)`, `[data](data/x.csv)`)
// resolve against the notebook's folder to the server's `/files/` route (web/markdown_files.py); links
// that leave the page open in a new tab (`target="_blank"`, `rel="noopener noreferrer"`); `#heading`
// links stay in the page (the outline follows them).

import type DOMPurify from "dompurify";

let notebookDir = "";

/** The notebook now lives at `path` (opened, renamed or moved): relative URLs resolve from its folder. */
export function setNotebookPath(path: string): void {
  const at = path.lastIndexOf("/");
  notebookDir = at === -1 ? "" : path.slice(0, at);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `/files/...` for a URL relative to the notebook's folder `dir`; null for anything else (a scheme,
 * an absolute path, `#fragment`, `attachment:`) or a path that climbs out of the notebook root. */
export function resolveRelative(url: string, dir: string = notebookDir): string | null {
  if (!url || /^[a-z][a-z0-9+.-]*:/i.test(url) || /^[/\\#?]/.test(url)) return null;
  const cut = url.search(/[?#]/);
  const path = cut === -1 ? url : url.slice(0, cut);
  const rest = cut === -1 ? "" : url.slice(cut);
  const parts = dir ? dir.split("/") : [];
  for (const segment of path.split("/")) {
    const part = safeDecode(segment);
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (!parts.length) return null;
      parts.pop();
    } else parts.push(part);
  }
  if (!parts.length) return null;
  return "/files/" + parts.map(encodeURIComponent).join("/") + rest;
}

/** DOMPurify hooks (installed once, with a DOM): rewrite relative `src`/`href`, open links in a new tab. */
export function hookLinks(purify: typeof DOMPurify): void {
  purify.addHook("uponSanitizeAttribute", (node, data) => {
    if (data.attrName !== "src" && data.attrName !== "href") return;
    if (data.attrName === "href" && node.nodeName !== "A") return;
    const resolved = resolveRelative(data.attrValue);
    if (resolved !== null) data.attrValue = resolved;
  });
  purify.addHook("afterSanitizeAttributes", (node) => {
    if (node.nodeName !== "A") return;
    const href = node.getAttribute("href");
    if (href === null || href.startsWith("#")) return;
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  });
}
