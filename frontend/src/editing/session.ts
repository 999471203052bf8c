// Edit with AI for one code cell: the prompt (Ctrl+K), the request, the streamed proposal's review,
// and Accept / Reject. Nothing reaches the document until Accept, which is one ordinary edit of the
// cell's editor (one undo step; the shared text sends it as any typing). Another tab's edit of the
// cell, the user's own typing, or the cell's deletion drop the proposal.
//
// phases: closed → prompting (the input) → waiting (request sent) → reviewing (a proposal shown;
// `streaming` until its last part) → closed (Accept / Reject / dropped).

import "./editing.css";
import { isolateHistory } from "@codemirror/commands";
import type { ChangeSet } from "@codemirror/state";
import type { Connection } from "../connection";
import { el } from "../dom";
import type { CellEditor } from "../editor";
import { nextRef } from "../ghost-text/store";
import type { EditError, EditProposal, EditRequest, ServerMessage } from "../protocol";
import { openEditModelSettings } from "../settings-panel";
import { showToast } from "../toast";
import {
  CONNECTION_LOST,
  EMPTY_INSTRUCTION,
  FIX_INSTRUCTION,
  INCOMPLETE,
  NOT_CONNECTED,
  NOT_DONE,
  proposalSummary,
  SUPERSEDED,
  targetText,
} from "./messages";
import { acceptedChange } from "./fix-cause";
import { PromptBox } from "./prompt";
import { ReviewView } from "./review";
import { applyRange, carryOver, changesBetween, type Range, rangeFromWire, rangeText, selectionToWire, streamingText } from "./text";

export interface EditHost {
  cellId: string;
  connection: Connection;
  /** The cell's own editor: its text is the original until Accept. */
  editor: CellEditor;
  /** The cell's element: `edit-reviewing` hides its editor while the review is shown. */
  cell: HTMLElement;
  isCode(): boolean;
  /** Back to editing the cell (edit mode, the editor focused). */
  focusCell(): void;
}

type Phase = "closed" | "prompting" | "waiting" | "reviewing";

/** The request a Retry repeats and a follow-up refines. */
type Sent = Omit<EditRequest, "type">;

/** The session of each connection whose request is the one the server works on (a newer one stops it). */
const current = new WeakMap<Connection, EditSession>();

export class EditSession {
  readonly element: HTMLElement;
  private built: { prompt: PromptBox; review: ReviewView } | null = null;
  private readonly error = el("div", { class: "edit-error", testid: "edit-error", role: "alert" });
  private phase: Phase = "closed";
  private sent: Sent | null = null;
  /** The request the review started from (the prompt's, or Fix): what Retry asks again. */
  private first: Sent | null = null;
  /** The cell's text when the request went out: what the proposal is compared with and replaces. */
  private original = "";
  private range: Range | null = null;
  private proposal: EditProposal | null = null;
  /** A proposal of this request has been shown (the next one of a new request starts afresh). */
  private shownForRequest = false;
  private streaming = false;
  private notice: string | null = null;
  private unlisten: (() => void) | null = null;

  constructor(private readonly host: EditHost) {
    this.element = el("div", { class: "edit-ai", testid: "edit-ai" }, this.error);
    this.element.hidden = true;
    this.element.addEventListener("mousedown", (event) => event.stopPropagation()); // the cell keeps its mode
  }

  /** The prompt box and the review, built the first time the cell asks for an edit (a notebook of many
   * cells opens without them: fewer elements to lay out). */
  private parts(): { prompt: PromptBox; review: ReviewView } {
    if (!this.built) {
      const prompt = new PromptBox({ submit: (text) => this.submit(text), close: () => this.close(true) });
      const review = new ReviewView({
        accept: () => this.accept(),
        reject: () => this.close(true),
        retry: () => this.retry(),
        followUp: (text) => this.followUp(text),
        userEdit: (before, changes, head) => this.userEdit(before, changes, head),
      });
      this.element.prepend(review.element, prompt.element);
      this.built = { prompt, review };
    }
    return this.built;
  }

  private get prompt(): PromptBox {
    return this.parts().prompt;
  }

  private get review(): ReviewView {
    return this.parts().review;
  }

  get reviewing(): boolean {
    return this.phase === "reviewing";
  }

  /** Ctrl+K / the cell's button: the prompt under the cell (again with the last instruction, if any). */
  open(): boolean {
    if (!this.host.isCode()) return false;
    if (this.phase === "reviewing" || this.phase === "waiting") {
      this.focus();
      return true;
    }
    this.setError(null);
    this.element.hidden = false;
    this.phase = "prompting";
    this.prompt.show(this.targetHint());
    this.prompt.focus();
    return true;
  }

  /** The Fix button: ask for a fix of the cell's error output. */
  fix(): void {
    if (!this.host.isCode()) return;
    this.stopReview();
    this.element.hidden = false;
    this.prompt.show("", FIX_INSTRUCTION);
    const cause = acceptedChange(this.host.cellId, this.host.editor.source);
    this.send({ cell_id: this.host.cellId, ref: "", instruction: FIX_INSTRUCTION, selection: null, trigger: "fix", previous: null, cause });
  }

