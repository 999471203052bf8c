// The user's appearance: colour theme (System follows `prefers-color-scheme`, Light, Dark) and the code
// editors' font size. The server writes both onto <html> before the first paint (web/appearance.py:
// `data-theme` and `--editor-font-size`); styles.css turns `data-theme` into colours, the editors read the
// font size from the variable, so a change applies live. Changes go to `PATCH /api/appearance` (kept in the
// user's settings file) and to the other open tabs over a BroadcastChannel.

export type ThemeSetting = "system" | "light" | "dark";
export type Theme = "light" | "dark";

export interface Appearance {
  theme: ThemeSetting;
  editor_font_size: number;
}

export const FONT_SIZE_RANGE = [10, 24] as const;
const DEFAULT: Appearance = { theme: "system", editor_font_size: 14 };
const CHANNEL = "ghostbook-appearance";

// Nothing here runs at import in node (the unit tests import the frame code that asks for the theme).
const inPage = typeof document !== "undefined" && typeof window.matchMedia === "function";
const darkQuery = inPage ? window.matchMedia("(prefers-color-scheme: dark)") : null;
const listeners = new Set<(theme: Theme) => void>();
let channel: BroadcastChannel | null = null;

/** What the page shows now (as the server wrote it onto <html>, or as changed since). */
export function currentAppearance(): Appearance {
  if (!inPage) return DEFAULT;
  const root = document.documentElement;
  const theme = root.dataset.theme;
  const size = parseInt(root.style.getPropertyValue("--editor-font-size"), 10);
  return {
    theme: theme === "light" || theme === "dark" || theme === "system" ? theme : DEFAULT.theme,
    editor_font_size: Number.isFinite(size) ? size : DEFAULT.editor_font_size,
  };
}

/** The theme in effect: the setting, or the system's under System. */
export function currentTheme(): Theme {
  const { theme } = currentAppearance();
  if (theme === "system") return darkQuery?.matches ? "dark" : "light";
  return theme;
}

/** Call `listener` whenever the theme in effect changes (the setting, or the system's under System);
 * returns the function that stops it. */
export function onThemeChange(listener: (theme: Theme) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

function notify(): void {
  const theme = currentTheme();
  for (const listener of listeners) listener(theme);
}

/** Show `appearance` on this page (no saving). */
export function applyAppearance(appearance: Appearance): void {
  const before = currentTheme();
  const root = document.documentElement;
  root.dataset.theme = appearance.theme;
  root.style.setProperty("--editor-font-size", `${appearance.editor_font_size}px`);
  if (currentTheme() !== before) notify();
}

/** Save `changes` on the server, show them here and in the other tabs; resolves to the saved appearance
 * or rejects with the server's message. */
export async function saveAppearance(changes: Partial<Appearance>): Promise<Appearance> {
  const response = await fetch("/api/appearance", {
    method: "PATCH",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(changes),
  });
  const body = (await response.json().catch(() => ({}))) as Appearance & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  applyAppearance(body);
  channel?.postMessage(body);
  return body;
}

function isAppearance(value: unknown): value is Appearance {
  const v = value as Appearance | null;
  return typeof v === "object" && v !== null && ["system", "light", "dark"].includes(v.theme)
    && typeof v.editor_font_size === "number";
}

darkQuery?.addEventListener("change", () => {
  if (currentAppearance().theme === "system") notify();
});
if (inPage && typeof BroadcastChannel !== "undefined") {
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    if (isAppearance(event.data)) applyAppearance(event.data);
  };
}
