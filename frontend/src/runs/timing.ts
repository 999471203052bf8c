// A code cell's last run: "1.2 s, 14:03", from JupyterLab's `execution` cell metadata (the keys its
// packages/cells/src/widget.ts CodeCell.execute records with recordTiming; the server writes them for
// every run). Start: `shell.execute_reply.started` (ipykernel's), else `iopub.execute_input`; end:
// `shell.execute_reply`, else `execution_failed`.

export interface TimingLabel {
  text: string;
  title: string;
}

function date(value: unknown): Date | null {
  if (typeof value !== "string" || !value) return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

/** "85 ms", "1.2 s", "12 s", "2 min 5 s", "1 h 3 min". */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = ms / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** Local "14:03", with the date in front when it was not today. */
export function formatFinished(end: Date, now: Date = new Date()): string {
  const time = `${pad(end.getHours())}:${pad(end.getMinutes())}`;
  if (end.toDateString() === now.toDateString()) return time;
  return `${end.getFullYear()}-${pad(end.getMonth() + 1)}-${pad(end.getDate())} ${time}`;
}

export function timingLabel(metadata: Record<string, unknown> | undefined, now: Date = new Date()): TimingLabel | null {
  const execution = metadata?.execution;
  if (!execution || typeof execution !== "object") return null;
  const keys = execution as Record<string, unknown>;
  const start = date(keys["shell.execute_reply.started"]) ?? date(keys["iopub.execute_input"]);
  const failed = date(keys["execution_failed"]);
  const end = date(keys["shell.execute_reply"]) ?? failed;
  if (!start || !end) return null;
  const elapsed = formatElapsed(end.getTime() - start.getTime());
  const finished = formatFinished(end, now);
  const queued = date(keys["iopub.status.busy"]);
  const wait = queued && start.getTime() - queued.getTime() >= 1000 ? `, after waiting ${formatElapsed(start.getTime() - queued.getTime())}` : "";
  const how = failed && !keys["shell.execute_reply"] ? "stopped (the kernel stopped)" : "finished";
  return {
    text: `${elapsed}, ${finished}`,
    title: `Last run took ${elapsed}${wait}; ${how} ${end.toLocaleString()}`,
  };
}

/** "running 3.0 s" in the timing's place while a run this tab saw start goes on (from 1 s on, so quick
 * runs do not flicker); `restore` puts the last run's label back. */
export class RunClock {
  private timer: number | null = null;

  constructor(private readonly element: HTMLElement, private readonly restore: () => void) {}

  start(): void {
    this.stop();
    const started = Date.now();
    this.timer = window.setInterval(() => {
      this.element.hidden = false;
      this.element.textContent = `running ${formatElapsed(Date.now() - started)}`;
      this.element.title = `Running since ${new Date(started).toLocaleTimeString()}`;
    }, 1000);
  }

  stop(): void {
    if (this.timer === null) return;
    window.clearInterval(this.timer);
    this.timer = null;
    this.restore();
  }
}
