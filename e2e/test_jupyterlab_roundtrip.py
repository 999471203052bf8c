"""Round trip through JupyterLab's formats (issue 37, "Done"): a notebook edited in Ghostbook as a user
does (cells merged and moved, a heading collapsed, an output hidden, cells run, an image pasted) is a
valid nbformat 4 file whose metadata uses the keys JupyterLab's own source writes (`jupyterlab_keys`);
and a file written with those keys, as JupyterLab saves it, opens in Ghostbook as JupyterLab shows it."""

from __future__ import annotations

import base64
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import nbformat
from playwright.sync_api import Page, expect

from . import jupyterlab_keys as jl
from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, output, wait_idle, write_notebook
from .test_markdown_files import PASTE, PNG, saved_cells


def is_iso(value: Any) -> bool:
    return isinstance(value, str) and datetime.fromisoformat(value.replace("Z", "+00:00")).year >= 2020


def test_made_in_ghostbook_reads_as_jupyterlab_writes(server: Server, page: Page) -> None:
    path = server.root / "trip.ipynb"
    write_notebook(path, [("markdown", "# Part one"), ("code", "x = 1"), ("code", "print(x + 1)"),
                          ("markdown", "# Part two"), ("code", "y = 2")])
    open_notebook(page, server.url("/notebooks/trip.ipynb"))
    wait_idle(page)

    # many cells at once: select two code cells, merge them (Shift+M), move the result down (Ctrl+↓)
    cells(page).nth(1).get_by_test_id("cell-prompt").click()
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+M")
    expect(cells(page)).to_have_count(4)
    merged = cells(page).nth(1)
    expect(merged.locator(".cm-content")).to_contain_text("print(x + 1)")
    page.keyboard.press("Control+ArrowDown")
    expect(cells(page).nth(2).locator(".cm-content")).to_contain_text("print(x + 1)")
    merged = cells(page).nth(2)

    # run it (timing), then hide its output with `o`
    page.keyboard.press("Control+Enter")
    expect(output(merged)).to_have_text("2", timeout=KERNEL_TIMEOUT)
    expect(merged.get_by_test_id("cell-timing")).to_contain_text(", ")
    merged.get_by_test_id("cell-prompt").click()
    expect(merged).to_be_focused()
    page.keyboard.press("o")
    expect(merged).to_have_class(re.compile(r"\boutputs-hidden\b"))

    # collapse the second heading's section (the merged cell moved into it), paste an image into the first
    cells(page).nth(1).get_by_test_id("heading-toggle").click()
    expect(cells(page).nth(2)).to_be_hidden()
    cells(page).nth(0).get_by_test_id("markdown-rendered").dblclick()
    page.keyboard.press("Control+End")
    page.evaluate(PASTE, ["paste", base64.b64encode(PNG).decode()])
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")

    def complete(found: list[dict[str, Any]]) -> bool:
        return (len(found) == 4 and found[1]["metadata"].get(jl.HEADING_COLLAPSED) is True
                and found[0].get("attachments") and found[2]["metadata"].get(jl.OUTPUTS_COLLAPSED) is True)

    saved = saved_cells(path, complete)
    text = path.read_text()
    notebook = nbformat.reads(text, as_version=4)
    nbformat.validate(notebook)  # raises on anything nbformat 4 does not allow
    assert json.loads(text)["nbformat"] == 4

    assert [c["cell_type"] for c in saved] == ["markdown", "markdown", "code", "code"]
    assert "".join(saved[2]["source"]) == "x = 1\n\nprint(x + 1)"  # JupyterLab's merge joins with a blank line
    pasted, heading, code, _ = saved
    assert heading["metadata"] == {jl.HEADING_COLLAPSED: True}
    # hidden outputs: `collapsed` (JupyterLab's source of truth) and, in step, jupyter.outputs_hidden
    assert code["metadata"][jl.OUTPUTS_COLLAPSED] is True
    assert code["metadata"][jl.OUTPUTS_HIDDEN[0]] == {jl.OUTPUTS_HIDDEN[1]: True}
    assert code["outputs"] and code["execution_count"] is not None  # hidden, not cleared
    timing = code["metadata"][jl.TIMING]
    assert set(timing) == jl.TIMING_KEYS and all(is_iso(value) for value in timing.values())
    assert timing["iopub.status.busy"] <= timing["shell.execute_reply"]
    [(name, bundle)] = pasted["attachments"].items()
    assert bundle == {"image/png": base64.b64encode(PNG).decode()}
    assert f"({jl.ATTACHMENT_LINK}{name})" in "".join(pasted["source"])
    # no key of Ghostbook's own in any cell's metadata
    known = {jl.HEADING_COLLAPSED, jl.OUTPUTS_COLLAPSED, jl.OUTPUTS_HIDDEN[0], jl.TIMING}
    assert all(set(cell["metadata"]) <= known for cell in saved)


def jupyterlab_file(path: Path) -> None:
    """A notebook as JupyterLab saves one: a collapsed heading, a hidden output (only `collapsed`, as
    JupyterLab writes it), its timing and an attachment."""
    write_notebook(path, [("markdown", "# Folded"), ("code", "a = 1"), ("markdown", "# Open"),
                          ("code", "print('hi')"), ("markdown", "![image.png](attachment:pic.png)")])
    notebook = json.loads(path.read_text())
    notebook["cells"][0]["metadata"] = {jl.HEADING_COLLAPSED: True}
    code = notebook["cells"][3]
    code["metadata"] = {jl.OUTPUTS_COLLAPSED: True, jl.TIMING: {
        "iopub.status.busy": "2026-12-04T10:00:00.000000Z", "iopub.execute_input": "2026-12-04T10:00:00.010000Z",
        "shell.execute_reply.started": "2026-12-04T10:00:00.020000Z",
        "shell.execute_reply": "2026-12-04T10:00:01.520000Z", "iopub.status.idle": "2026-12-04T10:00:01.530000Z"}}
    code["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}]
    code["execution_count"] = 1
    notebook["cells"][4]["attachments"] = {"pic.png": {"image/png": base64.b64encode(PNG).decode()}}
    nbformat.validate(nbformat.from_dict(notebook))
    path.write_text(json.dumps(notebook))


def test_a_file_jupyterlab_saved_opens_as_jupyterlab_shows_it(server: Server, page: Page) -> None:
    jupyterlab_file(server.root / "lab.ipynb")
    open_notebook(page, server.url("/notebooks/lab.ipynb"))
    expect(cells(page).nth(1)).to_be_hidden()  # under the collapsed heading
    expect(cells(page).nth(0).get_by_test_id("hidden-cells-button")).to_be_visible()
    code = cells(page).nth(3)
    expect(code).to_have_class(re.compile(r"\boutputs-hidden\b"))
    # the reply started at 0.020 s and ended at 1.520 s
    expect(code.get_by_test_id("cell-timing")).to_contain_text("1.5 s")
    page.wait_for_function("() => document.querySelectorAll('.markdown-rendered img')[0]?.naturalWidth === 2")
    page.screenshot(path="/tmp/roundtrip-jupyterlab-file.png")
