// Ghost text: the model's suggestion drawn in grey at the cursor (DESIGN §3, issue 4).
//
// Flow: a user edit (re)starts the debounce timer; when it fires (or at once on Ctrl+Space) a
// `suggest` goes out with a fresh ref; streamed `suggestion`s for that ref grow the ghost text.
// Any other edit, cursor move or blur drops the ghost text and cancels the request. Typing the ghost
// text's next characters consumes them (no new request); accepting or typing through all of it
// starts the timer for the next suggestion. Keys (Prec.highest, after the popup's):
// Tab accepts all, Ctrl+→ the next word, Ctrl+↓ the next line, Esc dismisses (a second Esc then
// reaches the notebook: command mode). Without ghost text each key does what it did before.
// While the intellisense popup is open, the ghost text shows only if it agrees with the popup's
// selected entry (issue 14.16): never one name in grey beside another in the popup. A ghost text that
// names another of the popup's entries selects it (`popupFollowsGhost`).

import {
  completionStatus,
  currentCompletions,
  selectedCompletion,
  selectedCompletionIndex,
  setSelectedCompletion,
} from "@codemirror/autocomplete";
import {
  Annotation,
  type EditorState,
  type Extension,
  Prec,
  StateEffect,
  StateField,
  Transaction,
} from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  EditorView,
  keymap,
  ViewPlugin,
  type ViewUpdate,
  WidgetType,
} from "@codemirror/view";
import { type EditorContext, isRemote, registerEditorExtension } from "../editor";
import { toCodePoints } from "../offsets";
import type { AcceptKind, ServerMessage, SuggestionKind } from "../protocol";
import { showToast } from "../toast";
import {
  autoSkipReason,
  cursorKind,
  debounceDelay,
  ghostFitsCompletion,
  nextLine,
  nextWord,
  remainder,
  typesThrough,
  wordBefore,
} from "./logic";
import { nextRef, storeFor } from "./store";

/** The suggestion on screen: the server's text so far for `ref`, of which `typed` is now in the doc. */
interface Ghost {
  ref: string;
  /** Where the request's cursor was (UTF-16 offset); the ghost text shows at origin + typed.length. */
  origin: number;
  full: string;
  typed: string;
  done: boolean;
  /** ms from the end of the debounce to the first frame showing it (set once known). */
  latency: number | null;
}

function shownText(ghost: Ghost): string {
  return remainder(ghost.full, ghost.typed) ?? "";
}

function shownAt(ghost: Ghost): number {
  return ghost.origin + ghost.typed.length;
}

const setGhost = StateEffect.define<Ghost | null>();
/** Marks our own edits (typed-through, accepted text) so they do not count as "the user typed on". */
const ghostEdit = Annotation.define<"typed" | "accept">();

class GhostWidget extends WidgetType {
  constructor(
    readonly text: string,
    readonly ref: string,
    readonly done: boolean,
    readonly latency: number | null,
  ) {
    super();
  }

  eq(other: GhostWidget): boolean {
    return (
      other.text === this.text && other.ref === this.ref && other.done === this.done && other.latency === this.latency
    );
  }

  toDOM(): HTMLElement {
    const span = document.createElement("span");
    span.className = "cm-ghost-text";
    span.dataset.testid = "ghost-text";
    span.setAttribute("aria-hidden", "true");
    this.fill(span);
    return span;
  }

  updateDOM(dom: HTMLElement): boolean {
    this.fill(dom);
    return true;
  }

  private fill(span: HTMLElement): void {
    span.textContent = this.text;
    span.dataset.ref = this.ref;
    span.dataset.done = String(this.done);
    if (this.latency !== null) span.dataset.latencyMs = String(this.latency);
    span.classList.toggle("cm-ghost-multiline", this.text.includes("\n"));
  }
}

const ghostField = StateField.define<Ghost | null>({
  create: () => null,
  update(value, tr) {
    for (const effect of tr.effects) if (effect.is(setGhost)) return effect.value;
    // Anything else that edits or moves the cursor drops it (our own edits carry a setGhost).
    return tr.docChanged || tr.selection ? null : value;
  },
});

