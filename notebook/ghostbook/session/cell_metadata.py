"""JupyterLab's cell metadata for outputs and runs, as patches for `set_cell_metadata` (top-level keys;
None removes one).

- Hidden outputs: JupyterLab keeps `collapsed` (nbformat 4's key) and `jupyter.outputs_hidden` in step:
  setting `collapsed` sets `jupyter.outputs_hidden` too (keeping `jupyter`'s other keys, e.g.
  `source_hidden`), and removing it removes `outputs_hidden` (and `jupyter` once it is empty). See
  @jupyter/ydoc `javascript/src/ycell.ts` YBaseCell.setMetadata / deleteMetadata, and JupyterLab's
  `packages/cells/src/widget.ts` CodeCell.saveCollapseState.
- Running a cell or clearing its outputs shows its outputs again and drops its `execution` timing
  (`widget.ts` CodeCell.execute sets `outputHidden = false`; `model.ts` clearExecution deletes
  `execution`; `packages/notebook/src/actions.tsx` clearOutputs / clearAllOutputs).
- `execution`: the run's timestamps under JupyterLab's keys (`widget.ts` CodeCell.execute with
  `recordTiming`), made by the kernel adapter (kernel/runs.py).
"""

from __future__ import annotations

from typing import Any

TIMING_KEYS = ("iopub.status.busy", "iopub.execute_input", "shell.execute_reply.started", "shell.execute_reply",
               "iopub.status.idle", "execution_failed")


def outputs_hidden(metadata: dict[str, Any]) -> bool:
    jupyter = metadata.get("jupyter")
    return metadata.get("collapsed") is True or (isinstance(jupyter, dict) and jupyter.get("outputs_hidden") is True)


def hide_outputs_patch(metadata: dict[str, Any], hidden: bool) -> dict[str, Any]:
    """The patch that hides (or shows) a cell's outputs, JupyterLab's way."""
    jupyter = metadata.get("jupyter")
    others = {k: v for k, v in jupyter.items() if k != "outputs_hidden"} if isinstance(jupyter, dict) else {}
    if hidden:
        return {"collapsed": True, "jupyter": {**others, "outputs_hidden": True}}
    return {"collapsed": None, "jupyter": others or None}


def run_start_patch(metadata: dict[str, Any]) -> dict[str, Any]:
    """What a new run (or clearing the outputs) changes: outputs shown, the last run's timing gone."""
    patch: dict[str, Any] = {"execution": None}
    if outputs_hidden(metadata) or "collapsed" in metadata:
        patch.update(hide_outputs_patch(metadata, False))
    return patch
