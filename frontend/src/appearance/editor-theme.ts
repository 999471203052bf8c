// CodeMirror's share of the appearance, for the cell editors and the Edit with AI review editor: the font
// size from `--editor-font-size` (live: a CSS variable), syntax colours as CSS variables (styles.css gives
// each a light and a dark value: CodeMirror's default colours and One Dark's), and CodeMirror's own dark
// flag (its cursor, selection, gutters, panels, tooltips and the merge view's colours) switched with the
// theme in effect.

import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { Compartment, type Extension } from "@codemirror/state";
import { EditorView, ViewPlugin } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";
import { currentTheme, onThemeChange, type Theme } from "./appearance";

const v = (name: string) => `var(--syntax-${name})`;

/** defaultHighlightStyle's tags, with colours that follow the theme. */
export const themedHighlightStyle = HighlightStyle.define([
  { tag: t.meta, color: v("meta") },
  { tag: t.link, textDecoration: "underline" },
  { tag: t.heading, textDecoration: "underline", fontWeight: "bold" },
  { tag: t.emphasis, fontStyle: "italic" },
  { tag: t.strong, fontWeight: "bold" },
  { tag: t.strikethrough, textDecoration: "line-through" },
  { tag: t.keyword, color: v("keyword") },
  { tag: [t.atom, t.bool, t.url, t.contentSeparator, t.labelName], color: v("atom") },
  { tag: [t.literal, t.inserted], color: v("literal") },
  { tag: [t.string, t.deleted], color: v("string") },
  { tag: [t.regexp, t.escape, t.special(t.string)], color: v("escape") },
  { tag: t.definition(t.variableName), color: v("definition") },
  { tag: t.local(t.variableName), color: v("local") },
  { tag: [t.typeName, t.namespace], color: v("type") },
  { tag: t.className, color: v("class") },
  { tag: [t.special(t.variableName), t.macroName], color: v("special") },
  { tag: t.definition(t.propertyName), color: v("property") },
  { tag: t.comment, color: v("comment") },
  { tag: t.invalid, color: v("invalid") },
]);

const fontTheme = EditorView.theme({ "&": { fontSize: "var(--editor-font-size, 14px)" } });
const darkFlag = (theme: Theme): Extension => EditorView.darkTheme.of(theme === "dark");

/** The appearance extension of one editor (each call: its own compartment). */
export function editorAppearance(): Extension {
  const flag = new Compartment();
  const follower = ViewPlugin.define((view) => ({
    destroy: onThemeChange((theme) => view.dispatch({ effects: flag.reconfigure(darkFlag(theme)) })),
  }));
  return [syntaxHighlighting(themedHighlightStyle), fontTheme, flag.of(darkFlag(currentTheme())), follower];
}