/** The ghost text to draw: none while the intellisense popup's selected entry proposes another name. */
function visibleGhost(state: EditorState): Ghost | null {
  const ghost = state.field(ghostField);
  if (!ghost || !shownText(ghost) || completionStatus(state) !== "active") return ghost;
  const selected = selectedCompletion(state);
  if (!selected) return ghost;
  const at = shownAt(ghost);
  const word = wordBefore(state.doc.sliceString(state.doc.lineAt(at).from, at));
  return ghostFitsCompletion(word, shownText(ghost), selected.label) ? ghost : null;
}

/** The popup's entry that the ghost text names (the word before the cursor and the ghost text's first
 * name, as `censors` after `df[df.`); -1 when none does. */
function entryNamedByGhost(state: EditorState, ghost: Ghost): number {
  const at = shownAt(ghost);
  const name = wordBefore(state.doc.sliceString(state.doc.lineAt(at).from, at)) + (/^\w*/.exec(shownText(ghost))?.[0] ?? "");
  return name ? currentCompletions(state).findIndex((option) => option.label === name) : -1;
}

/** While the popup is open and the ghost text names one of its entries (the kernel's names after a dot
 * come alphabetically), that entry is selected, so Tab and Enter take the same name and the ghost text
 * shows. Once per ghost text and list of entries: the user's own arrow keys are never overridden. */
const popupFollowsGhost = ViewPlugin.fromClass(
  class {
    private settled = "";
    update(update: ViewUpdate): void {
      const { state } = update;
      const ghost = state.field(ghostField);
      if (!ghost || !shownText(ghost) || completionStatus(state) !== "active") return;
      const options = currentCompletions(state);
      const key = `${ghost.ref} ${options.length} ${options[0]?.label ?? ""}`;
      if (!options.length || key === this.settled) return;
      this.settled = key;
      const index = entryNamedByGhost(state, ghost);
      if (index < 0 || index === selectedCompletionIndex(state)) return;
      queueMicrotask(() => {
        if (update.view.state.field(ghostField) === ghost) update.view.dispatch({ effects: setSelectedCompletion(index) });
      });
    }
  },
);

function ghostDecorations(view: EditorView): DecorationSet {
  const ghost = visibleGhost(view.state);
  const text = ghost ? shownText(ghost) : "";
  // Tests and tools can tell a ghost text held back by the popup from none at all.
  if (ghost || !view.state.field(ghostField)) delete view.dom.dataset.ghostHidden;
  else view.dom.dataset.ghostHidden = "popup";
  if (!ghost || !text) return Decoration.none;
  const widget = Decoration.widget({ widget: new GhostWidget(text, ghost.ref, ghost.done, ghost.latency), side: 1 });
  return Decoration.set([widget.range(shownAt(ghost))]);
}

