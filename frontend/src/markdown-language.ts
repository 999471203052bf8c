// The Markdown cells' editor language, in a chunk of its own (build.mjs splits it out with the HTML, CSS
// and JavaScript grammars that lang-markdown brings): loaded when a notebook first shows a Markdown cell,
// not before the first paint of every notebook.

import { markdown } from "@codemirror/lang-markdown";
import type { Extension } from "@codemirror/state";
import { markdownLists } from "./markdown-lists";

export const markdownSupport: Extension = [markdown({ addKeymap: false }), markdownLists];
