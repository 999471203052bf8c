// The notebook page: applies server events to the cell views, owns selection and mode
// (Jupyter's command/edit), and turns user actions into protocol messages.

import type { Awareness } from "y-protocols/awareness";
import { type CellHost, CellView, type Mode, type RunHow } from "./cell-view";
import { attachAsk } from "./ask/panel";
import { closedBanner } from "./closed-banner";
import { Connection, type ConnectionState } from "./connection";
import { FileChangedBar } from "./disk-change/file-changed-bar";
import { el, moveNode } from "./dom";
import { icon } from "./icons";
import { missingModule } from "./install";
import { notebookUrl, treeUrl } from "./file-browser";
import { KernelBar } from "./kernel-bar";
import { installCommandKeys } from "./keyboard";
import { setNotebookPath } from "./markdown-files/links";
import { NotebookName } from "./notebook-name";
import { Outline } from "./outline";
import { installWidgets } from "./outputs/widgets";
import { hideOutputsPatch, outputsHidden } from "./runs/outputs-hidden";
import { type CellModel, cellFromWire, NotebookState } from "./notebook-state";
import type { CellType, ClientMessage, ServerMessage, Snapshot } from "./protocol";
import { NotebookSearch } from "./search/notebook-search";
import { MultiCell, newCellId } from "./selection/multi-cell";
import { ShortcutsHelp } from "./shortcuts-help";
import { textsWithRemoteCursors } from "./collab/lazy-binding";
import { Presence } from "./collab/presence";
import { SharedText } from "./collab/shared-text";
import { InOrder } from "./in-order";
import { languagesFor, languagesReady, preloadLanguages, type SharedCell } from "./editor";
import { showToast } from "./toast";

function parentDir(path: string): string {
  const at = path.lastIndexOf("/");
  return at === -1 ? "" : path.slice(0, at);
}

function pageTitle(path: string): string {
  return `${path.split("/").pop() ?? path} – Ghostbook`;
}

/** Server events after which the outline (headings, collapsed sections) is drawn again. */
const OUTLINE_EVENTS = new Set(["snapshot", "cell_inserted", "cells_deleted", "cell_moved", "source_set", "cell_type_set",
  "cell_metadata_set", "cells_replaced", "cells_reordered", "sources_replaced"]);

export class NotebookView implements CellHost {
  readonly connection: Connection;
  private readonly state = new NotebookState();
  private readonly views = new Map<string, CellView>();
  private readonly root: HTMLElement;
  readonly list: HTMLElement;
  private readonly bar: KernelBar;
  private readonly help = new ShortcutsHelp();
  private readonly outline: Outline;
  private selectedId: string | null = null;
  private mode: Mode = "command";
  private pendingSelect: { id: string; mode: Mode } | null = null;
  /** A cell asked for by Generate: its prompt opens once it arrives. */
  private pendingGenerate: string | null = null;
  /** The selected cells (selection/): what the command keys act on. */
  private readonly multi: MultiCell;
  private readonly sources: SharedText;
  private readonly presence: Presence;
  private readonly offlineBanner: HTMLElement;
  /** The file changed on disk: Revert or Overwrite (disk-change/). */
  private readonly fileChanged: FileChangedBar;
  private readonly name: NotebookName;
  private readonly homeLink: HTMLAnchorElement;
  private readonly commandKeys: { run(event: KeyboardEvent): boolean };
  /** Find and replace across the notebook (Ctrl+F, Ctrl+H). */
  private readonly search: NotebookSearch;
  private loaded = false;
  private path: string;