const ghostDrawing = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = ghostDecorations(view);
    }
    update(update: ViewUpdate): void {
      this.decorations = ghostDecorations(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

interface Request {
  ref: string;
  origin: number;
  trigger: "auto" | "forced";
  /** Where the cursor was (the user's statistics count per kind). */
  kind: SuggestionKind;
  /** performance.now() at the end of the debounce (or the Ctrl+Space press). */
  start: number;
  done: boolean;
  shown: boolean;
  /** What we reported after "shown" (at most one of these per suggestion). */
  outcome: "accepted" | "partial" | "dismissed" | null;
}

class GhostController {
  private timer: number | null = null;
  private active: Request | null = null;
  private readonly unlisten: () => void;
  private readonly store;

  constructor(
    private readonly view: EditorView,
    private readonly context: EditorContext,
  ) {
    this.store = storeFor(context.connection);
    this.unlisten = context.connection.addListener((message) => this.receive(message));
  }

  update(update: ViewUpdate): void {
    const kinds = update.transactions.map((tr) => tr.annotation(ghostEdit));
    if (kinds.includes("accept")) {
      if (!update.state.field(ghostField)) {
        this.finish(); // all taken: stop generating the rest,
        this.schedule(); // and suggest what comes next after the usual pause
      }
      return;
    }
    if (kinds.includes("typed")) {
      if (!update.state.field(ghostField)) {
        this.finish();
        this.schedule(); // typed to its end: ask for what comes next, as after any keystroke
      }
      return;
    }
    if (update.docChanged) {
      this.cancel();
      if (!update.transactions.every((tr) => isRemote(tr) || !tr.docChanged)) this.schedule();
    } else if (update.selectionSet) {
      this.cancel(); // the field has dropped the ghost text already
    } else if (update.focusChanged && !update.view.hasFocus) {
      this.cancel();
      if (update.state.field(ghostField)) queueMicrotask(() => this.view.dispatch({ effects: setGhost.of(null) }));
    }
  }

  destroy(): void {
    this.cancel();
    this.unlisten();
  }

  /** Ctrl+Space: ask now, whatever the gate says. */
  force(): boolean {
    if (this.context.cellType() !== "code") return false;
    this.cancel();
    if (this.view.state.field(ghostField)) this.view.dispatch({ effects: setGhost.of(null) });
    this.request("forced");
    return true;
  }

  /** Esc: drop the ghost text (taking the key), or just stop a pending request (not taking it). */
  dismiss(): boolean {
    const ghost = this.view.state.field(ghostField);
    if (ghost && !visibleGhost(this.view.state)) return false; // held back by the popup: Esc is the popup's
    const visible = ghost !== null;
    this.cancel();
    if (visible) this.view.dispatch({ effects: setGhost.of(null) });
    return visible;
  }

  /** Insert `pick(rest)` of the ghost text (`how`: which key, for the statistics); the remainder stays visible. */
  accept(pick: (rest: string) => string, how: AcceptKind): boolean {
    const ghost = visibleGhost(this.view.state);
    const rest = ghost ? shownText(ghost) : "";
    if (!ghost || !rest) return false;
    const chunk = pick(rest) || rest;
    const at = shownAt(ghost);
    const left = rest.slice(chunk.length);
    this.report(left ? "partial" : "accepted", how);
    this.view.dispatch({
      changes: { from: at, insert: chunk },
      selection: { anchor: at + chunk.length },
      effects: setGhost.of(left ? { ...ghost, typed: ghost.typed + chunk } : null),
      annotations: [ghostEdit.of("accept"), Transaction.userEvent.of("input.complete")],
      scrollIntoView: true,
    });
    return true;
  }

  /** Typed characters that spell the ghost text's next ones are consumed (no new request). */
  typeThrough(from: number, to: number, text: string): boolean {
    const { state } = this.view;
    const ghost = state.field(ghostField);
    if (!ghost || from !== to || from !== shownAt(ghost)) return false;
    const main = state.selection.main;
    if (state.selection.ranges.length > 1 || !main.empty || main.head !== from) return false;
    const rest = shownText(ghost);
    if (!typesThrough(rest, text)) return false;
    const left = rest.length > text.length;
    this.view.dispatch({
      changes: { from, insert: text },
      selection: { anchor: from + text.length },
      effects: setGhost.of(left ? { ...ghost, typed: ghost.typed + text } : null),
      annotations: [ghostEdit.of("typed"), Transaction.userEvent.of("input.type")],
      scrollIntoView: true,
    });
    return true;
  }

  // ---- requests -------------------------------------------------------------------------------

  private schedule(): void {
    const { state } = this.view;
    const settings = this.store.settings;
    const head = state.selection.main.head;
    const reason = autoSkipReason({
      text: state.doc.toString(),
      cursor: head,
      selection: state.selection.ranges.length > 1 || !state.selection.main.empty,
      editing: this.view.hasFocus,
      codeCell: this.context.cellType() === "code",
      enabled: settings.enabled,
    });
    if (reason) return;
    const delay = debounceDelay(settings.debounce_ms, settings.debounce_mode, state.doc.sliceString(head - 1, head));
    this.timer = window.setTimeout(() => {
      this.timer = null;
      this.request("auto");
    }, delay);
  }

  private request(trigger: "auto" | "forced"): void {
    const { state } = this.view;
    const origin = state.selection.main.head;
    const ref = nextRef("g");
    const kind = cursorKind(state.doc.toString(), origin);
    this.active = { ref, origin, trigger, kind, start: performance.now(), done: false, shown: false, outcome: null };
    const cursor = toCodePoints(state.doc.sliceString(0, origin), origin);
    this.context.connection.send({ type: "suggest", ref, cell_id: this.context.cellId, cursor, trigger });
  }

  /** Stop the timer and the request (reporting a shown, unaccepted suggestion as dismissed). */
  private cancel(): void {
    if (this.timer !== null) {
      window.clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.active?.shown && !this.active.outcome) this.report("dismissed");
    this.finish();
  }

  /** Forget the request, telling the server to stop generating if it still is. */
  private finish(): void {
    const active = this.active;
    this.active = null;
    if (active && !active.done) this.context.connection.send({ type: "suggest_cancel", ref: active.ref });
  }

  private report(event: "accepted" | "partial" | "dismissed", accept: AcceptKind | null = null): void {
    const active = this.active;
    if (!active || !active.shown || active.outcome) return;
    active.outcome = event;
    this.context.connection.send({ type: "suggest_feedback", ref: active.ref, event, kind: active.kind, accept });
  }

  private receive(message: ServerMessage): void {
    const active = this.active;
    if (message.type === "suggestion_error") {
      if (!active || message.ref !== active.ref) return;
      this.active = null;
      this.settled(active.ref, "error");
      if (active.trigger === "forced") showToast(message.message, "info", 4000);
      return;
    }
    if (message.type !== "suggestion" || !active || message.ref !== active.ref) return;
    active.done = message.done;
    const current = this.view.state.field(ghostField);
    const typed = current?.ref === active.ref ? current.typed : "";
    const ghost: Ghost = {
      ref: active.ref,
      origin: active.origin,
      full: message.text,
      typed,
      done: message.done,
      latency: current?.ref === active.ref ? current.latency : null,
    };
    const rest = remainder(ghost.full, typed);
    if (rest === null) {
      this.cancel(); // the model changed its mind about what the user already typed
      if (current) this.view.dispatch({ effects: setGhost.of(null) });
      return;
    }
    if (!rest) {
      // Nothing (more) to suggest: the filters may also take back what was streamed so far.
      if (message.done) {
        this.active = null;
        this.settled(active.ref, "empty");
      }
      if (current) this.view.dispatch({ effects: setGhost.of(null) });
      return;
    }
    this.view.dispatch({ effects: setGhost.of(ghost) });
    if (message.done) this.settled(active.ref, "shown");
    if (!active.shown) {
      active.shown = true;
      requestAnimationFrame(() => this.markShown(active));
    }
  }

  /** Marks the editor with how the last answered request ended (`data-ghost-last="g7 shown"`), so
   * tests and tools can tell "nothing to suggest" from "not answered yet". */
  private settled(ref: string, result: "shown" | "empty" | "error"): void {
    this.view.dom.dataset.ghostLast = `${ref} ${result}`;
  }

  /** The first frame with the ghost text on screen: report the latency since the debounce ended. */
  private markShown(request: Request): void {
    const latency = Math.round((performance.now() - request.start) * 10) / 10;
    const ghost = this.view.state.field(ghostField);
    if (ghost?.ref === request.ref) this.view.dispatch({ effects: setGhost.of({ ...ghost, latency }) });
    this.context.connection.send({
      type: "suggest_feedback",
      ref: request.ref,
      event: "shown",
      latency_ms: latency,
      kind: request.kind,
    });
  }
}

const ghostTheme = EditorView.baseTheme({
  ".cm-ghost-text": { color: "#8b949e", fontStyle: "italic", whiteSpace: "pre", pointerEvents: "none" },
});

function ghostText(context: EditorContext): Extension {
  const plugin = ViewPlugin.define((view) => new GhostController(view, context));
  const run = (action: (controller: GhostController) => boolean) => (view: EditorView) => {
    const controller = view.plugin(plugin);
    return controller ? action(controller) : false;
  };
  return [
    ghostField,
    ghostDrawing,
    popupFollowsGhost,
    plugin,
    ghostTheme,
    Prec.highest(
      EditorView.inputHandler.of((view, from, to, text) => view.plugin(plugin)?.typeThrough(from, to, text) ?? false),
    ),
    Prec.highest(
      keymap.of([
        { key: "Tab", run: run((c) => c.accept((rest) => rest, "whole")) },
        { key: "Ctrl-ArrowRight", run: run((c) => c.accept(nextWord, "word")) },
        { key: "Ctrl-ArrowDown", run: run((c) => c.accept(nextLine, "line")) },
        { key: "Escape", run: run((c) => c.dismiss()) },
        { key: "Ctrl-Space", run: run((c) => c.force()), preventDefault: true },
      ]),
    ),
  ];
}

registerEditorExtension(ghostText);
