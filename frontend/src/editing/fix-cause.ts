// The change that made a cell what it is, for its Fix: Ask's accepted changes note here each cell's text
// before the change and the question that asked for it (ask/plan-review.ts); the Fix button's request
// carries it as `cause` (editing/prompt.py tells the model). A cell whose text is back to what it was
// before (the change undone) has no cause.

import type { AcceptedChange } from "../protocol";

const causes = new Map<string, AcceptedChange>();

/** Note the change the user accepted into cell `cellId` (a later one replaces it). */
export function noteAcceptedChange(cellId: string, change: AcceptedChange): void {
  causes.set(cellId, change);
}

/** The accepted change that made cell `cellId` its `source`; null when none did (or it was undone). */
export function acceptedChange(cellId: string, source: string): AcceptedChange | null {
  const change = causes.get(cellId);
  return change && change.before !== source ? change : null;
}