  constructor(container: HTMLElement, path: string) {
    this.path = path;
    setNotebookPath(path);
    document.title = pageTitle(path);
    this.homeLink = el("a", { href: treeUrl(parentDir(path)), class: "home-link", testid: "back-to-files", title: "Files" }, icon("ghost", 20));
    this.name = new NotebookName(path, (renamed) => this.follow(renamed), () => this.selectedId && this.select(this.selectedId, "command"));
    this.presence = new Presence({ cellElement: (id) => this.views.get(id)?.element, goTo: (id) => this.select(id, "command") });
    const title = el("div", { class: "notebook-title" }, this.homeLink, this.name.element, this.presence.element);
    this.connection = Connection.forNotebook(path, {
      onMessage: (message) => this.handle(message),
      onStateChange: (state) => this.onConnection(state),
    });
    installWidgets(this.connection); // ipywidgets: before any message, so the snapshot's widgets come first
    attachAsk(this.connection, { // before the toolbar: its Ask button finds the panel
      selectedIds: () => this.selectedCells(),
      cellNumber: (id) => this.state.indexOf(id) + 1,
      clientId: () => this.state.clientId,
      cellSource: (id) => (this.state.indexOf(id) === -1 ? null : (this.views.get(id)?.editor.source ?? null)),
      firstCell: () => this.state.cells[0]?.id ?? null,
      slot: (id, where) => this.views.get(id)?.planSlots[where] ?? null,
      selectCell: (id) => this.select(id, "command"),
      send: (message) => this.connection.send(message),
      insertBelow: (source) => {
        const below = Math.max(-1, ...this.selectedCells().map((id) => this.state.indexOf(id)));
        this.insertAt(below === -1 ? this.state.cells.length : below + 1, "code", "command", source);
      },
    });
    this.bar = new KernelBar(title, {
      runAll: () => this.act({ type: "run_all" }),
      runSelected: () => this.selectedId && this.run(this.selectedId, "stay"),
      runAbove: () => this.selectedId && this.act({ type: "run_above", cell_id: this.selectedId }),
      runBelow: () => this.runBelow(),
      restartAndRunAll: () => this.act({ type: "restart_and_run_all" }),
      canRun: (which) => this.selectedId !== null && (which !== "above" || this.selectedIndex() > 0),
      interrupt: () => this.act({ type: "interrupt_kernel" }),
      restart: () => this.act({ type: "restart_kernel" }),
      clearOutputs: () => this.act({ type: "clear_outputs", cell_ids: null }),
      changeKernel: (kernel) => this.act({ type: "change_kernel", name: kernel }),
      save: () => this.save(),
      toggleHelp: () => this.help.toggle(),
      toggleOutline: () => this.outline.toggle(),
      addCell: () => this.insertAt(this.state.cells.length, "code", "edit"),
    }, this.connection);
    this.offlineBanner = this.buildOfflineBanner();
    this.bar.element.append(this.offlineBanner); // in the sticky toolbar: seen wherever one scrolls
    this.fileChanged = new FileChangedBar((choice) => this.act({ type: "resolve_file_change", choice }));
    this.bar.element.append(this.fileChanged.element);
    this.search = new NotebookSearch({
      cells: () => this.state.cells.flatMap((model) => {
        const view = this.views.get(model.id);
        return view ? [{ id: view.id, editor: view.editor.view, outputs: view.outputsElement, isRendered: view.isRendered,
          reveal: () => view.revealSource(), render: () => view.renderMarkdown() }] : [];
      }),
      isEditing: (id) => this.selectedId === id && this.mode === "edit",
      replaceSources: (changes) => this.act({ type: "replace_sources", changes }),
    });
    this.bar.element.append(this.search.bar.element);
    this.list = el("main", { class: "cells", testid: "cells" });
    const addEnd = el("button", { class: "add-end", testid: "add-cell-end", type: "button" }, "+ Code cell");
    addEnd.addEventListener("click", () => this.insertAt(this.state.cells.length, "code", "edit"));
    const generateEnd = el("button", { class: "add-end", testid: "generate-cell-end", type: "button",
      title: "Describe a new cell and the model writes it (as Ctrl+K in an empty cell)" }, "✦ Generate");
    generateEnd.addEventListener("click", () => this.generateAt(this.state.cells.length));
    const ends = el("div", { class: "add-ends" }, addEnd, generateEnd);
    this.root = el("div", { class: "notebook", testid: "notebook", "data-path": path }, this.bar.element, this.list, ends);
    this.root.dataset.loaded = "false";
    container.replaceChildren(this.root);
    this.outline = new Outline({
      cells: () => this.state.cells,
      element: (id) => this.views.get(id)?.element,
      selected: () => this.selectedId,
      select: (id) => this.select(id, "command"),
      setMetadata: (id, patch) => this.setMetadataNow(id, patch),
    });
    this.outline.handleAnchorLinks(this.list);

    this.sources = new SharedText(this.connection);
    this.presence.attach(this.sources.awareness);
    this.followCursors(this.sources.awareness);
    this.sources.onReplaced(() => {
      this.presence.attach(this.sources.awareness);
      this.followCursors(this.sources.awareness);
    });
    this.multi = new MultiCell({
      list: this.list,
      order: () => this.state.cells.map((cell) => cell.id),
      cell: (id) => this.views.get(id),
      mode: () => this.mode,
      select: (id, mode, scroll) => this.select(id, mode, scroll),
      act: (message) => this.act(message),
      expect: (id, mode) => (this.pendingSelect = { id, mode }),
      insertAt: (index, type, mode) => this.insertAt(index, type, mode),
    });
    this.commandKeys = installCommandKeys({
      hasSelection: () => this.selectedId !== null && this.mode === "command",
      edit: () => this.selectedId && this.select(this.selectedId, "edit"),
      selectRelative: (delta) => this.selectRelative(delta),
      insert: (where) => {
        const index = this.selectedIndex();
        this.insertAt(where === "above" ? Math.max(index, 0) : index + 1, "code", "command");
      },
      deleteSelected: () => this.multi.delete(),
      restoreDeleted: () => this.act({ type: "restore_deleted" }),
      copySelected: (cut) => this.multi.copy(cut),
      paste: (where) => this.multi.paste(where),
      setType: (type) => this.multi.setType(type),
      moveSelected: (delta) => this.multi.move(delta),
      extendSelection: (delta) => this.multi.extendBy(delta),
      selectAll: () => this.multi.selectAll(),
      merge: () => this.multi.merge(),
      run: (how) => this.multi.run(how) || (this.selectedId && this.run(this.selectedId, how)),
      interrupt: () => this.act({ type: "interrupt_kernel" }),
      restart: () => this.bar.requestRestart(), // asks first, as the toolbar's button does
      toggleOutputs: (all) => this.toggleOutputs(all),
      save: () => this.save(),
      toggleHelp: () => this.help.toggle(),
      closeOverlays: () => {
        if (!this.help.visible) return false;
        this.help.hide();
        return true;
      },
    });
    this.connection.open();
  }

