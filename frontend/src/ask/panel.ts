// Ask the notebook (toolbar button `toggle-ask`): a side panel where the user asks the edit model about
// the notebook, the selected cells, their errors or the kernel's data. Answers stream in as Markdown
// (rendered and sanitised as Markdown cells are); each code block has "Insert below", which adds it as a
// new code cell below the selected one (an ordinary insert_cell). The conversation lives on the server,
// one per notebook, shared by every tab (never in the file); "New conversation" clears it. An answer that
// changes cells (`Cell <id>:` before a block, `asking/plan.py`) is reviewed in those cells (plan-review.ts),
// opened at once in the tab that asked; Accept all / Reject all stand under the answer. Once a change is
// accepted, "Run changed cells" runs the cells accepted changes modified or added, in notebook order, as
// they are now (a cell edited again after Accept runs as the user sees it; one under review, dropped,
// deleted or undone does not run); a cell that fails offers Fix, which knows the change (fix-cause.ts).

import type { Connection } from "../connection";
import { button, el } from "../dom";
import { registerToolbarItem } from "../kernel-bar";
import { renderModelMarkdown } from "../markdown";
import type { AskConversation, AskError, AskTurn, ErrorMessage, ServerMessage } from "../protocol";
import { openEditModelSettings } from "../settings-panel";
import { blockCode, cellsLabel, Conversation } from "./conversation";
import { type PlanHost, PlanReview } from "./plan-review";
import "./ask.css";

/** What the panel needs of the notebook page. */
export interface AskHost extends PlanHost {
  /** The selected cells' ids, in document order (none: the question is about the whole notebook). */
  selectedIds(): string[];
  /** Add a code cell with `source` below the selected cell (at the end where none is). */
  insertBelow(source: string): void;
}

let askRefs = 0;

class AskPanel {
  readonly element: HTMLElement;
  private readonly turnsList = el("div", { class: "ask-turns", testid: "ask-turns", "aria-live": "polite" });
  private readonly empty = el("div", { class: "ask-empty", testid: "ask-empty" },
    "Ask about the notebook, the selected cell, an error or the data in the kernel.");
  private readonly notice = el("div", { class: "ask-notice", testid: "ask-notice", role: "alert" });
  private readonly input = el("textarea", { class: "ask-input", testid: "ask-input", rows: "3",
    placeholder: "Ask the notebook… (Enter sends, Shift+Enter for a new line)", "aria-label": "Question", spellcheck: "true" });
  private readonly about = el("div", { class: "ask-about", testid: "ask-about" });
  private readonly send = button("Send", "ask-send", "Send the question (Enter)", () => this.submit(), "button primary");
  private readonly stop = button("Stop", "ask-stop", "Stop the answer", () => this.stopAnswer());
  private readonly conversation = new Conversation();
  private readonly views = new Map<string, HTMLElement>();
  private toggleButton: HTMLButtonElement | null = null;
  /** The question last sent, until the server refuses it or another is sent. */
  private asked: { ref: string; question: string } | null = null;
  /** The turns this tab asked (their changes open for review when they are done). */
  private readonly mine = new Set<string>();
  /** The turns whose changes were shown for review once (they do not open again by themselves). */
  private readonly opened = new Set<string>();
  private readonly plan: PlanReview;
  /** The turn whose changes are under review, and what the review has to say. */
  private reviewing: string | null = null;
  private planNotice: string | null = null;
  /** The turn last reviewed: its accepted changes are the ones "Run changed cells" runs. */
  private changedTurn: string | null = null;

  constructor(private readonly connection: Connection, private readonly host: AskHost) {
    this.element = el(
      "aside",
      { class: "ask-panel", testid: "ask-panel", "aria-label": "Ask the notebook" },
      el(
        "div",
        { class: "ask-header" },
        el("h2", {}, "Ask the notebook"),
        button("New conversation", "ask-new", "Forget this conversation and start a new one", () => this.clear()),
        button("×", "close-ask", "Close", () => this.hide(), "icon-button"),
      ),
      this.turnsList,
      this.notice,
      el("div", { class: "ask-form" }, this.input,
        el("div", { class: "ask-form-row" }, this.about, this.stop, this.send)),
    );
    this.element.hidden = true;
    this.notice.hidden = true;
    this.turnsList.append(this.empty);
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener("focus", () => this.showAbout());
    // Keys typed in the panel are its own, not the notebook's command-mode keys.
    this.element.addEventListener("keydown", (event) => {
      event.stopPropagation();
      if (event.key === "Escape") this.hide();
    });
    document.body.append(this.element);
    this.plan = new PlanReview(host, (notice) => {
      const turnId = this.reviewing;
      this.planNotice = notice;
      if (!this.plan.open && !notice) this.reviewing = null;
      this.redraw(turnId);
    });
    connection.addListener((message) => {
      this.plan.handle(message);
      this.noteMine(message);
      if (message.type === "snapshot") void this.load(); // (re)connected: the server's conversation
      if (message.type === "ask_error" || message.type === "error") this.refused(message);
      const changed = this.conversation.apply(message);
      if (changed === null) this.drawAll();
      else for (const turn of changed) this.draw(turn);
      for (const turn of changed ?? []) this.openMine(turn);
    });
    this.drawControls();
  }

