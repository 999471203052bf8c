// What the edit UI says: its notices, and how a finished proposal is summed up.

import type { EditProposal } from "../protocol";

export const EMPTY_INSTRUCTION = "Type what to change first, for example “add axis labels and a title”.";
export const NOT_CONNECTED = "Not connected to the server: nothing was sent. Try again once it is back.";
export const CONNECTION_LOST = "The connection dropped while the proposal was being written: Retry, or Reject.";
export const INCOMPLETE = "The proposal stopped before its end: it cannot be accepted. Retry, or Reject.";
export const SUPERSEDED = "Stopped: an edit was started in another cell.";
export const NOT_DONE = "Still being written: Accept once it is complete, or Reject.";
export const FIX_INSTRUCTION = "fix this error";

/** The line under a finished proposal: where it came from and what it cost. */
export function proposalSummary(proposal: EditProposal, changedBlocks: number, streaming = !proposal.done): string {
  const blocks = changedBlocks === 0 ? "no change" : changedBlocks === 1 ? "1 changed block" : `${changedBlocks} changed blocks`;
  if (streaming) return `Writing… ${blocks} so far`;
  if (!proposal.done) return `Stopped: ${blocks} so far`;
  const parts = [blocks, proposal.source === "rules" ? "offline fix" : "edit model"];
  const stats = proposal.stats;
  if (stats) {
    // a server does its own decoding: its model calls are not known here (0)
    const calls = stats.calls > 0 ? ` in ${stats.calls} model call${stats.calls === 1 ? "" : "s"}` : "";
    parts.push(`${(stats.ms / 1000).toFixed(1)} s`, `${stats.tokens} tokens${calls}`);
  }
  return parts.join(" · ");
}

/** Where a request is about, for the prompt's hint. */
export function targetText(selection: [number, number] | null, lines: [number, number] | null): string {
  if (!selection || !lines) return "Rewrites the whole cell";
  return lines[0] === lines[1] ? `Rewrites line ${lines[0]}` : `Rewrites lines ${lines[0]}–${lines[1]}`;
}