  // ---- server events --------------------------------------------------------------------------

  /** Messages applied in order; a snapshot first waits for its cells' languages (`languagesFor`). */
  private readonly incoming = new InOrder<ServerMessage>((message) => this.apply(message));

  private handle(message: ServerMessage): void {
    this.incoming.push(message, message.type === "snapshot" ? languagesFor(message.notebook.cells.map((cell) => cell.cell_type)) : null);
  }

  private apply(message: ServerMessage): void {
    if (OUTLINE_EVENTS.has(message.type)) this.outline.changed(); // headings or sections may have changed
    switch (message.type) {
      case "snapshot":
        this.loadSnapshot(message);
        break;
      case "y_update":
      case "awareness":
      case "presence_left":
        this.sources.handle(message); // the editors follow their shared texts
        break;
      case "fatal":
        this.showFatal(message.message);
        break;
      case "notebook_renamed":
        this.follow(message.path);
        break;
      case "file_changed_on_disk":
        this.fileChanged.show(message.path);
        break;
      case "notebook_deleted":
        this.showClosed("notebook-deleted", `${message.path} was deleted.`,
          "Nothing in this tab is saved any more. Its cells stay here, read-only: select text to copy it, or copy all cells at once.");
        break;
      case "cell_inserted":
        this.addCell(message.index, cellFromWire(message.cell));
        this.multi.mark();
        break;
      case "cells_deleted":
        this.removeCells(message.cell_ids);
        this.multi.mark();
        break;
      case "cells_replaced": {
        const active = this.selectedId;
        const at = active ? this.state.indexOf(active) : -1;
        this.removeCells(message.removed, false);
        message.cells.forEach((cell, i) => this.addCell(message.index + i, cellFromWire(cell)));
        if (this.selectedId === null) {
          const next = this.state.cells[Math.min(Math.max(at, 0), this.state.cells.length - 1)];
          if (next) this.select(next.id, "command");
        }
        this.multi.arrived(message.cells.map((cell) => cell.id));
        this.multi.mark();
        break;
      }
      case "cells_reordered": {
        this.state.reorder(message.order);
        this.state.cells.forEach((model, i) => {
          const element = this.views.get(model.id)!.element;
          if (this.list.children[i] !== element) moveNode(this.list, element, this.list.children[i] ?? null);
        });
        if (this.selectedId && message.cell_ids.includes(this.selectedId)) this.multi.reselect(this.mode);
        break;
      }
      case "cell_moved": {
        const to = this.state.move(message.cell_id, message.index);
        const view = this.views.get(message.cell_id);
        if (to === -1 || !view) return;
        const next = this.state.cells[to + 1];
        moveNode(this.list, view.element, next ? this.views.get(next.id)!.element : null);
        if (this.selectedId === message.cell_id) view.element.scrollIntoView({ block: "nearest" });
        break;
      }
      case "source_set":
      case "sources_replaced":
        break; // the texts themselves came as the shared text's update, just before
      case "cell_type_set": {
        const model = this.state.get(message.cell_id);
        const view = this.views.get(message.cell_id);
        if (!model || !view) return;
        model.type = message.cell_type;
        view.setType(message.cell_type);
        view.setState(model.state, model.executionCount);
        const editing = this.selectedId === model.id && this.mode === "edit";
        if (model.type === "markdown" && !editing) view.renderMarkdown();
        break;
      }
      case "cell_metadata_set": {
        const model = this.state.get(message.cell_id);
        if (!model) return;
        model.metadata = message.metadata;
        this.views.get(message.cell_id)?.setMetadata(message.metadata, message.origin === this.state.clientId);
        break;
      }
      case "attachments_set": {
        const model = this.state.get(message.cell_id);
        if (!model) return;
        model.attachments = message.attachments;
        this.views.get(message.cell_id)?.setAttachments(message.attachments);
        break;
      }
      case "cell_state": {
        const model = this.state.get(message.cell_id);
        if (!model) return;
        model.state = message.state;
        model.executionCount = message.execution_count;
        this.views.get(message.cell_id)?.setState(message.state, message.execution_count);
        break;
      }
      case "cell_outputs": {
        const model = this.state.get(message.cell_id);
        if (!model) return;
        model.outputs = message.outputs;
        this.views.get(message.cell_id)?.setOutputs(message.outputs);
        break;
      }
      case "kernel_status": {
        const couldInstall = this.canInstall();
        this.state.kernel = message.kernel;
        this.bar.setKernelStatus(message.kernel);
        if (this.canInstall() !== couldInstall) this.redrawMissingModules(); // Install buttons come or go
        break;
      }
      case "install_progress":
        this.views.get(message.cell_id)?.installProgress(message);
        break;
      case "stdin_request":
        this.views.get(message.cell_id)?.showStdin(message.prompt, message.password, (value) => {
          this.connection.send({ type: "stdin_reply", value });
        });
        break;
      case "stdin_closed":
        this.views.get(message.cell_id)?.closeStdin();
        break;
      case "save_status":
        this.state.save = message.save;
        this.bar.setSave(message.save);
        this.fileChanged.follow(message.save, this.path);
        break;
      case "error":
        showToast(message.message);
        break;
      default:
        break;
    }
    if ("revision" in message && typeof message.revision === "number") this.state.revision = message.revision;
    if (message.type === "snapshot" || message.type === "cell_inserted" || message.type === "cells_replaced") {
      this.presence.draw();
      this.bindVisited();
    }
    this.search.changed(); // the search's count follows every change (outputs, cells, other tabs)
  }