  setButton(toggle: HTMLButtonElement): void {
    this.toggleButton = toggle;
  }

  toggle(): void {
    if (this.element.hidden) this.open();
    else this.hide();
  }

  open(): void {
    this.element.hidden = false;
    document.body.classList.add("ask-open");
    this.toggleButton?.setAttribute("aria-pressed", "true");
    this.showAbout();
    this.turnsList.scrollTop = this.turnsList.scrollHeight;
    this.input.focus();
  }

  hide(): void {
    this.element.hidden = true;
    document.body.classList.remove("ask-open");
    this.toggleButton?.setAttribute("aria-pressed", "false");
  }

  private async load(): Promise<void> {
    const reply = await this.connection.request<AskConversation>({ type: "get_conversation" });
    if (reply && reply.type === "ask_conversation") this.conversation.apply(reply);
    this.drawAll();
  }

  private submit(): void {
    const question = this.input.value.trim();
    if (!question) return;
    this.hideNotice();
    const ref = `ask${++askRefs}`;
    if (!this.connection.send({ type: "ask_question", ref, question, cell_ids: this.host.selectedIds() })) {
      this.showNotice("Not connected to the server: the question was not sent.");
      return;
    }
    this.asked = { ref, question };
    this.input.value = "";
  }

  /** The server did not take the question (no model, empty): say why, and give the question back. */
  private refused(reply: AskError | ErrorMessage): void {
    if (this.asked?.ref !== reply.ref) return;
    if (!this.input.value.trim()) this.input.value = this.asked.question;
    this.asked = null;
    this.showNotice(reply.message, reply.type === "ask_error" && reply.reason === "no_model");
  }

  /** The first state of a turn this tab asked: remember it as ours. */
  private noteMine(message: ServerMessage): void {
    if (message.type === "ask_turn" && this.asked && message.turn.question === this.asked.question
        && !this.conversation.all.some((turn) => turn.id === message.turn.id)) this.mine.add(message.turn.id);
  }

  /** Our turn is done and proposes changes: review them in their cells. */
  private openMine(turn: AskTurn): void {
    if (turn.state !== "done" || !this.mine.has(turn.id) || this.opened.has(turn.id) || turn.changes.length === 0) return;
    this.review(turn);
  }

  private review(turn: AskTurn): void {
    const before = this.reviewing;
    this.opened.add(turn.id);
    this.reviewing = turn.id;
    this.changedTurn = turn.id;
    this.plan.start(turn.changes, turn.question);
    if (before && before !== turn.id) this.redraw(before);
    this.redraw(turn.id);
  }

  private redraw(turnId: string | null): void {
    const turn = this.conversation.all.find((t) => t.id === turnId);
    if (turn) this.draw(turn);
  }

  /** Run the accepted changes' cells as they are now, in notebook order. */
  private runChanged(): void {
    const ids = this.plan.changed();
    if (ids.length === 0) this.showNotice("The changed cells are gone or back as they were: nothing to run.");
    else if (!this.connection.send({ type: "execute_cells", cell_ids: ids })) {
      this.showNotice("Not connected to the server: nothing was run.");
    } else this.hideNotice();
  }

  private stopAnswer(): void {
    const turn = this.conversation.answering;
    if (turn) this.connection.send({ type: "ask_stop", turn_id: turn.id });
  }

  private clear(): void {
    this.hideNotice();
    this.connection.send({ type: "ask_clear" });
  }

  private showAbout(): void {
    const label = cellsLabel(this.host.selectedIds().map((id) => this.host.cellNumber(id)));
    this.about.textContent = label ? `About ${label} and the whole notebook` : "About the whole notebook";
  }

  private showNotice(message: string, settings = false): void {
    this.notice.replaceChildren(el("span", {}, message));
    if (settings) {
      this.notice.append(button("Open settings", "ask-open-settings", "Choose the edit model",
        () => openEditModelSettings(this.connection, message)));
    }
    this.notice.hidden = false;
  }

  private hideNotice(): void {
    this.notice.hidden = true;
    this.notice.replaceChildren();
  }

  // ---- drawing --------------------------------------------------------------------------------

  private drawAll(): void {
    this.views.clear();
    this.turnsList.replaceChildren();
    for (const turn of this.conversation.all) this.draw(turn);
    this.drawControls();
  }

