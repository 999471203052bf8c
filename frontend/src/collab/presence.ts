// Presence: this tab's name, colour and cell go into the notebook's awareness; the other tabs' show as
// chips beside the cells they are in and as avatars in the toolbar (a click goes to their cell). Their
// cursors inside a cell are drawn by remote-cursors.ts.

import "./collab.css";
import type { Awareness } from "y-protocols/awareness";
import { el } from "../dom";
import { me, onMyChange, type Person, paint, personOf } from "./people";

export interface PresenceHost {
  /** The element of a cell (undefined when it is gone). */
  cellElement(id: string): HTMLElement | undefined;
  /** Select a cell (an avatar was clicked). */
  goTo(id: string): void;
}

interface Other {
  clientId: number;
  person: Person;
  cell: string | null;
}

export class Presence {
  /** The toolbar's avatars: everyone in this notebook, this tab first. */
  readonly element = el("div", { class: "presence", testid: "presence", "aria-label": "People in this notebook" });
  private awareness: Awareness | null = null;
  private cell: string | null = null;
  private readonly chips = new Set<HTMLElement>();
  private readonly onChange = () => this.draw();

  constructor(private readonly host: PresenceHost) {
    onMyChange((person) => this.awareness?.setLocalStateField("user", userField(person)));
  }

  /** Follow `awareness` (at start, and when the shared texts were replaced). */
  attach(awareness: Awareness): void {
    this.awareness?.off("change", this.onChange);
    this.awareness = awareness;
    awareness.setLocalState({ ...(awareness.getLocalState() ?? {}), user: userField(me()), cell: this.cell });
    awareness.on("change", this.onChange);
    this.draw();
  }

  /** This tab's selected cell. */
  selected(id: string | null): void {
    if (id === this.cell) return;
    this.cell = id;
    this.awareness?.setLocalStateField("cell", id);
  }

  /** Redraw the chips (cells were added or re-created). */
  draw(): void {
    for (const chip of this.chips) chip.remove();
    this.chips.clear();
    const others = this.others();
    const mine = me();
    const avatars = [avatar(mine, "You", null, () => undefined)];
    for (const other of others) {
      avatars.push(avatar(other.person, other.person.name, other.cell, () => other.cell && this.host.goTo(other.cell)));
      const cell = other.cell ? this.host.cellElement(other.cell) : undefined;
      if (!cell) continue;
      const side = cell.querySelector(".cell-side") ?? cell;
      let holder = side.querySelector<HTMLElement>(".presence-chips");
      if (!holder) {
        holder = el("div", { class: "presence-chips" });
        side.append(holder);
      }
      const chip = el("span", { class: "presence-chip", testid: "presence-chip", title: `${other.person.name} is here` }, initials(other.person.name));
      paint(chip, other.person);
      holder.append(chip);
      this.chips.add(chip);
    }
    this.element.replaceChildren(...avatars);
    this.element.hidden = others.length === 0;
  }

  private others(): Other[] {
    const awareness = this.awareness;
    if (!awareness) return [];
    const others: Other[] = [];
    awareness.getStates().forEach((state, clientId) => {
      if (clientId === awareness.clientID || !state.user) return;
      others.push({ clientId, person: personOf(state), cell: typeof state.cell === "string" ? state.cell : null });
    });
    return others.sort((a, b) => a.clientId - b.clientId);
  }
}

function userField(person: Person): Record<string, string> {
  return { name: person.name, color: person.color, colorLight: person.light };
}

function initials(name: string): string {
  const words = name.replace(/^Anonymous\s+/, "").split(/\s+/).filter(Boolean);
  return (words.length > 1 ? words[0][0] + words[1][0] : (words[0] ?? "?").slice(0, 2)).toUpperCase();
}

function avatar(person: Person, label: string, cell: string | null, go: () => void): HTMLElement {
  const title = cell === null && label === "You" ? `You (${person.name})` : label;
  const item = el("button", { type: "button", class: "presence-avatar", testid: "presence-avatar", title, "aria-label": title },
    initials(person.name));
  paint(item, person);
  item.addEventListener("mousedown", (event) => event.preventDefault()); // the editor keeps the focus
  item.addEventListener("click", go);
  return item;
}
