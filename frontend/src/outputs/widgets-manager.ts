// The Jupyter widget manager of a notebook page (the `widgets` bundle, loaded on first use by widgets.ts).
// It is @jupyter-widgets/base-manager's ManagerBase, as JupyterLab's and the HTML manager are, with the
// models and views of @jupyter-widgets/base, /controls and /output; comm messages go over the notebook's
// websocket (the server relays them to and from the kernel, and keeps the state it saves).
//
// Security (docs/security.md): widgets draw in the page, so only code bundled here runs. `loadClass`
// hands out classes of the three bundled modules and nothing else: a custom widget (ipyleaflet,
// anywidget, a notebook's own module) gets a placeholder that names it; no module is ever fetched.
// Where a bundled view writes state as HTML (the HTML and HTMLMath widgets' value, descriptions with
// description_allow_html, error messages) it goes through the page's sanitiser (DOMPurify), and an Output
// widget's outputs through the page's output renderers (scripts only in sandboxed frames).

import * as base from "@jupyter-widgets/base";
import { ManagerBase } from "@jupyter-widgets/base-manager";
import * as controls from "@jupyter-widgets/controls";
import * as outputWidget from "@jupyter-widgets/output";
import type { JSONObject, JSONValue } from "@lumino/coreutils";
import type { ObjectHash } from "backbone";
import type { CommDone, CommEvent, Output, WidgetModelState } from "../protocol";
import type { WidgetHost, WidgetRuntime } from "./widgets";
import "@lumino/widgets/style/widget.css"; // hidden children (Tab, Stack), as JupyterLab's page has it
import "@lumino/widgets/style/tabbar.css";
import "@lumino/widgets/style/tabpanel.css";
import "@lumino/widgets/style/accordionpanel.css";
import "@jupyter-widgets/controls/css/widgets.css";
import "./widgets.css";

const WIDGET_TARGET = "jupyter.widget";

/** The page's helpers, lent by the main bundle (createRuntime). */
let page: WidgetHost;

// ---- the bundled modules, and nothing else --------------------------------------------------------

class SafeHTMLView extends controls.HTMLView {
  update(): void {
    this.content.innerHTML = page.sanitizeHtml(String(this.model.get("value") ?? ""));
    controls.StringView.prototype.update.call(this);
  }
}

class SafeHTMLMathView extends controls.HTMLMathView {
  update(): void {
    this.content.innerHTML = page.sanitizeHtml(String(this.model.get("value") ?? ""));
    controls.StringView.prototype.update.call(this);
  }
}

class PageOutputModel extends outputWidget.OutputModel {
  defaults(): ObjectHash {
    return { ...super.defaults(), msg_id: "", outputs: [] };
  }
}

/** The Output widget: its `outputs` (captured by the server) drawn by the page's own output renderers. */
class PageOutputView extends outputWidget.OutputView {
  private area!: HTMLElement;

  render(): void {
    super.render();
    this.el.classList.add("jupyter-widgets-output-area", "widget-output");
    this.area = document.createElement("div");
    this.area.className = "widget-output-area";
    this.area.dataset.testid = "widget-output";
    this.el.append(this.area);
    this.listenTo(this.model, "change:outputs", () => this.update());
    this.update();
  }

  update(): void {
    const outputs = this.model.get("outputs");
    page.renderOutputs(this.area, Array.isArray(outputs) ? (outputs as Output[]) : []);
  }
}

/** A model of a module we do not load. */
class UnsupportedModel extends base.DOMWidgetModel {}

/** What a custom widget shows instead of running code from outside the bundle. */
class UnsupportedView extends base.DOMWidgetView {
  render(): void {
    const module = String(this.model.get("_view_module") || this.model.get("_model_module") || "?");
    const name = String(this.model.get("_view_name") || this.model.get("_model_name") || "?");
    const note = document.createElement("div");
    note.className = "widget-unsupported";
    note.dataset.testid = "widget-unsupported";
    note.textContent = `${name} from ${module}: only ipywidgets' own controls run in Ghostbook (custom widget modules are not loaded).`;
    this.el.append(note);
  }
}

// ErrorWidgetView writes its message (which can hold a model's names, from the notebook) as HTML: as text here.
base.ErrorWidgetView.prototype.render = function (this: base.ErrorWidgetView): void {
  const { msg } = this.generateErrorMessage();
  const note = document.createElement("pre");
  note.className = "widget-error";
  note.textContent = `This widget could not be shown: ${msg}`;
  this.el.append(note);
};

type Classes = Record<string, unknown>;
const MODULES: Record<string, { major: number; classes: Classes }> = {
  "@jupyter-widgets/base": { major: 2, classes: { ...base } },
  "@jupyter-widgets/controls": { major: 2, classes: { ...controls, HTMLView: SafeHTMLView, HTMLMathView: SafeHTMLMathView } },
  "@jupyter-widgets/output": { major: 1, classes: { OutputModel: PageOutputModel, OutputView: PageOutputView } },
};