  private draw(turn: AskTurn): void {
    const follow = this.turnsList.scrollHeight - this.turnsList.scrollTop - this.turnsList.clientHeight < 40;
    let view = this.views.get(turn.id);
    if (!view) {
      view = el("section", { class: "ask-turn", testid: "ask-turn", "data-turn-id": turn.id });
      this.views.set(turn.id, view);
      this.turnsList.append(view);
    }
    view.dataset.state = turn.state;
    const label = cellsLabel(turn.cell_ids.map((id) => this.host.cellNumber(id)));
    const question = el("div", { class: "ask-question", testid: "ask-question" }, el("span", {}, turn.question));
    if (label) question.append(el("span", { class: "ask-question-about", testid: "ask-question-about" }, label));
    const answer = el("div", { class: "ask-answer markdown-body", testid: "ask-answer" });
    answer.innerHTML = renderModelMarkdown(turn.answer); // its HTML as text, sanitised (markdown.ts)
    if (turn.state !== "answering") this.addInsertButtons(answer);
    const parts: HTMLElement[] = [question, answer];
    if (turn.state === "answering" && !turn.answer) parts.push(el("div", { class: "ask-waiting", testid: "ask-waiting" }, "Thinking…"));
    if (turn.state === "stopped") parts.push(el("div", { class: "ask-turn-note", testid: "ask-stopped" }, "Stopped."));
    if (turn.error) parts.push(el("div", { class: "ask-turn-error", testid: "ask-turn-error", role: "alert" }, turn.error));
    if (turn.state === "done" && (turn.changes.length || turn.notes.length)) parts.push(this.planBar(turn));
    view.replaceChildren(...parts);
    this.drawControls();
    if (follow) this.turnsList.scrollTop = this.turnsList.scrollHeight;
  }

  /** Under an answer that changes cells: what it changes, Review (again) or Accept all / Reject all. */
  private planBar(turn: AskTurn): HTMLElement {
    const bar = el("div", { class: "ask-plan", testid: "ask-plan" });
    const n = turn.changes.length;
    if (n) {
      const numbers = turn.changes.flatMap((change) => change.kind !== "insert" && change.cell_id ? [this.host.cellNumber(change.cell_id)] : []);
      const label = cellsLabel(numbers);
      const news = turn.changes.filter((change) => change.kind === "insert").length;
      const what = [label, news ? `${news} new cell${news === 1 ? "" : "s"}` : ""].filter(Boolean).join(" and ");
      const row = el("div", { class: "ask-plan-row" }, el("span", { class: "ask-plan-summary", testid: "ask-plan-summary" },
        `${n} change${n === 1 ? "" : "s"}: ${what}`));
      if (this.reviewing === turn.id && this.plan.open) {
        row.append(
          button("Accept all", "ask-accept-all", "Apply every change as reviewed: one step, undone by z", () => this.plan.acceptAll(), "button primary"),
          button("Reject all", "ask-reject-all", "Drop every change: the cells stay as they are", () => this.plan.rejectAll()));
      } else {
        row.append(button("Review in cells", "ask-review", "Show each change in its cell", () => this.review(turn)));
      }
      if (this.changedTurn === turn.id && this.plan.anyAccepted) {
        row.append(button("Run changed cells", "ask-run-changed",
          "Run the cells the accepted changes modified or added, in notebook order", () => this.runChanged()));
      }
      bar.append(row);
    }
    for (const note of turn.notes) bar.append(el("div", { class: "ask-plan-note", testid: "ask-plan-note" }, note));
    if (this.reviewing === turn.id && this.planNotice) {
      bar.append(el("div", { class: "ask-plan-error", testid: "ask-plan-error", role: "alert" }, this.planNotice));
    }
    return bar;
  }

  /** An "Insert below" button on each code block of a finished answer. */
  private addInsertButtons(answer: HTMLElement): void {
    for (const pre of answer.querySelectorAll("pre")) {
      const code = pre.querySelector("code");
      if (!code) continue;
      const source = blockCode(code.textContent ?? "");
      const insert = button("Insert below", "ask-insert", "Insert this code as a new cell below the selected cell", () => {
        this.host.insertBelow(source);
        insert.textContent = "Inserted";
      }, "button ask-insert");
      const block = el("div", { class: "ask-code" }, el("div", { class: "ask-code-bar" }, insert));
      pre.replaceWith(block);
      block.prepend(pre);
    }
  }

  private drawControls(): void {
    const answering = this.conversation.answering !== null;
    this.stop.hidden = !answering;
    this.element.dataset.answering = String(answering);
    this.empty.hidden = this.conversation.all.length > 0;
    if (!this.empty.isConnected && this.conversation.all.length === 0) this.turnsList.append(this.empty);
  }
}

const panels = new WeakMap<Connection, AskPanel>();

/** The notebook page's Ask panel (call before its toolbar is built: the toolbar's button finds it). */
export function attachAsk(connection: Connection, host: AskHost): void {
  panels.set(connection, new AskPanel(connection, host));
}

function askButton(connection: Connection): HTMLElement {
  const panel = panels.get(connection);
  const toggle = button("Ask", "toggle-ask", "Ask the notebook: questions about its cells, errors and data",
    () => panel?.toggle());
  toggle.setAttribute("aria-pressed", "false");
  if (panel) panel.setButton(toggle);
  else toggle.hidden = true;
  return toggle;
}

registerToolbarItem(askButton);