  canInstall(): boolean {
    return this.state.kernel.can_install === true;
  }

  private redrawMissingModules(): void {
    for (const model of this.state.cells) {
      if (model.outputs.some((output) => missingModule(output) !== null)) this.views.get(model.id)?.setOutputs(model.outputs, true);
    }
  }

  /** The server's whole state (on connect and every reconnect). The shared texts merge what was typed
   * here while disconnected; cell views that survive keep their editor (focus, cursor, undo), unless the
   * server restarted with a new document (then every editor binds to its texts afresh). */
  private loadSnapshot(snapshot: Snapshot): void {
    const keepSelected = this.selectedId;
    const keepMode = this.mode;
    this.follow(snapshot.path); // renamed while this tab was away
    const local = (id: string): string | undefined => this.views.get(id)?.editor.source;
    const { replaced, orphans } = this.sources.load(snapshot, local);
    const lost = [...orphans].map(([id, source]) => ({ index: this.state.indexOf(id), type: this.views.get(id)!.type, source }));
    this.state.load(snapshot);
    const old = new Map(this.views);
    this.views.clear();
    for (const model of this.state.cells) {
      model.source = this.sources.text(model.id)?.toString() ?? model.source;
      const view = old.get(model.id);
      if (view && view.type === model.type && !replaced) {
        old.delete(model.id);
        view.setState(model.state, model.executionCount);
        view.setOutputs(model.outputs, true);
        this.views.set(model.id, view);
      } else {
        this.views.set(model.id, new CellView(model.id, model, this));
      }
    }
    for (const view of old.values()) view.destroy();
    const elements = this.state.cells.map((model) => this.views.get(model.id)!.element);
    const children = this.list.children;
    if (elements.length !== children.length || elements.some((element, i) => children[i] !== element)) {
      this.list.replaceChildren(...elements);
    }
    this.bar.setKernel(snapshot.kernel, snapshot.kernelspecs);
    this.bar.setSave(snapshot.save);
    this.fileChanged.follow(snapshot.save, this.path);
    if (keepSelected && !this.views.has(keepSelected)) this.selectedId = null;
    const target = keepSelected && this.views.has(keepSelected) ? keepSelected : this.state.cells[0]?.id;
    if (target) this.select(target, keepSelected === target && this.loaded ? keepMode : "command");
    this.loaded = true;
    // "loaded" once Markdown cells edit as Markdown too (their language is a chunk loaded on first use)
    void languagesReady().finally(() => {
      this.root.dataset.loaded = "true";
      requestAnimationFrame(() => setTimeout(preloadLanguages)); // after the first paint
    });
    this.showConnection();
    for (const orphan of lost) {
      // Another tab deleted a cell typed into while disconnected: bring it back with our text.
      const index = orphan.index === -1 ? this.state.cells.length : orphan.index;
      this.connection.send({ type: "insert_cell", index, cell_type: orphan.type, cell_id: newCellId(), source: orphan.source });
    }
    if (lost.length) showToast("A cell you edited while disconnected had been deleted: it was added back with your text");
  }

