// The notebook's conversation as this tab knows it: the server's turns (ask_turn, ask_conversation),
// in the order they were asked. Pure: the panel draws from it.

import type { AskTurn, ServerMessage } from "../protocol";

export class Conversation {
  private turns: AskTurn[] = [];

  get all(): readonly AskTurn[] {
    return this.turns;
  }

  /** The turn being answered, if any (its Stop button). */
  get answering(): AskTurn | null {
    return this.turns.find((turn) => turn.state === "answering") ?? null;
  }

  /** Apply a server message; the turns that changed (all of them: null), or [] when it was not one of ours. */
  apply(message: ServerMessage): AskTurn[] | null {
    if (message.type === "ask_conversation") {
      this.turns = [...message.turns];
      return null;
    }
    if (message.type !== "ask_turn") return [];
    const at = this.turns.findIndex((turn) => turn.id === message.turn.id);
    if (at === -1) this.turns.push(message.turn);
    else this.turns[at] = message.turn;
    return [message.turn];
  }
}

/** The code of a rendered code block, as a new cell gets it (without the fence's final newline). */
export function blockCode(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** What a turn says about the cells it was asked about ("cell 3", "cells 2–4"); "" for none. */
export function cellsLabel(numbers: number[]): string {
  const known = numbers.filter((n) => n > 0).sort((a, b) => a - b);
  if (known.length === 0) return "";
  if (known.length === 1) return `cell ${known[0]}`;
  const first = known[0];
  const last = known[known.length - 1];
  return last - first === known.length - 1 ? `cells ${first}–${last}` : `cells ${known.join(", ")}`;
}
