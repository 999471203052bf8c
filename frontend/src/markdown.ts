// Markdown to sanitised HTML (markdown-it renders, DOMPurify removes scripts and handlers).
// Images named `attachment:NAME` (markdown or HTML) come from the cell's nbformat attachments.
// TeX math (`$…$`, `$$…$$`, `\begin{env}…\end{env}`) is marked up for KaTeX: see math.ts.

import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import { hookLinks } from "./markdown-files/links";
import { mathPlugin } from "./math";
import type { Attachments } from "./protocol";

const md = new MarkdownIt({ html: true, linkify: true }).use(mathPlugin);
/** A model's answer (ask/): its HTML is shown as text, never as markup. */
const textOnly = new MarkdownIt({ html: false, linkify: true }).use(mathPlugin);

/** The attachments of the cell being sanitised (the DOMPurify hook is global, the call synchronous). */
let current: Attachments | null = null;

/** A data: URL for attachment `name`, or null when the cell has no such image. */
export function attachmentUrl(attachments: Attachments, name: string): string | null {
  const bundle = attachments[name] ?? attachments[safeDecode(name)];
  if (!bundle) return null;
  const mime = Object.keys(bundle).find((m) => m.startsWith("image/"));
  if (!mime) return null;
  const raw = bundle[mime];
  const data = Array.isArray(raw) ? raw.join("") : String(raw);
  if (mime === "image/svg+xml" && data.trimStart().startsWith("<")) {
    return `data:${mime};charset=utf-8,${encodeURIComponent(data)}`;
  }
  return `data:${mime};base64,${data.replace(/\s+/g, "")}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

let hooked = false;

/** `attachment:NAME` sources become data: URLs before DOMPurify checks them (added on first use: the
 * hook needs a DOM, which unit tests under node do not have). */
function hookAttachments(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook("uponSanitizeAttribute", (_node, data) => {
    if (data.attrName !== "src" || !data.attrValue.startsWith("attachment:")) return;
    const url = current ? attachmentUrl(current, data.attrValue.slice("attachment:".length)) : null;
    data.attrValue = url ?? "";
  });
  hookLinks(DOMPurify); // relative files from /files/, links in a new tab
}

export function sanitizeHtml(html: string, attachments: Attachments | null = null): string {
  hookAttachments();
  current = attachments;
  try {
    return DOMPurify.sanitize(html, { ADD_ATTR: ["target"] });
  } finally {
    current = null;
  }
}

export function renderMarkdown(source: string, attachments: Attachments | null = null): string {
  return sanitizeHtml(md.render(source), attachments);
}

/** Markdown written by a model (the Ask panel's answers): HTML in it stays text; sanitised all the same. */
export function renderModelMarkdown(source: string): string {
  return sanitizeHtml(textOnly.render(source));
}