  /** A new cell from the server at `index`; selected when this tab asked for it (or none is). */
  private addCell(index: number, model: CellModel): void {
    if (this.views.has(model.id)) return;
    model.source = this.sources.text(model.id)?.toString() ?? model.source;
    const at = this.state.insert(index, model);
    const view = new CellView(model.id, model, this);
    this.views.set(model.id, view);
    this.list.insertBefore(view.element, this.list.children[at] ?? null);
    if (this.pendingSelect?.id === model.id) {
      const { mode } = this.pendingSelect;
      this.pendingSelect = null;
      this.select(model.id, mode);
      if (this.pendingGenerate === model.id) view.askAI();
      this.pendingGenerate = null;
    } else if (this.selectedId === null) this.select(model.id, "command");
  }

  /** Drop cells the server removed; with `reselect`, a removed selected cell passes the selection on. */
  private removeCells(ids: string[], reselect = true): void {
    const selected = this.selectedId;
    let selectedIndex = -1;
    for (const id of ids) {
      const index = this.state.remove(id);
      if (id === selected) selectedIndex = index;
      this.views.get(id)?.destroy();
      this.views.delete(id);
    }
    if (selectedIndex !== -1) {
      this.selectedId = null;
      if (!reselect) return;
      const cells = this.state.cells;
      const next = cells[Math.min(selectedIndex, cells.length - 1)];
      if (next) this.select(next.id, "command");
    }
  }

