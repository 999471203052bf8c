// What the frame runtime (runtime.ts, loaded first in every output frame) offers the renderer bundles
// loaded after it. Runs inside the sandboxed frame, never in the page.

export interface FrameRuntime {
  /** The JSON the page embedded for this frame. */
  data(): unknown;
  /** An element to draw into (the body, once parsed). */
  root(): Promise<HTMLElement>;
  /** Show an error in place of the output. */
  fail(error: unknown): void;
  /** Post a message to the page (it accepts only what the output's renderer expects). */
  post(message: unknown): void;
  /** The page's theme when the frame was made ("light" or "dark"): renderers pick their colours by it. */
  theme(): "light" | "dark";
  /** Messages from the page (and only from it). */
  onMessage(handler: (message: unknown) => void): void;
}

declare global {
  interface Window {
    ghostbook?: FrameRuntime;
  }
}

export function frameRuntime(): FrameRuntime {
  const runtime = window.ghostbook;
  if (!runtime) throw new Error("the output frame's runtime did not load");
  return runtime;
}
