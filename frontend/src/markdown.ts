// Markdown to sanitised HTML (markdown-it renders, DOMPurify removes scripts and handlers).

import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: true, linkify: true });

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, { ADD_ATTR: ["target"] });
}

export function renderMarkdown(source: string): string {
  return sanitizeHtml(md.render(source));
}