  /** The notebook now lives at `path` (renamed or moved, in this tab, another or the file browser): its
   * name, address and title follow, and so does the socket's next reconnect. */
  private follow(path: string): void {
    if (path === this.path) return;
    this.path = path;
    setNotebookPath(path);
    this.name.set(path);
    this.root.dataset.path = path;
    this.homeLink.href = treeUrl(parentDir(path));
    document.title = pageTitle(path);
    this.connection.followNotebook(path);
    history.replaceState(history.state, "", notebookUrl(path) + location.search + location.hash);
  }

  /** This tab can no longer save: say so, stop the socket, and keep the cells for copying (read-only). */
  private showClosed(testid: string, heading: string, detail: string): void {
    this.connection.close();
    for (const view of this.views.values()) view.editor.setReadOnly(true);
    this.root.dataset.closed = "true";
    this.bar.setNotSaving("not saved");
    const allText = () => this.state.cells.map((cell) => this.views.get(cell.id)?.editor.source ?? cell.source).join("\n\n");
    this.offlineBanner.replaceWith(closedBanner({ testid, heading, detail, allText }));
  }

  private showFatal(message: string): void {
    if (this.loaded) {
      this.showClosed("notebook-error", "This notebook was closed.", `${message}. Nothing in this tab is saved any more.`);
      return;
    }
    this.root.replaceChildren(
      el(
        "div",
        { class: "notebook-error", testid: "notebook-error", role: "alert" },
        el("h1", {}, "This notebook cannot be opened"),
        el("pre", {}, message),
        el("p", {}, "The file was left untouched."),
        el("a", { href: treeUrl(parentDir(this.path)), testid: "back-to-files" }, "Back to files"),
      ),
    );
  }

  private onConnection(state: ConnectionState): void {
    this.bar.setConnection(state);
    // Typing goes on while disconnected: the shared texts keep the edits until the next snapshot.
    if (state === "closed" || state === "fatal") this.sources.disconnected();
    if (state === "fatal") for (const view of this.views.values()) view.editor.setReadOnly(true);
    this.showConnection();
  }

  /** Say plainly when the server is out of reach (from the socket's close until the next snapshot). */
  private showConnection(): void {
    const offline = this.loaded && !this.sources.isOnline && this.connection.state !== "fatal";
    this.root.classList.toggle("disconnected", offline);
    this.offlineBanner.hidden = !offline;
  }

  private buildOfflineBanner(): HTMLElement {
    const retry = el("button", { type: "button", class: "offline-retry", testid: "reconnect-now" }, "Reconnect now");
    retry.addEventListener("mousedown", (event) => event.preventDefault()); // the editor keeps the focus
    retry.addEventListener("click", () => this.connection.reconnectNow());
    const banner = el(
      "div",
      { class: "offline-banner", testid: "offline-banner", role: "alert" },
      el("strong", {}, "Disconnected from the server."),
      el("span", {}, " Reconnecting… Keep typing: your edits are kept here and sent when the connection is back. Cells cannot run until then."),
      retry,
    );
    banner.hidden = true;
    return banner;
  }

  // ---- actions (CellHost) ---------------------------------------------------------------------

  /** Send a user's action; say so when it cannot go out (the server is out of reach). */
  private act(message: ClientMessage): boolean {
    if (this.connection.send(message)) return true;
    showToast("Not connected to the server: nothing was done (your typing is kept)");
    return false;
  }

  indexOf(id: string): number {
    return this.state.indexOf(id);
  }

