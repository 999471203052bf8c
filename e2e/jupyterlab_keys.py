"""The metadata keys JupyterLab itself writes, read from its source (not from Ghostbook's): the round-trip
test checks Ghostbook's saved files against these.

Source: github.com/jupyterlab/jupyterlab at 6ef5a17ad831be80c3e63911b77fa9f8acfcbf50,
`packages/cells/src/widget.ts`:
- line 156: `const MARKDOWN_HEADING_COLLAPSED = 'jp-MarkdownHeadingCollapsed';` (MarkdownCell.headingCollapsed)
- lines 1436-1450 (CodeCell.saveCollapseState): hidden outputs are `collapsed: true`, "the source of truth"
  (loadCollapseState, line 1466); `jupyter.outputs_hidden` is kept in step by @jupyter/ydoc's ycell.ts
- lines 1825-1874 (CodeCell.execute, recordTiming): `execution` holds `iopub.status.busy`,
  `iopub.execute_input`, `iopub.status.idle` (the iopub messages' header dates), `shell.execute_reply.started`
  (the reply's metadata.started) and `shell.execute_reply` (the reply's header date), ISO 8601 strings
- line 2569 (MarkdownCell._attachFile): an image becomes `attachments[name] = {mime: base64}` and the text
  `![<file name>](attachment:<name>)`
"""

HEADING_COLLAPSED = "jp-MarkdownHeadingCollapsed"
CLASSIC_HEADING_COLLAPSED = "heading_collapsed"  # the classic Notebook's collapsible_headings extension
OUTPUTS_COLLAPSED = "collapsed"
OUTPUTS_HIDDEN = ("jupyter", "outputs_hidden")
TIMING = "execution"
TIMING_KEYS = {"iopub.status.busy", "iopub.execute_input", "iopub.status.idle", "shell.execute_reply.started",
               "shell.execute_reply"}
ATTACHMENT_LINK = "attachment:"