const own = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/** The bundled class `className` of `moduleName` at `version`'s major version, or null. */
export function bundledClass(className: string, moduleName: string, version: string): typeof base.WidgetModel | typeof base.WidgetView | null {
  const module = own(MODULES, moduleName) ? MODULES[moduleName] : null;
  const major = /\d+/.exec(version ?? "");
  if (!module || (major && Number(major[0]) !== module.major) || !own(module.classes, className)) return null;
  const cls = module.classes[className];
  if (typeof cls !== "function") return null;
  const proto = (cls as { prototype: unknown }).prototype;
  if (cls === base.WidgetModel || proto instanceof base.WidgetModel) return cls as typeof base.WidgetModel;
  if (cls === base.WidgetView || proto instanceof base.WidgetView) return cls as typeof base.WidgetView;
  return null;
}

// ---- comms over the notebook's socket -------------------------------------------------------------

type StatusCallback = (msg: unknown) => void;

/** One comm (a widget model's) whose messages travel over the notebook's websocket. */
class PageComm implements base.IClassicComm {
  /** The kernel is gone (or a new snapshot replaced us): send nothing any more. */
  detached = false;
  private onMsg: ((msg: unknown) => unknown) | null = null;
  private onClose: ((msg: unknown) => unknown) | null = null;
  private early: unknown[] = [];

  constructor(
    private readonly manager: PageWidgetManager,
    readonly comm_id: string,
    readonly target_name: string,
  ) {}

  open(data: JSONValue, callbacks?: base.ICallbacks, metadata?: JSONObject, buffers?: ArrayBuffer[] | ArrayBufferView[]): string {
    return this.manager.sendComm("comm_open", this, data, callbacks, metadata, buffers);
  }

  send(data: JSONValue, callbacks?: base.ICallbacks, metadata?: JSONObject, buffers?: ArrayBuffer[] | ArrayBufferView[]): string {
    return this.manager.sendComm("comm_msg", this, data, callbacks, metadata, buffers);
  }

  close(data?: JSONValue, callbacks?: base.ICallbacks, metadata?: JSONObject, buffers?: ArrayBuffer[] | ArrayBufferView[]): string {
    const msgId = this.manager.sendComm("comm_close", this, data ?? {}, callbacks, metadata, buffers);
    this.detached = true;
    this.manager.forget(this);
    return msgId;
  }

  on_msg(callback: (msg: unknown) => unknown): void {
    this.onMsg = callback;
    const early = this.early;
    this.early = [];
    for (const msg of early) void callback(msg);
  }

  on_close(callback: (msg: unknown) => unknown): void {
    this.onClose = callback;
  }

  async deliver(msg: unknown): Promise<void> {
    if (this.onMsg) await this.onMsg(msg);
    else this.early.push(msg); // the model is still being made
  }

  async deliverClose(msg: unknown): Promise<void> {
    this.detached = true;
    await this.onClose?.(msg);
  }
}

interface Drawn {
  modelId: string;
  fallback: string;
  view: base.DOMWidgetView | null;
  draw: object; // the latest draw: an older one that finishes late gives way
  away: number; // sweeps that found the host out of the page
}

class PageWidgetManager extends ManagerBase implements WidgetRuntime {
  private comms = new Map<string, PageComm>();
  private status = new Map<string, StatusCallback>();
  private queue: Promise<void> = Promise.resolve();
  private drawn = new Map<HTMLElement, Drawn>();
  private sweeper: number | null = null;

  // -- WidgetRuntime ---------------------------------------------------------------------------------

  reset(models: Record<string, WidgetModelState>): void {
    this.chain(async () => {
      this.detachAll();
      await this.clear_state(); // closes the views; the detached comms send nothing
      await Promise.all(Object.entries(models).map(([id, model]) => this.restore(id, model)));
      for (const host of this.drawn.keys()) void this.draw(host);
    });
  }

  receive(message: CommEvent | CommDone): void {
    this.chain(() => this.handle(message));
  }

  kernelGone(): void {
    this.chain(() => {
      this.detachAll();
      this.disconnect(); // every model: comm_live = false (their views show it)
    });
  }

  render(host: HTMLElement, modelId: string, fallback: string): void {
    this.drawn.set(host, { modelId, fallback, view: null, draw: {}, away: 0 });
    void this.queue.then(() => this.draw(host));
    this.sweeper ??= window.setInterval(() => this.sweep(), 5000);
  }

  // -- ManagerBase -----------------------------------------------------------------------------------

