// CodeMirror 6 editors for cells. The extension list is assembled from providers so other modules
// can add behaviour without touching this file: intellisense registers one, and the ghost-text
// completion (issue 4) will register another via `registerEditorExtension`.
//
// Key ownership: Tab indents (ghost text may later take it with a higher precedence when it has a
// suggestion); Ctrl+Space is deliberately unbound (reserved for forced ghost-text requests).

import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, indentMore } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import {
  Compartment,
  EditorSelection,
  EditorState,
  type Extension,
  Prec,
  Transaction,
} from "@codemirror/state";
import { drawSelection, dropCursor, EditorView, keymap, type KeyBinding, ViewPlugin } from "@codemirror/view";
import { yCollab, ySyncAnnotation, yUndoManagerKeymap } from "y-codemirror.next";
import type { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import { editorAppearance } from "./appearance/editor-theme";
import { BEFORE_BINDING, unbound } from "./collab/lazy-binding";
import { remoteCursors } from "./collab/remote-cursors";
import { steadyClick } from "./collab/steady-click";
import type { Connection } from "./connection";
import type { CellType } from "./protocol";

/** What an extension provider may use: the cell it serves, the connection, a place for panels. */
export interface EditorContext {
  cellId: string;
  cellType(): CellType;
  connection: Connection;
  /** An element below the editor where extensions may show panels (inspect docs, ...). */
  panelHost: HTMLElement;
  /** Ask the notebook to leave edit mode (Esc). */
  toCommandMode(): void;
  /** Leave edit mode and act on `event` as a command-mode key; false when it is none. */
  commandKey(event: KeyboardEvent): boolean;
}

export type EditorExtensionProvider = (context: EditorContext) => Extension;

const providers: EditorExtensionProvider[] = [];

/** Add an extension to every editor created from now on (call at module load). */
export function registerEditorExtension(provider: EditorExtensionProvider): void {
  providers.push(provider);
}

/** A change that came from elsewhere (another tab or the server, through the shared text), not from
 * this tab's user. */
export function isRemote(tr: Transaction): boolean {
  return tr.annotation(ySyncAnnotation) !== undefined;
}

/** The cell's shared text (collab/) and the notebook's presence: the editor edits the text itself. */
export interface SharedCell {
  text: Y.Text;
  awareness: Awareness;
}

/** Changes that are one undo step of their own, never merged with the typing around them: a ghost text
 * taken with Tab, an accepted AI edit, a replace. */
const OWN_STEP = ["input.complete", "input.edit", "input.replace"];

/** Keep `OWN_STEP` changes apart in the undo manager (placed before yCollab: it runs before the
 * change reaches the shared text). */
function ownUndoSteps(undo: Y.UndoManager): Extension {
  return ViewPlugin.define(() => {
    let after = false;
    return {
      update(update) {
        if (!update.docChanged || update.transactions.every(isRemote)) return;
        const own = update.transactions.some((tr) => OWN_STEP.some((event) => tr.isUserEvent(event)));
        if (own || after) undo.stopCapturing();
        after = own;
      },
    };
  });
}

export interface EditorHandlers {
  /** `cursor`: the selection's head after the change (the server reads the prompt there, #15);
   * `remote`: another tab's or the server's change. */
  onChange(source: string, cursor: number, remote: boolean): void;
  onFocus(): void;
  /** Notebook-level keys (Shift+Enter, Ctrl+Enter, Alt+Enter, Esc, Ctrl+S). */
  keys: KeyBinding[];
}

let markdownSupport: Extension | null = null;
let markdownLoading: Promise<unknown> | null = null;

/** The Markdown language's chunk (markdown-language.ts), loaded once. */
function loadMarkdown(): Promise<unknown> {
  markdownLoading ??= import("./markdown-language").then(
    (module) => {
      markdownSupport = module.markdownSupport;
    },
    () => {
      markdownLoading = null; // plain text for now: the next Markdown cell tries again
    },
  );
  return markdownLoading;
}

/** Load the languages no cell has asked for yet (after the first paint: a cell may become Markdown). */
export function preloadLanguages(): void {
  void loadMarkdown();
}

/** The languages `types` need that have not loaded (their chunks then loading), or null if none: a
 * notebook's cells are built once they are there, with no second pass to give each its language. */
export function languagesFor(types: Iterable<CellType>): Promise<unknown> | null {
  if (markdownSupport) return null;
  for (const type of types) if (type === "markdown") return loadMarkdown();
  return null;
}

/** Settles when the editors' languages are all there (the Markdown chunk, once a Markdown cell asked). */
export function languagesReady(): Promise<unknown> {
  return markdownLoading ?? Promise.resolve();
}

/** The language of a cell type; a Markdown cell's is plain text until its chunk has loaded. */
function languageFor(type: CellType): Extension {
  if (type === "code") return python();
  if (type === "markdown") return markdownSupport ?? [];
  return [];
}

/** Tab: indent the selection, or insert spaces to the next indent stop at the cursor. */
function indentOrInsertSpaces(view: EditorView): boolean {
  const { state } = view;
  if (state.selection.ranges.some((range) => !range.empty)) return indentMore(view);
  const unit = state.facet(indentUnit);
  view.dispatch(
    state.changeByRange((range) => {
      const line = state.doc.lineAt(range.head);
      const column = range.head - line.from;
      const spaces = unit.length - (column % unit.length);
      const text = " ".repeat(spaces || unit.length);
      return {
        changes: { from: range.head, insert: text },
        range: EditorSelection.cursor(range.head + text.length),
      };
    }),
    { userEvent: "input.indent", scrollIntoView: true },
  );
  return true;
}

const baseTheme = EditorView.theme({
  ".cm-content": { fontFamily: "var(--mono)", padding: "6px 0" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.45" },
  "&.cm-focused": { outline: "none" },
});

export class CellEditor {
  readonly view: EditorView;
  private readonly language = new Compartment();
  private readonly readOnly = new Compartment();
  /** The Yjs binding (collab/lazy-binding.ts): made when the editor is first used. */
  private readonly collab = new Compartment();
  /** Undo of this tab's own typing only (Yjs' UndoManager: another tab's changes are never undone here). */
  private undo: Y.UndoManager | null = null;
  private bound = false;
  private readonly shared: SharedCell;
  private type: CellType;
  private destroyed = false;

  /** The editor shows and edits the cell's shared text (collab/): every tab's typing meets there. */
  constructor(
    parent: HTMLElement,
    shared: SharedCell,
    type: CellType,
    context: EditorContext,
    handlers: EditorHandlers,
  ) {
    this.type = type;
    this.shared = shared;
    const binding = { text: shared.text, undoManager: () => this.undoManager(), bind: () => this.bind() };
    const extensions: Extension[] = [
      this.collab.of(unbound(binding)),
      steadyClick(), // a click is a caret even when another tab types before it during the press
      drawSelection(),
      dropCursor(),
      indentOnInput(),
      bracketMatching(),
      closeBrackets(),
      highlightSelectionMatches(),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      indentUnit.of("    "),
      EditorState.tabSize.of(4),
      this.language.of(languageFor(type)),
      this.readOnly.of(EditorState.readOnly.of(false)),
      baseTheme,
      editorAppearance(),
      Prec.high(keymap.of(handlers.keys)),
      keymap.of([
        { key: "Tab", run: indentOrInsertSpaces },
        ...closeBracketsKeymap,
        ...defaultKeymap,
        // Ctrl+F is the notebook's find bar (search/notebook-search.ts), not CodeMirror's per-cell panel.
        ...searchKeymap.filter((binding) => binding.key !== "Mod-f" && binding.key !== "F3" && binding.key !== "Mod-g"),
      ]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) {
          const remote = update.transactions.every((tr) => !tr.docChanged || isRemote(tr));
          handlers.onChange(update.state.doc.toString(), update.state.selection.main.head, remote);
        }
        if (update.focusChanged && update.view.hasFocus) handlers.onFocus();
      }),
      ...providers.map((provider) => provider(context)),
    ];
    this.view = new EditorView({
      parent,
      state: EditorState.create({ doc: shared.text.toString(), extensions }),
    });
    this.awaitLanguage();
  }

  /** Bind the editor to its shared text (its first use: focus, a change here, another tab's cursor). */
  bind(): void {
    if (this.bound || this.destroyed) return;
    this.bound = true;
    const undo = this.undoManager();
    const { text, awareness } = this.shared;
    this.view.dispatch({
      effects: this.collab.reconfigure([
        ownUndoSteps(undo),
        yCollab(text, null, { undoManager: undo }), // its cursors show names as text: ours do not
        remoteCursors(text, awareness),
        keymap.of(yUndoManagerKeymap),
        EditorView.editorAttributes.of({ "data-shared": "bound" }),
      ]),
    });
  }

  private undoManager(): Y.UndoManager {
    if (!this.undo) {
      this.undo = new Y.UndoManager(this.shared.text);
      this.undo.addTrackedOrigin(BEFORE_BINDING);
    }
    return this.undo;
  }

  get source(): string {
    return this.view.state.doc.toString();
  }

  setReadOnly(readOnly: boolean): void {
    this.view.dispatch({ effects: this.readOnly.reconfigure(EditorState.readOnly.of(readOnly)) });
  }

  setType(type: CellType): void {
    this.type = type;
    this.view.dispatch({ effects: this.language.reconfigure(languageFor(type)) });
    this.awaitLanguage();
  }

  /** A Markdown cell made before its language's chunk loaded gets the language when it has. */
  private awaitLanguage(): void {
    if (this.type !== "markdown" || markdownSupport) return;
    void loadMarkdown().then(() => {
      if (this.type === "markdown" && !this.destroyed) {
        this.view.dispatch({ effects: this.language.reconfigure(languageFor("markdown")) });
      }
    });
  }

  /** Focus the editor, optionally moving the cursor to the start or the end of the text. */
  focus(at?: "start" | "end"): void {
    this.bind();
    if (at) {
      const pos = at === "end" ? this.view.state.doc.length : 0;
      this.view.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
    }
    this.view.focus();
  }

  /** True when the cursor is a single caret on the first (or last) line. */
  caretOnEdgeLine(edge: "first" | "last"): boolean {
    const { state } = this.view;
    const range = state.selection.main;
    if (!range.empty || state.selection.ranges.length > 1) return false;
    const line = state.doc.lineAt(range.head).number;
    return edge === "first" ? line === 1 : line === state.doc.lines;
  }

  blur(): void {
    this.view.contentDOM.blur();
  }

  hasFocus(): boolean {
    return this.view.hasFocus;
  }

  destroy(): void {
    this.destroyed = true;
    this.view.destroy();
    this.undo?.destroy();
  }
}
