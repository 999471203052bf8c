// Stands in for sanitize-html in the widget bundle (build.mjs's alias): @jupyter-widgets/base-manager
// imports it for its default `inline_sanitize`, which widgets-manager.ts overrides with the page's
// DOMPurify sanitiser, so this is never called; it strips every tag should that ever change.
export default function sanitize(html: string): string {
  const doc = new DOMParser().parseFromString(html, "text/html");
  return (doc.body.textContent ?? "").replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
