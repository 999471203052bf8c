// Who is editing: this browser's name (the "Your name" setting; a generated one until it is set) and
// this tab's colour, as the awareness field `user` carries them ({name, color, colorLight}, the shape
// y-codemirror.next and JupyterLab's collaboration use).

const NAME_KEY = "ghostbook.user-name";
const COLOR_KEY = "ghostbook.user-color";
// Generated names, as JupyterLab's ("Anonymous Io"): Jupiter's moons.
const MOONS = ["Io", "Europa", "Ganymede", "Callisto", "Amalthea", "Himalia", "Elara", "Pasiphae", "Sinope",
  "Lysithea", "Carme", "Ananke", "Leda", "Thebe", "Adrastea", "Metis", "Callirrhoe", "Themisto", "Megaclite"];
// Distinct on light and dark backgrounds.
const COLORS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#0f9d9d", "#f032e6", "#9a6324", "#800000",
  "#008080", "#000075", "#b8860b"];

export interface Person {
  name: string;
  color: string;
  /** The colour of a selection: translucent. */
  light: string;
}

const listeners = new Set<(person: Person) => void>();

function pick<T>(items: T[]): T {
  return items[Math.floor(Math.random() * items.length)];
}

function stored(storage: Storage | undefined, key: string, make: () => string): string {
  try {
    const value = storage?.getItem(key);
    if (value) return value;
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
  const color = stored(globalThis.sessionStorage, COLOR_KEY, () => pick(COLORS));
  return { name, color, light: `${color}33` };
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

export function onMyChange(listener: (person: Person) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The person of another tab's awareness state (a default for a client that sent no `user`). */
export function personOf(state: Record<string, unknown>): Person {
  const user = (state.user ?? {}) as { name?: unknown; color?: unknown; colorLight?: unknown };
  const color = typeof user.color === "string" && /^#[0-9a-fA-F]{6}$/.test(user.color) ? user.color : "#30bced";
  const name = typeof user.name === "string" && user.name ? user.name.slice(0, 60) : "Anonymous";
  return { name, color, light: `${color}33` };
}
