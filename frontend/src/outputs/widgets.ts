// ipywidgets (application/vnd.jupyter.widget-view+json): the part in the main bundle. It follows the
// notebook's socket (the snapshot's widget models, the kernel's comm messages, the kernel's status) and
// draws a widget output as a host element; the Jupyter widget manager itself (widgets-manager.ts, the
// `widgets` bundle with @jupyter-widgets/controls and its CSS) is loaded the first time a notebook has
// a widget, and everything that arrived before it is handed to it in order.

import type { Connection } from "../connection";
import { sanitizeHtml } from "../markdown";
import { renderOutputs } from "../outputs";
import { readCommEvent, readWidgetModels, type CommDone, type CommEvent, type ServerMessage, type WidgetModelState } from "../protocol";
import { RANK, registerRenderer, type RenderContext } from "./registry";
import { joinText } from "./text";

export const WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json";

/** The widget bundle (build.mjs's `widgets` entry point) beside main.js, with its CSS. */
const WIDGETS_JS = "/static/build/widgets.js";
const WIDGETS_CSS = "/static/build/widgets.css";

/** What the main bundle lends the widget bundle (so it carries no second copy of them). */
export interface WidgetHost {
  connection: Connection;
  renderOutputs: typeof renderOutputs;
  sanitizeHtml: (html: string) => string;
}

/** What the widget bundle does (widgets-manager.ts). */
export interface WidgetRuntime {
  /** A (new) snapshot: forget every model, then create these. */
  reset(models: Record<string, WidgetModelState>): void;
  receive(message: CommEvent | CommDone): void;
  /** The kernel died, restarts or was replaced: every widget shows as disconnected. */
  kernelGone(): void;
  /** Draw model `modelId` into `host` (`fallback`: the output's text/plain, when the model is unknown). */
  render(host: HTMLElement, modelId: string, fallback: string): void;
}

type Queued = CommEvent | CommDone | "kernel-gone";

class WidgetBridge {
  private runtime: WidgetRuntime | null = null;
  private loading: Promise<WidgetRuntime> | null = null;
  private connection: Connection | null = null;
  private models: Record<string, WidgetModelState> = {};
  private queue: Queued[] = [];

  attach(connection: Connection): void {
    this.connection = connection;
    connection.addListener((message) => this.onMessage(message));
  }

  private onMessage(message: ServerMessage): void {
    if (message.type === "snapshot") {
      const models = readWidgetModels(message.widgets);
      if (this.runtime) this.runtime.reset(models);
      else {
        this.models = models;
        this.queue = [];
        if (Object.keys(models).length) void this.load();
      }
      return;
    }
    if (message.type === "kernel_status") {
      if (["dead", "restarting", "starting"].includes(message.kernel.status)) this.deliver("kernel-gone");
      return;
    }
    const comm = readCommEvent(message);
    if (!comm) return;
    this.deliver(comm);
    if (comm.type === "comm_open") void this.load(); // a widget is coming: have the manager ready
  }

  private deliver(item: Queued): void {
    if (!this.runtime) {
      if (item === "kernel-gone") for (const model of Object.values(this.models)) model.live = false;
      this.queue.push(item);
      return;
    }
    if (item === "kernel-gone") this.runtime.kernelGone();
    else this.runtime.receive(item);
  }

  load(): Promise<WidgetRuntime> {
    this.loading ??= (async () => {
      const css = new Promise<void>((resolve) => {
        const link = document.createElement("link");
        link.rel = "stylesheet";
        link.href = WIDGETS_CSS;
        link.onload = link.onerror = () => resolve();
        document.head.append(link);
      });
      const url = WIDGETS_JS; // a variable: esbuild leaves the import to the browser
      const module = (await import(url)) as { createRuntime(host: WidgetHost): WidgetRuntime };
      await css;
      if (!this.connection) throw new Error("widgets need the notebook's connection");
      const runtime = module.createRuntime({ connection: this.connection, renderOutputs, sanitizeHtml: (html) => sanitizeHtml(html) });
      runtime.reset(this.models);
      for (const item of this.queue) {
        if (item === "kernel-gone") runtime.kernelGone();
        else runtime.receive(item);
      }
      this.queue = [];
      this.models = {};
      this.runtime = runtime;
      return runtime;
    })();
    this.loading.catch(() => {
      this.loading = null; // try again next time (the server may have been restarting)
    });
    return this.loading;
  }

  render({ value, data }: RenderContext): HTMLElement {
    const host = document.createElement("div");
    host.className = "widget-host";
    host.dataset.testid = "widget-view";
    // Keys typed in a widget (a slider's arrows, a button's Enter, "d" in a toggle) are the widget's, not
    // notebook commands; Esc, Shift+Enter and shortcuts with Ctrl/Alt/Cmd still reach the notebook.
    host.addEventListener("keydown", (event) => {
      const notebookKey = event.ctrlKey || event.metaKey || event.altKey || event.key === "Escape" || (event.key === "Enter" && event.shiftKey);
      if (!notebookKey) event.stopPropagation();
    });
    const fallback = joinText(data["text/plain"]);
    const modelId = typeof value === "object" && value !== null ? (value as { model_id?: unknown }).model_id : undefined;
    if (typeof modelId !== "string") {
      host.textContent = fallback;
      return host;
    }
    host.dataset.modelId = modelId;
    if (this.runtime) {
      this.runtime.render(host, modelId, fallback);
      return host;
    }
    host.textContent = "Loading widget…";
    this.load().then(
      (runtime) => runtime.render(host, modelId, fallback),
      () => (host.textContent = `${fallback}\n(the widget library could not be loaded)`),
    );
    return host;
  }
}

const bridge = new WidgetBridge();

registerRenderer({ mimes: [WIDGET_VIEW_MIME], render: (context) => bridge.render(context), rank: RANK.widget, keep: true });

/** Follow `connection` for widget state and comm messages (one notebook per page). */
export function installWidgets(connection: Connection): void {
  bridge.attach(connection);
}