  /** The selected cells' ids in document order: the multi-cell selection, or the one selected cell. */
  private selectedCells(): string[] {
    const ids = this.multi.ids().filter((id) => this.state.indexOf(id) !== -1);
    const chosen = ids.length ? ids : this.selectedId ? [this.selectedId] : [];
    return chosen.sort((a, b) => this.state.indexOf(a) - this.state.indexOf(b));
  }

  private selectedIndex(): number {
    return this.selectedId ? this.state.indexOf(this.selectedId) : -1;
  }

  select(id: string, mode: Mode, scroll = true): void {
    const view = this.views.get(id);
    if (!view) return;
    if (this.outline.isHidden(id)) this.outline.reveal(id); // in a collapsed section: expand it, as JupyterLab
    const previous = this.selectedId ? this.views.get(this.selectedId) : undefined;
    // A markdown cell shows its rendering whenever it is not being edited.
    if (previous && previous.type === "markdown" && !previous.isRendered && (previous !== view || mode === "command")) {
      previous.renderMarkdown();
    }
    if (this.selectedId !== id) {
      previous?.setSelected(false, "command");
      this.selectedId = id;
    }
    this.mode = mode;
    this.presence.selected(id);
    view.setSelected(true, mode);
    this.multi.selected(id);
    if (mode === "edit") {
      view.edit();
    } else {
      if (view.editor.hasFocus()) view.editor.blur();
      const active = document.activeElement;
      if (active instanceof HTMLElement && this.list.contains(active) && !view.element.contains(active)) active.blur();
      if (!view.element.contains(document.activeElement) || view.editor.hasFocus()) {
        view.element.tabIndex = -1;
        view.element.focus({ preventScroll: true });
      }
      if (scroll) view.element.scrollIntoView({ block: "nearest" });
    }
    this.outline.selectionChanged(id);
  }

  /** The next cell from `index` in direction `delta` that is not hidden in a collapsed section. */
  private visibleFrom(index: number, delta: number): CellModel | undefined {
    const step = Math.sign(delta) || 1;
    let at = index + delta;
    while (this.state.cells[at] && this.outline.isHidden(this.state.cells[at].id)) at += step;
    return this.state.cells[at];
  }

  editNeighbour(id: string, delta: -1 | 1): boolean {
    const next = this.visibleFrom(this.state.indexOf(id), delta);
    if (!next) return false;
    this.select(next.id, "edit");
    this.views.get(next.id)?.edit(delta < 0 ? "end" : "start");
    return true;
  }

  private selectRelative(delta: number): void {
    const next = this.visibleFrom(this.selectedIndex(), delta);
    if (next) this.select(next.id, "command");
  }

  run(id: string, how: RunHow): void {
    const view = this.views.get(id);
    if (!view) return;
    if (view.type === "markdown") view.renderMarkdown();
    else if (view.type === "code" && !this.connection.send({ type: "execute_cells", cell_ids: [id] })) {
      showToast("Not connected: the cell did not run");
    }
    const index = this.state.indexOf(id);
    if (how === "stay") this.select(id, "command");
    else if (how === "insert") this.insertAt(index + 1, "code", "edit");
    else {
      const next = this.state.cells[index + 1];
      if (next) this.select(next.id, "command");
      else this.insertAt(index + 1, "code", "edit");
    }
  }

  /** JupyterLab's run-all-below: the selected cell and those after it; the last cell is selected then. */
  private runBelow(): void {
    if (!this.selectedId || !this.act({ type: "run_below", cell_id: this.selectedId })) return;
    const last = this.state.cells[this.state.cells.length - 1];
    if (last) this.select(last.id, "command");
  }

