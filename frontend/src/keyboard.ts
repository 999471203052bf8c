// Jupyter-style command-mode keys, handled at the document level while no editor or input has focus.

export interface CommandActions {
  hasSelection(): boolean;
  edit(): void;
  selectRelative(delta: number): void;
  insert(where: "above" | "below"): void;
  deleteSelected(): void;
  restoreDeleted(): void;
  copySelected(cut: boolean): void;
  paste(where: "above" | "below"): void;
  setType(type: "code" | "markdown" | "raw"): void;
  moveSelected(delta: number): void;
  /** Shift+↑ / Shift+↓: extend the selection (selection/). */
  extendSelection(delta: number): void;
  selectAll(): void;
  /** Shift+M: merge the selected cells (or the cell with the one below). */
  merge(): void;
  run(how: "stay" | "advance" | "insert"): void;
  interrupt(): void;
  restart(): void;
  /** o: the selected cell's outputs; Shift+O: every cell's (runs/outputs-hidden.ts). */
  toggleOutputs(all: boolean): void;
  save(): void;
  toggleHelp(): void;
  closeOverlays(): boolean;
}

const CHORD_MS = 800;

export function isTextTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.closest(".cm-editor")) return true;
  return target.matches("input, textarea, select, [contenteditable=''], [contenteditable='true']");
}

/** The single keys (no Ctrl, Alt or Cmd) that are commands in command mode. Typed right after an Esc
 * that only closed a suggestion, they leave edit mode first (escape-command.ts). */
export const COMMAND_KEYS = new Set(["a", "b", "d", "z", "c", "x", "v", "V", "m", "M", "y", "r", "i", "0", "h", "?", "j", "k", "o", "O"]);

export function isCommandKey(event: KeyboardEvent): boolean {
  return !event.ctrlKey && !event.metaKey && !event.altKey && COMMAND_KEYS.has(event.key);
}

/** Listen for command-mode keys on the document; returns the handler, for keys routed from an editor
 * (`run(event)`: true when the key was a command), and a function that stops listening. */
export function installCommandKeys(actions: CommandActions): { run(event: KeyboardEvent): boolean; remove(): void } {
  let lastKey = "";
  let lastTime = 0;
  const chord = (key: string): boolean => {
    const now = Date.now();
    const hit = lastKey === key && now - lastTime < CHORD_MS;
    lastKey = hit ? "" : key;
    lastTime = now;
    return hit;
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const mod = event.ctrlKey || event.metaKey;
    if (mod && !event.altKey && event.key.toLowerCase() === "s" && !event.defaultPrevented) {
      event.preventDefault();
      actions.save();
      return;
    }
    if (event.defaultPrevented || isTextTarget(event.target)) return;
    if (event.key === "Escape") {
      if (actions.closeOverlays()) event.preventDefault();
      return;
    }
    if (run(event)) event.preventDefault();
  };

  /** Act on a command-mode key; false when it is none (or no cell is selected in command mode). */
  const run = (event: KeyboardEvent): boolean => {
    const mod = event.ctrlKey || event.metaKey;
    if (!actions.hasSelection()) return false;
    // Enter and Space on a focused button or link press it, as usual.
    if ((event.key === "Enter" || event.key === " ") && event.target instanceof HTMLElement &&
        event.target.closest("button, a") && !event.shiftKey && !mod && !event.altKey) return false;
    let handled = true;
    if (event.key === "Enter") {
      if (event.shiftKey) actions.run("advance");
      else if (mod) actions.run("stay");
      else if (event.altKey) actions.run("insert");
      else actions.edit();
    } else if (mod && event.key === "ArrowUp") actions.moveSelected(-1);
    else if (mod && event.key === "ArrowDown") actions.moveSelected(1);
    else if (mod && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "a") actions.selectAll();
    // Ctrl+Z in command mode: what `z` does (undo the last cell operation), as the hand expects
    else if (mod && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "z") actions.restoreDeleted();
    else if (mod || event.altKey) handled = false;
    else if (event.shiftKey && (event.key === "ArrowUp" || event.key === "K")) actions.extendSelection(-1);
    else if (event.shiftKey && (event.key === "ArrowDown" || event.key === "J")) actions.extendSelection(1);
    else if (event.shiftKey && event.key === "Home") actions.extendSelection(-Infinity);
    else if (event.shiftKey && event.key === "End") actions.extendSelection(Infinity);
    else {
      switch (event.key) {
        case "ArrowUp":
        case "k":
          actions.selectRelative(-1);
          break;
        case "ArrowDown":
        case "j":
          actions.selectRelative(1);
          break;
        case "a":
          actions.insert("above");
          break;
        case "b":
          actions.insert("below");
          break;
        case "d":
          if (chord("d")) actions.deleteSelected();
          break;
        case "z":
          actions.restoreDeleted();
          break;
        case "c":
          actions.copySelected(false);
          break;
        case "x":
          actions.copySelected(true);
          break;
        case "v":
          actions.paste("below");
          break;
        case "V":
          actions.paste("above");
          break;
        case "m":
          actions.setType("markdown");
          break;
        case "M":
          actions.merge();
          break;
        case "y":
          actions.setType("code");
          break;
        case "r":
          actions.setType("raw");
          break;
        case "i":
          if (chord("i")) actions.interrupt();
          break;
        case "0":
          if (chord("0")) actions.restart();
          break;
        case "o":
          actions.toggleOutputs(false);
          break;
        case "O":
          actions.toggleOutputs(true);
          break;
        case "h":
        case "?":
          actions.toggleHelp();
          break;
        default:
          handled = false;
      }
    }
    return handled;
  };
  document.addEventListener("keydown", onKeyDown);
  return { run, remove: () => document.removeEventListener("keydown", onKeyDown) };
}
