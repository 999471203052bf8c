// Kernel intellisense: the kernel's complete_request feeds CodeMirror's autocomplete popup while
// typing identifiers and after `.`; Shift+Tab asks the kernel to inspect and shows the docs.
// Keys: Enter accepts, arrows move, Esc closes. Tab and Ctrl+Space are NOT bound here: they are
// reserved for ghost text (issue 4).

import {
  acceptCompletion,
  autocompletion,
  closeCompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
  completionStatus,
  moveCompletionSelection,
} from "@codemirror/autocomplete";
import { indentLess } from "@codemirror/commands";
import { Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { ansiToHtml } from "./ansi";
import { type EditorContext, registerEditorExtension } from "./editor";
import { toCodePoints, toUtf16 } from "./offsets";
import type { CompleteReply, InspectReply } from "./protocol";
import { showToast } from "./toast";

const TYPE_MAP: Record<string, string> = {
  function: "function",
  builtin_function_or_method: "function",
  method: "method",
  class: "class",
  type: "class",
  module: "namespace",
  keyword: "keyword",
  instance: "variable",
  statement: "variable",
  param: "variable",
  property: "property",
  path: "text",
  magic: "keyword",
};

function kernelCompletionSource(context: EditorContext) {
  return async (cm: CompletionContext): Promise<CompletionResult | null> => {
    if (context.cellType() !== "code") return null;
    const word = cm.matchBefore(/[\w%]+$|\.[\w]*$/);
    if (!cm.explicit && !word) return null;
    const text = cm.state.doc.toString();
    const reply = await context.connection.request<CompleteReply>({
      type: "complete",
      cell_id: context.cellId,
      cursor: toCodePoints(text, cm.pos),
    });
    if (!reply || reply.type !== "complete_reply" || cm.aborted || !reply.matches.length) return null;
    // the answer came after the user left the cell (ran it, clicked elsewhere): no popup in a cell not edited
    if (cm.view && !cm.view.hasFocus) return null;
    const from = toUtf16(text, reply.cursor_start);
    const to = toUtf16(text, reply.cursor_end);
    const options: Completion[] = reply.matches.map((label, i) => {
      // The kernel's type for this match (the server drops IPython's "<unknown>"; so does this).
      const given = reply.types?.[i] ?? null;
      const kind = given && given !== "<unknown>" ? given : null;
      return { label, type: kind ? (TYPE_MAP[kind] ?? "variable") : undefined, detail: kind ?? undefined };
    });
    return { from, to, options, validFor: /^[\w%]*$/, filter: true };
  };
}

/** Esc closes a visible popup (and takes the key). A request still waiting on the kernel is
 * dropped without taking the key, so Esc still reaches the notebook (command mode). */
function closePopup(view: EditorView): boolean {
  const status = completionStatus(view.state);
  if (status === null) return false;
  closeCompletion(view);
  return status === "active";
}

/** Marks the popup element with a test id once CodeMirror has drawn it. */
function tagPopup(view: EditorView): void {
  const popup = view.dom.querySelector(".cm-tooltip-autocomplete");
  if (popup && !popup.hasAttribute("data-testid")) popup.setAttribute("data-testid", "completion-popup");
}

class InspectPanel {
  private element: HTMLElement | null = null;

  constructor(private readonly host: HTMLElement) {}

  get open(): boolean {
    return this.element !== null;
  }

  show(text: string): void {
    this.close();
    const panel = document.createElement("div");
    panel.className = "inspect-panel";
    panel.dataset.testid = "inspect-panel";
    const close = document.createElement("button");
    close.className = "icon-button inspect-close";
    close.textContent = "×";
    close.title = "Close (Esc)";
    close.addEventListener("click", () => this.close());
    const body = document.createElement("pre");
    body.innerHTML = ansiToHtml(text);
    panel.append(close, body);
    this.host.appendChild(panel);
    this.element = panel;
  }

  close(): boolean {
    if (!this.element) return false;
    this.element.remove();
    this.element = null;
    return true;
  }
}

function intellisense(context: EditorContext) {
  const panel = new InspectPanel(context.panelHost);
  const inspect = (view: EditorView): boolean => {
    if (context.cellType() !== "code") return indentLess(view);
    const text = view.state.doc.toString();
    const cursor = toCodePoints(text, view.state.selection.main.head);
    void context.connection
      .request<InspectReply>({ type: "inspect", cell_id: context.cellId, cursor, detail_level: 0 })
      .then((reply) => {
        if (reply?.type === "error") showToast(reply.message);
        if (!reply || reply.type !== "inspect_reply") return;
        if (!reply.found) panel.show("No documentation found.");
        else panel.show(reply.data["text/plain"] ?? Object.values(reply.data)[0] ?? "");
      });
    return true;
  };
  return [
    autocompletion({
      override: [kernelCompletionSource(context)],
      defaultKeymap: false,
      activateOnTyping: true,
      activateOnTypingDelay: 80,
      closeOnBlur: true,
      maxRenderedOptions: 200,
      icons: true,
    }),
    Prec.highest(
      keymap.of([
        { key: "Enter", run: acceptCompletion },
        { key: "ArrowDown", run: moveCompletionSelection(true) },
        { key: "ArrowUp", run: moveCompletionSelection(false) },
        { key: "PageDown", run: moveCompletionSelection(true, "page") },
        { key: "PageUp", run: moveCompletionSelection(false, "page") },
        { key: "Escape", run: (view) => closePopup(view) || panel.close() },
        { key: "Shift-Tab", run: inspect },
      ]),
    ),
    EditorView.updateListener.of((update) => {
      if (completionStatus(update.state) !== null) requestAnimationFrame(() => tagPopup(update.view));
    }),
  ];
}

registerEditorExtension(intellisense);