  /** o: toggle the selected cell's outputs; Shift+O: hide every code cell's if any is shown, else show all. */
  private toggleOutputs(all: boolean): void {
    const code = this.state.cells.filter((cell) => cell.type === "code");
    const targets = all ? code : code.filter((cell) => cell.id === this.selectedId);
    // as shown now: a toggle just made here is drawn at once, before the server's echo updates the model
    const hidden = (cell: CellModel) => this.views.get(cell.id)?.outputsHidden ?? outputsHidden(cell.metadata);
    const hide = targets.some((cell) => !hidden(cell));
    for (const cell of targets) {
      if (hidden(cell) === hide) continue;
      const view = this.views.get(cell.id);
      if (view) view.setOutputsHidden(hide);
      else this.setCellMetadata(cell.id, hideOutputsPatch(cell.metadata, hide));
    }
  }

  clearOutputs(id: string): void {
    this.act({ type: "clear_outputs", cell_ids: [id] });
  }

  /** Add a cell at `index`, selected in `mode` once the server has it; its id (null: not connected). */
  insertAt(index: number, type: CellType = "code", mode: Mode = "command", source = ""): string | null {
    const id = newCellId();
    this.pendingSelect = { id, mode };
    const message = { type: "insert_cell" as const, index: Math.max(0, index), cell_type: type, cell_id: id, source };
    if (!this.connection.send(message)) {
      showToast("Not connected: the cell was not added");
      return null;
    }
    return id;
  }

  /** Generate: an empty code cell at `index`, its Edit with AI prompt open for the description. */
  generateAt(index: number): void {
    this.pendingGenerate = this.insertAt(index, "code", "edit");
  }

  moveCell(id: string, delta: number): void {
    this.act({ type: "move_cells", cell_ids: [id], delta }); // one undoable step (z), as a selection's move
  }

  deleteCells(ids: string[]): void {
    this.act({ type: "delete_cells", cell_ids: ids });
  }

  setCellMetadata(id: string, metadata: Record<string, unknown>): void {
    this.act({ type: "set_cell_metadata", cell_id: id, metadata });
  }

  /** Set metadata keys and show the result at once (the server's `cell_metadata_set` follows). */
  private setMetadataNow(id: string, patch: Record<string, unknown>): void {
    const model = this.state.get(id);
    if (!model || !this.act({ type: "set_cell_metadata", cell_id: id, metadata: patch })) return;
    const metadata = { ...model.metadata };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete metadata[key];
      else metadata[key] = value;
    }
    model.metadata = metadata;
    this.views.get(id)?.setMetadata(metadata);
    this.outline.changed();
  }

  setCellType(id: string, type: CellType): void {
    const view = this.views.get(id);
    if (view?.type === type) return;
    this.act({ type: "set_cells_type", cell_ids: [id], cell_type: type }); // undoable (z)
  }

  /** A command-mode key typed in cell `id`'s editor just after an Esc that only closed a suggestion. */
  commandKey(id: string, event: KeyboardEvent): boolean {
    this.select(id, "command");
    return this.commandKeys.run(event);
  }

  sourceChanged(id: string, source: string, cursor: number, remote: boolean): void {
    const model = this.state.get(id);
    if (model) model.source = source;
    if (model?.type === "markdown") this.outline.changed();
    if (remote) return;
    this.sources.typedIn(id, cursor);
    if (!this.sources.isOnline) this.bar.setSave({ status: "dirty", message: null }); // kept here, not saved yet
  }

  /** Editors bind to their texts when first used (collab/lazy-binding.ts): another tab's cursor in a cell
   * is a use, so that the cursor is drawn there. */
  private followCursors(awareness: Awareness): void {
    awareness.on("change", ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }) => {
      const others = [...added, ...updated, ...removed].some((id) => id !== awareness.clientID);
      if (others) queueMicrotask(() => this.bindVisited()); // never inside an editor's update
    });
  }

  private bindVisited(): void {
    const texts = textsWithRemoteCursors(this.sources.awareness);
    if (!texts.size) return;
    for (const [id, view] of this.views) {
      const text = this.sources.text(id);
      if (text && texts.has(text)) view.editor.bind();
    }
  }

  shared(id: string): SharedCell {
    const text = this.sources.text(id);
    if (!text) throw new Error(`the server sent no text for cell ${id}`);
    return { text, awareness: this.sources.awareness };
  }

  save(): void {
    this.act({ type: "save" });
  }
}
