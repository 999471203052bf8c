// The diff review of a proposal: a CodeMirror view in the cell's place showing the proposed cell with
// @codemirror/merge's unified merge view (deleted lines red above, inserted lines green, each changed
// block with its own Keep / Drop), and a toolbar: Accept (Ctrl+Enter), Reject (Esc), Retry, a
// follow-up instruction, the proposal's warning and the offline fix's description.
//
// The cell's own editor (its text, undo history, the server's copy) is left as it was until Accept.
// Typing in the review hands the edit back to the session: the user's edit wins, the proposal goes.

import { python } from "@codemirror/lang-python";
import { defaultHighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { getChunks, getOriginalDoc, originalDocChangeEffect, unifiedMergeView } from "@codemirror/merge";
import { Annotation, type ChangeSet, EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { editorAppearance } from "../appearance/editor-theme";
import { button, el } from "../dom";
import { changesBetween } from "./text";

/** Our own changes of the review's text (a streamed proposal): never taken for the user's typing. */
const proposalUpdate = Annotation.define<boolean>();

export interface ReviewHandlers {
  accept(): void;
  reject(): void;
  /** Absent: no Retry button (nor a follow-up field, without `followUp`). */
  retry?(): void;
  followUp?(instruction: string): void;
  /** The user typed in the review: `changes` turned `before` into the review's new text. */
  userEdit(before: string, changes: ChangeSet, head: number): void;
}

export interface ReviewStatus {
  streaming: boolean;
  /** The proposal is whole (its last part came): Accept may take it. */
  complete: boolean;
  summary: string;
  warning: string | null;
  description: string | null;
  notice: string | null;
}

const theme = EditorView.theme({
  ".cm-content": { fontFamily: "var(--mono)", padding: "6px 0" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.45" },
  "&.cm-focused": { outline: "none" },
});

function chunkButton(type: "accept" | "reject", action: (event: MouseEvent) => void): HTMLElement {
  const keep = type === "accept";
  const b = el(
    "button",
    {
      type: "button",
      class: `edit-chunk-button ${keep ? "keep" : "drop"}`,
      testid: keep ? "chunk-keep" : "chunk-drop",
      title: keep ? "Keep this change" : "Drop this change (back to the original lines)",
    },
    keep ? "Keep" : "Drop",
  );
  b.addEventListener("mousedown", action);
  return b;
}

/** A button's label, testid and title. */
type ButtonText = [string, string, string];

/** The review's Accept and Reject buttons (a change of an Ask answer names them for its one cell). */
export interface ReviewLabels {
  accept: ButtonText;
  reject: ButtonText;
}

const EDIT_LABELS: ReviewLabels = {
  accept: ["Accept", "edit-accept", "Take the proposal as reviewed (Ctrl+Enter)"],
  reject: ["Reject", "edit-reject", "Drop the proposal: the cell stays as it was (Esc)"],
};

export class ReviewView {
  readonly element: HTMLElement;
  private readonly editorHost: HTMLElement;
  private view: EditorView | null = null;
  private readonly summary = el("span", { class: "edit-summary", testid: "edit-summary", role: "status" });
  private readonly warning = el("div", { class: "edit-warning", testid: "edit-warning", role: "alert" });
  private readonly description = el("div", { class: "edit-description", testid: "edit-description" });
  private readonly notice = el("div", { class: "edit-notice", testid: "edit-notice", role: "status" });
  private readonly acceptButton: HTMLButtonElement;
  private readonly followUpInput: HTMLInputElement;

  constructor(private readonly handlers: ReviewHandlers, labels: ReviewLabels = EDIT_LABELS) {
    this.editorHost = el("div", { class: "edit-review-editor cell-editor-like", testid: "edit-review-editor" });
    this.acceptButton = button(labels.accept[0], labels.accept[1], labels.accept[2], () => handlers.accept(), "button primary");
    this.followUpInput = el("input", {
      type: "text",
      class: "edit-followup",
      testid: "edit-followup",
      placeholder: "Follow-up: refine the proposal (Enter)",
      "aria-label": "Follow-up instruction",
      maxlength: "4000",
      spellcheck: "false",
      autocomplete: "off",
    });
    this.followUpInput.addEventListener("keydown", (event) => {
      if (event.isComposing || event.key !== "Enter" || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      event.stopPropagation();
      const text = this.followUpInput.value;
      handlers.followUp?.(text);
    });
    this.followUpInput.hidden = !handlers.followUp;
    const retry = button("Retry", "edit-retry", "Ask again", () => handlers.retry?.());
    retry.hidden = !handlers.retry;
    const toolbar = el(
      "div",
      { class: "edit-review", testid: "edit-review" },
      el(
        "div",
        { class: "edit-review-row" },
        this.acceptButton,
        button(labels.reject[0], labels.reject[1], labels.reject[2], () => handlers.reject()),
        retry,
        this.followUpInput,
        this.summary,
      ),
      this.description,
      this.warning,
      this.notice,
    );
    this.element = el("div", { class: "edit-review-area" }, this.editorHost, toolbar);
    // Ctrl+Enter / Esc anywhere in the review (the merge view, its buttons, the follow-up input).
    this.element.addEventListener("keydown", (event) => {
      if (event.isComposing) return;
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey) {
        event.preventDefault();
        event.stopPropagation();
        handlers.accept();
      } else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        handlers.reject();
      }
    });
    this.element.hidden = true;
  }

  /** The cell as reviewed now: the proposal with the blocks dropped so far back to the original. */
  get text(): string {
    return this.view?.state.doc.toString() ?? "";
  }

  /** Changed blocks still shown (Keep takes a block out of the list; Drop restores its lines). */
  get changedBlocks(): number {
    return this.view ? (getChunks(this.view.state)?.chunks.length ?? 0) : 0;
  }

  /** Show `shown` against `original`; a review already open gets the new text (and, for a fresh
   * request, its per-block choices forgotten: the comparison is with `original` again). */
  show(original: string, shown: string, fresh: boolean): void {
    this.element.hidden = false;
    if (!this.view) {
      this.view = new EditorView({ parent: this.editorHost, state: this.createState(original, shown) });
      return;
    }
    const state = this.view.state;
    const effects = [];
    const base = getOriginalDoc(state).toString();
    if (fresh && base !== original) effects.push(originalDocChangeEffect(state, changesBetween(base, original)));
    const current = state.doc.toString();
    this.view.dispatch({
      changes: current === shown ? undefined : changesBetween(current, shown),
      effects,
      annotations: [proposalUpdate.of(true)],
    });
  }

  setStatus(status: ReviewStatus): void {
    this.element.dataset.streaming = String(status.streaming);
    this.acceptButton.disabled = status.streaming || !status.complete;
    this.summary.textContent = status.summary;
    this.warning.textContent = status.warning ?? "";
    this.warning.hidden = !status.warning;
    this.description.textContent = status.description ?? "";
    this.description.hidden = !status.description;
    this.notice.textContent = status.notice ?? "";
    this.notice.hidden = !status.notice;
  }

  clearFollowUp(): void {
    this.followUpInput.value = "";
  }

  focus(): void {
    this.view?.focus();
  }

  close(): void {
    this.view?.destroy();
    this.view = null;
    this.editorHost.replaceChildren();
    this.element.hidden = true;
    this.clearFollowUp();
  }

  private createState(original: string, shown: string): EditorState {
    return EditorState.create({
      doc: shown,
      extensions: [
        python(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        theme,
        editorAppearance(),
        Prec.highest(
          keymap.of([
            { key: "Mod-Enter", run: () => (this.handlers.accept(), true) },
            { key: "Ctrl-Enter", run: () => (this.handlers.accept(), true) },
            { key: "Escape", run: () => (this.handlers.reject(), true) },
          ]),
        ),
        unifiedMergeView({ original, mergeControls: chunkButton, gutter: true, syntaxHighlightDeletions: true }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          const typed = update.transactions.some(
            (tr) => tr.docChanged && !tr.annotation(proposalUpdate) && !tr.isUserEvent("revert") && !tr.isUserEvent("accept"),
          );
          if (!typed) return;
          const before = update.startState.doc.toString();
          const head = update.startState.selection.main.head;
          // after this update: the session closes the review and moves the edit to the cell
          queueMicrotask(() => this.handlers.userEdit(before, update.changes, head));
        }),
      ],
    });
  }
}