  protected async loadClass(className: string, moduleName: string, moduleVersion: string): Promise<typeof base.WidgetModel | typeof base.WidgetView> {
    const cls = bundledClass(className, moduleName, moduleVersion);
    if (!cls) throw new Error("not a bundled widget class");
    return cls;
  }

  protected async loadModelClass(className: string, moduleName: string, moduleVersion: string): Promise<typeof base.WidgetModel> {
    const cls = bundledClass(className, moduleName, moduleVersion);
    return cls && (cls === base.WidgetModel || cls.prototype instanceof base.WidgetModel) ? (cls as typeof base.WidgetModel) : UnsupportedModel;
  }

  protected async loadViewClass(className: string, moduleName: string, moduleVersion: string): Promise<typeof base.WidgetView> {
    const cls = bundledClass(className, moduleName, moduleVersion);
    return cls && (cls === base.WidgetView || cls.prototype instanceof base.WidgetView) ? (cls as typeof base.WidgetView) : UnsupportedView;
  }

  protected async _create_comm(target: string, modelId?: string, data?: JSONObject, metadata?: JSONObject,
    buffers?: ArrayBuffer[] | ArrayBufferView[]): Promise<base.IClassicComm> {
    const comm = new PageComm(this, modelId ?? base.uuid(), target);
    this.comms.set(comm.comm_id, comm);
    if (data !== undefined) comm.open(data, undefined, metadata, buffers);
    return comm;
  }

  protected async _get_comm_info(): Promise<{}> {
    const reply = await page.connection.request({ type: "comm_info_request", target_name: WIDGET_TARGET });
    return reply && reply.type === "comm_info_reply" ? reply.comms : {};
  }

  inline_sanitize(source: string): string {
    return page.sanitizeHtml(source);
  }

  // -- comms -----------------------------------------------------------------------------------------

  sendComm(type: "comm_open" | "comm_msg" | "comm_close", comm: PageComm, data: JSONValue, callbacks?: base.ICallbacks,
    metadata?: JSONObject, buffers?: ArrayBuffer[] | ArrayBufferView[]): string {
    if (comm.detached) return "";
    const msgId = base.uuid();
    const common = { msg_id: msgId, comm_id: comm.comm_id, data: (data ?? {}) as Record<string, unknown>,
      metadata: (metadata ?? {}) as Record<string, unknown>, buffers: (buffers ?? []).map(toBase64) };
    const sent = type === "comm_open"
      ? page.connection.send({ type, target_name: comm.target_name, ...common })
      : page.connection.send({ type, ...common });
    const statusCallback = callbacks?.iopub?.status as StatusCallback | undefined;
    if (statusCallback) {
      if (sent) this.status.set(msgId, statusCallback);
      else queueMicrotask(() => statusCallback(idle(msgId))); // never sent: do not hold the next update
    }
    return sent ? msgId : "";
  }

  forget(comm: PageComm): void {
    this.comms.delete(comm.comm_id);
  }

  private async handle(message: CommEvent | CommDone): Promise<void> {
    if (message.type === "comm_done") {
      const callback = this.status.get(message.msg_id);
      this.status.delete(message.msg_id);
      callback?.(idle(message.msg_id));
      return;
    }
    const msg = {
      header: { msg_type: message.type },
      parent_header: { msg_id: message.parent_msg_id },
      content: { comm_id: message.comm_id, target_name: message.target_name, data: message.data },
      metadata: message.metadata,
      buffers: message.buffers.map(fromBase64),
    };
    if (message.type === "comm_open") {
      if (message.target_name !== WIDGET_TARGET) return; // another frontend extension's comm: not ours
      const comm = new PageComm(this, message.comm_id, WIDGET_TARGET);
      this.comms.set(message.comm_id, comm);
      await this.handle_comm_open(comm, msg as never).catch((error) => console.error("widget not created", error));
      return;
    }
    const comm = this.comms.get(message.comm_id);
    if (!comm) return;
    if (message.type === "comm_msg") await comm.deliver(msg);
    else {
      this.comms.delete(message.comm_id);
      await comm.deliverClose(msg);
    }
  }

  private async restore(id: string, model: WidgetModelState): Promise<void> {
    const state = model.state as Record<string, base.BufferJSON>;
    const buffers = model.buffers ?? [];
    if (buffers.length) {
      base.put_buffers(state, buffers.map((b) => b.path), buffers.map((b) => (b.encoding === "hex" ? fromHex(b.data) : fromBase64(b.data))));
    }
    let comm: PageComm | undefined;
    if (model.live) {
      comm = new PageComm(this, id, WIDGET_TARGET);
      this.comms.set(id, comm);
    }
    await this.new_model({ model_id: id, model_name: model.model_name, model_module: model.model_module,
      model_module_version: model.model_module_version, comm }, state).catch((error) => console.error("widget not restored", error));
  }

