// Who is editing: this browser's name (the "Your name" setting; a generated one until it is set) and
// this tab's colour, as the awareness field `user` carries them ({name, color, colorLight}, the shape
// y-codemirror.next and JupyterLab's collaboration use).

const NAME_KEY = "ghostbook.user-name";
const COLOR_KEY = "ghostbook.user-color";
// Generated names, as JupyterLab's ("Anonymous Io"): Jupiter's moons.
const MOONS = ["Io", "Europa", "Ganymede", "Callisto", "Amalthea", "Himalia", "Elara", "Pasiphae", "Sinope",
  "Lysithea", "Carme", "Ananke", "Leda", "Thebe", "Adrastea", "Metis", "Callirrhoe", "Themisto", "Megaclite"];
// White text reads on each (contrast 4.5 or more) and each stands out on the light and the dark theme's
// background alike (3 or more).
const COLORS = ["#d6336c", "#c2410c", "#a16207", "#4d7c0f", "#15803d", "#0f766e", "#0e7490", "#2563eb", "#6d5bd0",
  "#9333ea", "#c026d3", "#dc2626"];

export interface Person {
  name: string;
  color: string;
  /** The colour of a selection: translucent. */
  light: string;
  /** The colour of text on `color` (a name, initials): white, or near-black on a light colour another
   * client chose. */
  ink: string;
}

const listeners = new Set<(person: Person) => void>();

function pick<T>(items: T[]): T {
  return items[Math.floor(Math.random() * items.length)];
}

function stored(storage: Storage | undefined, key: string, make: () => string, valid = (_: string) => true): string {
  try {
    const value = storage?.getItem(key);
    if (value && valid(value)) return value;
    const made = make();
    storage?.setItem(key, made);
    return made;
  } catch {
    return make(); // storage refused (private mode): a name for this page only
  }
}

/** This browser's name (kept in localStorage) and this tab's colour (kept in sessionStorage: two tabs of
 * one person are told apart). */
export function me(): Person {
  const name = stored(globalThis.localStorage, NAME_KEY, () => `Anonymous ${pick(MOONS)}`);
  const color = stored(globalThis.sessionStorage, COLOR_KEY, () => pick(COLORS), (value) => COLORS.includes(value));
  return { name, color, light: `${color}33`, ink: inkOn(color) };
}

/** The "Your name" setting: kept for this browser, and every open notebook shows it to the others. */
export function setMyName(name: string): void {
  const trimmed = name.trim().slice(0, 60);
  try {
    if (trimmed) globalThis.localStorage?.setItem(NAME_KEY, trimmed);
    else globalThis.localStorage?.removeItem(NAME_KEY);
  } catch {
    // not kept across reloads; still shown now
  }
  const person = me();
  for (const listener of listeners) listener(person);
}

// Another tab of this browser changed the name: this one shows it too.
globalThis.addEventListener?.("storage", (event: StorageEvent) => {
  if (event.key !== NAME_KEY) return;
  const person = me();
  for (const listener of listeners) listener(person);
});

export function onMyChange(listener: (person: Person) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The person of another tab's awareness state (a default for a client that sent no `user`). */
export function personOf(state: Record<string, unknown>): Person {
  const user = (state.user ?? {}) as { name?: unknown; color?: unknown; colorLight?: unknown };
  const color = typeof user.color === "string" && /^#[0-9a-fA-F]{6}$/.test(user.color) ? user.color : "#30bced";
  const name = typeof user.name === "string" && user.name ? user.name.slice(0, 60) : "Anonymous";
  return { name, color, light: `${color}33`, ink: inkOn(color) };
}

/** Colour `element` (a caret, chip or avatar) as `person`: the CSS variables --person and --person-ink. */
export function paint(element: HTMLElement, person: Person): void {
  element.style.setProperty("--person", person.color);
  element.style.setProperty("--person-ink", person.ink);
}

/** White or near-black text on the colour `hex` (#rrggbb), whichever has the higher contrast. */
export function inkOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? "#ffffff" : "#1f2328";
}
