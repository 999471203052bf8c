// Hidden outputs, saved as JupyterLab saves them: `collapsed` (nbformat 4's key) and
// `jupyter.outputs_hidden` together, the other `jupyter` keys (e.g. source_hidden) kept. See
// @jupyter/ydoc's ycell.ts setMetadata/deleteMetadata and JupyterLab's packages/cells/src/widget.ts
// CodeCell.saveCollapseState; the server's twin is session/cell_metadata.py.

export function outputsHidden(metadata: Record<string, unknown> | undefined): boolean {
  const jupyter = metadata?.jupyter as Record<string, unknown> | undefined;
  return metadata?.collapsed === true || (typeof jupyter === "object" && jupyter !== null && jupyter.outputs_hidden === true);
}

/** The set_cell_metadata patch that hides (or shows) a cell's outputs. */
export function hideOutputsPatch(metadata: Record<string, unknown> | undefined, hidden: boolean): Record<string, unknown> {
  const jupyter = metadata?.jupyter;
  const others: Record<string, unknown> = {};
  if (jupyter && typeof jupyter === "object") {
    for (const [key, value] of Object.entries(jupyter)) if (key !== "outputs_hidden") others[key] = value;
  }
  if (hidden) return { collapsed: true, jupyter: { ...others, outputs_hidden: true } };
  return { collapsed: null, jupyter: Object.keys(others).length ? others : null };
}