  private detachAll(): void {
    for (const comm of this.comms.values()) comm.detached = true;
    this.comms.clear();
    const waiting = [...this.status];
    this.status.clear();
    for (const [msgId, callback] of waiting) callback(idle(msgId));
  }

  private chain(step: () => Promise<void> | void): void {
    this.queue = this.queue.then(step).catch((error) => console.error("widget message failed", error));
  }

  // -- views -----------------------------------------------------------------------------------------

  private async draw(host: HTMLElement): Promise<void> {
    try {
      await this.drawView(host);
    } catch (error) {
      console.error("widget not drawn", error);
      const note = document.createElement("pre");
      note.className = "widget-error";
      note.textContent = `This widget could not be shown: ${error instanceof Error ? error.message : String(error)}`;
      host.replaceChildren(note);
    }
  }

  private async drawView(host: HTMLElement): Promise<void> {
    const entry = this.drawn.get(host);
    if (!entry) return;
    const token = (entry.draw = {});
    if (entry.view) void removeView(entry.view);
    entry.view = null;
    if (!this.has_model(entry.modelId)) {
      host.replaceChildren(fallbackNote(entry.fallback));
      return;
    }
    const model = await this.get_model(entry.modelId);
    const view = (await this.create_view(model, {})) as base.DOMWidgetView;
    if (entry.draw !== token || this.drawn.get(host) !== entry) {
      void removeView(view); // a later draw won
      return;
    }
    entry.view = view;
    const badge = document.createElement("div");
    badge.className = "widget-badge";
    badge.dataset.testid = "widget-disconnected";
    badge.textContent = "Disconnected: the kernel does not have this widget (run the cell again to use it)";
    const area = document.createElement("div");
    area.className = "widget-area";
    host.replaceChildren(badge, area);
    const live = () => {
      host.classList.toggle("widget-disconnected", !model.comm_live);
      badge.hidden = model.comm_live;
      area.inert = !model.comm_live; // shown as it was, not usable
    };
    live();
    model.on("comm_live_update", live);
    view.once("remove", () => model.off("comm_live_update", live));
    await attachWhenInPage(view, area);
  }

  /** Remove the views of hosts that left the page (their cell re-rendered or went away). */
  private sweep(): void {
    for (const [host, entry] of this.drawn) {
      if (host.isConnected) entry.away = 0;
      else if (++entry.away >= 2) {
        if (entry.view) void removeView(entry.view);
        this.drawn.delete(host);
      }
    }
    if (!this.drawn.size && this.sweeper !== null) {
      window.clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }
}

/** Remove `view` once the views of its children (a box's, recursively) are made: a box removed before
 * then has no layout to put them in, and logs "Could not add child view to box" and "Cannot read
 * properties of null (reading 'widgets')" (issue 37.9: a second tab drawing a live interact). */
async function removeView(view: base.WidgetView): Promise<void> {
  await childrenMade(view);
  view.remove();
}

async function childrenMade(view: base.WidgetView): Promise<void> {
  const children = (view as { children_views?: base.ViewList<base.WidgetView> | null }).children_views;
  const pending = children?.views ?? [];
  const made = await Promise.all(pending.map((child) => child.catch(() => null)));
  await Promise.all(made.map((child) => (child ? childrenMade(child) : undefined)));
}

/** Lumino attaches only to a host in the document: wait a few frames for the output to be placed. */
async function attachWhenInPage(view: base.DOMWidgetView, area: HTMLElement): Promise<void> {
  for (let frame = 0; frame < 120 && !area.isConnected; frame++) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  if (area.isConnected) base.JupyterLuminoWidget.attach(view.luminoWidget, area);
  else area.append(view.el);
}

function fallbackNote(text: string): HTMLElement {
  const box = document.createElement("div");
  box.className = "widget-missing";
  box.dataset.testid = "widget-missing";
  const pre = document.createElement("pre");
  pre.textContent = text;
  const note = document.createElement("div");
  note.className = "widget-badge";
  note.textContent = "This widget's state was not saved with the notebook: run the cell to show it.";
  box.append(pre, note);
  return box;
}

function idle(msgId: string): unknown {
  return { header: { msg_type: "status" }, parent_header: { msg_id: msgId }, content: { execution_state: "idle" } };
}

export function toBase64(buffer: ArrayBuffer | ArrayBufferView): string {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): DataView {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new DataView(bytes.buffer);
}

function fromHex(text: string): DataView {
  const bytes = new Uint8Array(Math.floor(text.length / 2));
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return new DataView(bytes.buffer);
}

/** The entry point widgets.ts calls once the bundle is loaded. */
export function createRuntime(host: WidgetHost): WidgetRuntime {
  page = host;
  return new PageWidgetManager();
}
