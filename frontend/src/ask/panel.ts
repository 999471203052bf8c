// Ask the notebook (toolbar button `toggle-ask`): a side panel where the user asks the edit model about
// the notebook, the selected cells, their errors or the kernel's data. Answers stream in as Markdown
// (rendered and sanitised as Markdown cells are); each code block has "Insert below", which adds it as a
// new code cell below the selected one (an ordinary insert_cell). The conversation lives on the server,
// one per notebook, shared by every tab (never in the file); "New conversation" clears it.

import type { Connection } from "../connection";
import { button, el } from "../dom";
import { registerToolbarItem } from "../kernel-bar";
import { renderModelMarkdown } from "../markdown";
import type { AskConversation, AskError, AskTurn, ErrorMessage } from "../protocol";
import { openEditModelSettings } from "../settings-panel";
import { blockCode, cellsLabel, Conversation } from "./conversation";
import "./ask.css";

/** What the panel needs of the notebook page. */
export interface AskHost {
  /** The selected cells' ids, in document order (none: the question is about the whole notebook). */
  selectedIds(): string[];
  /** The cell's number (1-based) in the notebook; 0 when it is gone. */
  cellNumber(id: string): number;
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
    connection.addListener((message) => {
      if (message.type === "snapshot") void this.load(); // (re)connected: the server's conversation
      if (message.type === "ask_error" || message.type === "error") this.refused(message);
      const changed = this.conversation.apply(message);
      if (changed === null) this.drawAll();
      else for (const turn of changed) this.draw(turn);
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
    view.replaceChildren(...parts);
    this.drawControls();
    if (follow) this.turnsList.scrollTop = this.turnsList.scrollHeight;
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