  /** The server's text for the cell changed (another tab): a review of the old text is dropped. */
  remoteSource(source: string): void {
    if ((this.phase === "waiting" || this.phase === "reviewing") && source !== this.original) {
      this.close(false);
      showToast("The cell was changed in another tab: the proposed edit was dropped.", "info");
    }
  }

  /** The user typed in the cell's editor while a request was on its way: that request is stale. */
  localEdit(source: string): void {
    if (this.phase === "waiting" && source !== this.original) {
      this.cancelRequest();
      this.phase = "prompting";
      this.prompt.show("You edited the cell: press Enter to ask again.");
    }
  }

  /** Drop whatever is open (the cell stopped being a code cell). */
  reset(): void {
    this.close(false);
  }

  /** The cell is going away (deleted, or the view rebuilt): drop everything, quietly. */
  dispose(): void {
    this.close(false);
    this.unlisten?.();
    this.unlisten = null;
    this.element.remove();
  }

  focus(): void {
    if (this.phase === "reviewing") this.review.focus();
    else if (this.built?.prompt.visible) this.prompt.focus();
  }

  // ---- requests ---------------------------------------------------------------------------------

  private submit(text: string): void {
    const instruction = text.trim();
    if (!instruction) {
      this.setError(EMPTY_INSTRUCTION);
      this.prompt.focus();
      return;
    }
    const source = this.host.editor.source;
    const main = this.host.editor.view.state.selection.main;
    const selection = selectionToWire(source, main.from, main.to);
    this.send({ cell_id: this.host.cellId, ref: "", instruction, selection, trigger: "edit", previous: null });
  }

  private retry(): void {
    if (this.first) this.send({ ...this.first, previous: null });
  }

  private followUp(text: string): void {
    const instruction = text.trim();
    if (!instruction) {
      this.setError(EMPTY_INSTRUCTION);
      return;
    }
    if (!this.sent || !this.range) return;
    const previous = rangeText(this.original, this.range, this.review.text);
    // A follow-up asks the model (trigger "edit"): a fix's rules would only give the same fix again.
    this.send({ ...this.sent, instruction, trigger: "edit", previous });
  }

  private send(request: Sent): void {
    this.cancelRequest();
    if (this.phase !== "reviewing") this.original = this.host.editor.source;
    const message: EditRequest = { type: "edit_request", ...request, ref: nextRef("edit") };
    this.listen();
    if (!this.host.connection.send(message)) {
      this.setError(NOT_CONNECTED);
      if (this.phase !== "reviewing") this.toPrompt();
      return;
    }
    const previous = current.get(this.host.connection);
    if (previous && previous !== this) previous.superseded();
    current.set(this.host.connection, this);
    this.sent = message;
    if (this.phase !== "reviewing") this.first = message;
    this.shownForRequest = false;
    this.streaming = true;
    this.notice = null;
    this.setError(null);
    if (this.phase === "reviewing") {
      this.review.clearFollowUp();
      this.updateStatus("Writing…");
    } else {
      this.phase = "waiting";
      this.prompt.setBusy(true, request.trigger === "fix" ? "Looking for a fix… (Esc stops)" : "Asking the edit model… (Esc stops)");
    }
  }

  /** Stop the request in flight, if any (the server stops writing). */
  private cancelRequest(): void {
    if (this.sent && this.streaming) this.host.connection.send({ type: "edit_cancel", ref: this.sent.ref });
    this.streaming = false;
    if (current.get(this.host.connection) === this) current.delete(this.host.connection);
  }

  /** Another cell's request replaced ours on the server. */
  private superseded(): void {
    if (!this.streaming) return;
    this.streaming = false;
    if (this.phase === "waiting") {
      this.toPrompt();
      this.setError(SUPERSEDED);
    } else if (this.phase === "reviewing") {
      this.notice = SUPERSEDED;
      this.updateStatus();
    }
  }

  private listen(): void {
    this.unlisten ??= this.host.connection.addListener((message) => this.onMessage(message));
  }

  private onMessage(message: ServerMessage): void {
    switch (message.type) {
      case "edit_proposal":
        if (message.ref === this.sent?.ref && this.streaming) this.onProposal(message);
        break;
      case "edit_error":
        if (message.ref === this.sent?.ref && this.streaming) this.onError(message);
        break;
      case "error": // the server refused the request itself (e.g. it failed validation)
        if (message.ref && message.ref === this.sent?.ref && this.streaming) {
          this.onError({ type: "edit_error", ref: message.ref, message: message.message, reason: "model" });
        }
        break;
      case "snapshot": // a reconnect: the server dropped the request with the old socket
        if (this.streaming) this.interrupted();
        break;
      default:
        break;
    }
  }

  private onProposal(message: EditProposal): void {
    if (this.phase === "closed" || this.phase === "prompting") return;
    if (this.host.editor.source !== this.original) {
      this.close(true); // the cell changed under the request: its proposal no longer fits
      return;
    }
    const range = rangeFromWire(this.original, message.range);
    const target = this.original.slice(range.from, range.to);
    const text = message.done ? message.text : streamingText(target, message.text);
    const shown = applyRange(this.original, range, text);
    const fresh = !this.shownForRequest;
    this.range = range;
    this.proposal = message;
    this.shownForRequest = true;
    this.streaming = !message.done;
    this.review.show(this.original, shown, fresh);
    if (this.phase !== "reviewing") {
      // The review takes the focus from the prompt or the Fix button (Ctrl+Enter / Esc work at once).
      const active = document.activeElement;
      const takeFocus = !active || active === document.body || this.host.cell.contains(active);
      this.phase = "reviewing";
      this.prompt.hide();
      this.host.cell.classList.add("edit-reviewing");
      if (takeFocus) this.review.focus();
    }
    if (message.done) current.delete(this.host.connection);
    this.updateStatus();
  }

  private onError(message: EditError): void {
    this.streaming = false;
    if (current.get(this.host.connection) === this) current.delete(this.host.connection);
    this.setError(message.message);
    if (this.phase === "waiting") this.toPrompt();
    else this.updateStatus();
    if (message.reason === "no_model") openEditModelSettings(this.host.connection, message.message);
  }

  private interrupted(): void {
    this.streaming = false;
    if (this.phase === "waiting") {
      this.toPrompt();
      this.setError("The connection dropped before an answer came: press Enter to ask again.");
    } else if (this.phase === "reviewing") {
      this.notice = CONNECTION_LOST;
      this.updateStatus();
    }
  }

  // ---- review outcomes --------------------------------------------------------------------------

  /** Take the proposal as reviewed: one edit of the cell (one undo step), sent as any edit is. */
  private accept(): void {
    if (this.phase !== "reviewing") return;
    if (this.streaming || !this.proposal?.done) {
      this.notice = this.streaming ? NOT_DONE : INCOMPLETE; // never a half-written proposal
      this.updateStatus();
      return;
    }
    const reviewed = this.review.text;
    this.close(false);
    const editor = this.host.editor;
    if (reviewed !== editor.source) {
      editor.view.dispatch({
        changes: changesBetween(editor.source, reviewed),
        annotations: [isolateHistory.of("full")],
        userEvent: "input.edit",
        scrollIntoView: true,
      });
    }
    this.host.focusCell();
  }

  /** Typing in the review: the proposal goes, the same keystrokes edit the cell itself. */
  private userEdit(before: string, changes: ChangeSet, head: number): void {
    if (this.phase !== "reviewing") return;
    const original = this.original;
    this.close(false);
    const editor = this.host.editor;
    if (editor.source !== original) return;
    const carried = carryOver(original, before, changes, head);
    this.host.focusCell();
    editor.view.dispatch({ changes: carried.changes, selection: { anchor: carried.head }, userEvent: "input.type", scrollIntoView: true });
  }

  /** Close everything; `focus`: back to the cell's editor (Esc, Reject). */
  private close(focus: boolean): void {
    const wasOpen = this.phase !== "closed";
    this.cancelRequest();
    this.stopReview();
    this.built?.prompt.hide();
    this.setError(null);
    this.element.hidden = true;
    this.phase = "closed";
    if (focus && wasOpen) this.host.focusCell();
  }

  private stopReview(): void {
    if (this.streaming) this.cancelRequest();
    this.built?.review.close();
    this.host.cell.classList.remove("edit-reviewing");
    this.proposal = null;
    this.range = null;
    this.notice = null;
    if (this.phase === "reviewing") this.phase = "closed";
  }

  private toPrompt(): void {
    this.phase = "prompting";
    this.prompt.show(this.targetHint());
  }

  private targetHint(): string {
    const source = this.host.editor.source;
    if (!source.trim()) return "Writes this cell from your description";
    const main = this.host.editor.view.state.selection.main;
    const selection = selectionToWire(source, main.from, main.to);
    if (!selection) return targetText(null, null);
    const doc = this.host.editor.view.state.doc;
    const last = main.to > main.from && doc.lineAt(main.to).from === main.to ? main.to - 1 : main.to;
    return targetText(selection, [doc.lineAt(main.from).number, doc.lineAt(last).number]);
  }

  private updateStatus(summary?: string): void {
    const proposal = this.proposal;
    this.review.setStatus({
      streaming: this.streaming,
      complete: proposal?.done ?? false,
      summary: summary ?? (proposal ? proposalSummary(proposal, this.review.changedBlocks, this.streaming && !proposal.done) : ""),
      warning: proposal?.done ? proposal.warning : null,
      description: proposal?.description ?? null,
      notice: this.notice,
    });
  }

  private setError(message: string | null): void {
    this.error.textContent = message ?? "";
    this.error.hidden = !message;
  }
}
