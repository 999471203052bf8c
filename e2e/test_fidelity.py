"""What a Jupyter user notices (issue 14, items 13-15): progress bars, the restart confirmation,
markdown attachments, collapsed cells, JSON outputs and the intellisense popup's type labels."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from .ghost_helpers import open_settings
from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, output, type_in_cell, wait_idle, write_notebook

# A 1x1 red PNG.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
TQDM = """from tqdm import tqdm
import time
for i in tqdm(range(60), ncols=70, mininterval=0, miniters=1):
    time.sleep(0.01)"""


def run(page: Page, index: int, count: int) -> None:
    cell = cells(page).nth(index)
    cell.get_by_test_id("run-cell").click()
    expect(cell.get_by_test_id("cell-prompt")).to_have_text(f"[{count}]", timeout=KERNEL_TIMEOUT)


def save_and_read(server: Server, page: Page, name: str) -> dict[str, object]:
    page.get_by_test_id("save-notebook").click()
    expect(page.get_by_test_id("save-status")).to_have_text("saved")
    return json.loads((server.root / name).read_text())


def test_a_tqdm_bar_stays_one_line_in_the_page_and_the_file(server: Server, page: Page) -> None:
    write_notebook(server.root / "bar.ipynb", [("code", TQDM)])
    open_notebook(page, server.url("/notebooks/bar.ipynb"))
    wait_idle(page)
    run(page, 0, 1)
    stderr = output(cells(page).nth(0)).locator("[data-stream=stderr]")
    expect(stderr.first).to_contain_text("60/60")
    shown = "".join(stderr.all_text_contents())
    assert "\r" not in shown and "\x1b" not in shown
    assert shown.count("60/60") == 1 and shown.count("%|") == 1, shown  # one bar, redrawn in place
    assert shown.strip().startswith("100%"), shown
    saved = save_and_read(server, page, "bar.ipynb")
    outputs = saved["cells"][0]["outputs"]  # type: ignore[index]
    text = "".join("".join(o["text"]) for o in outputs if o.get("name") == "stderr")
    assert "\r" not in text and text.count("\n") == 1 and "60/60" in text, repr(text)


def restart_button(page: Page, clear: bool = False) -> None:
    page.get_by_test_id("restart-clear-kernel" if clear else "restart-kernel").click()


def test_restart_asks_first_and_remembers_dont_ask_again(server: Server, page: Page) -> None:
    write_notebook(server.root / "r.ipynb", [("code", "x = 41"), ("code", "x + 1")])
    open_notebook(page, server.url("/notebooks/r.ipynb"))
    wait_idle(page)
    run(page, 0, 1)
    dialog = page.get_by_test_id("restart-dialog")

    restart_button(page)  # Cancel: nothing happens
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Restart kernel?")
    dialog.get_by_test_id("confirm-cancel").click()
    expect(dialog).to_have_count(0)
    run(page, 1, 2)
    expect(output(cells(page).nth(1))).to_have_text("42")

    restart_button(page)  # Escape cancels too, and the notebook's keys stay out of the dialog
    expect(dialog).to_be_visible()
    page.keyboard.press("0")
    page.keyboard.press("0")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(page.get_by_test_id("kernel-status")).to_have_text("idle")

    restart_button(page, clear=True)  # Restart & clear, with "don't ask again"
    expect(dialog).to_contain_text("clear all outputs")
    dialog.get_by_test_id("dont-ask-again").check()
    dialog.get_by_test_id("confirm-restart").click()
    expect(dialog).to_have_count(0)
    expect(output(cells(page).nth(1))).to_have_class(re.compile(r"\bempty\b"))
    wait_idle(page)
    run(page, 1, 1)
    expect(output(cells(page).nth(1))).to_contain_text("NameError")

    page.reload()  # remembered: Restart goes ahead at once, also after a reload
    open_notebook(page, server.url("/notebooks/r.ipynb"))
    wait_idle(page)
    run(page, 0, 2)
    restart_button(page)
    expect(page.get_by_test_id("kernel-status")).not_to_have_text("idle", timeout=KERNEL_TIMEOUT)
    expect(dialog).to_have_count(0)
    wait_idle(page)
    run(page, 1, 1)
    expect(output(cells(page).nth(1))).to_contain_text("NameError")

    panel = open_settings(page)  # the settings panel turns the question back on
    ask = panel.get_by_test_id("setting-ask-restart")
    expect(ask).not_to_be_checked()
    ask.check()
    panel.get_by_test_id("close-settings").click()
    restart_button(page)
    expect(dialog).to_be_visible()
    dialog.get_by_test_id("confirm-cancel").click()
    expect(dialog).to_have_count(0)


def test_command_mode_restart_keys_ask_too(server: Server, page: Page) -> None:
    write_notebook(server.root / "k.ipynb", [("code", "1")])
    open_notebook(page, server.url("/notebooks/k.ipynb"))
    wait_idle(page)
    cells(page).nth(0).get_by_test_id("cell-prompt").click()
    page.keyboard.press("0")
    page.keyboard.press("0")
    dialog = page.get_by_test_id("restart-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_test_id("confirm-restart").click()
    expect(dialog).to_have_count(0)
    wait_idle(page)


def test_attachments_collapsed_cells_and_json_outputs(server: Server, page: Page) -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "id": "md", "metadata": {}, "source": "A picture: ![red](attachment:red.png)",
             "attachments": {"red.png": {"image/png": PIXEL}}},
            {"cell_type": "code", "id": "src", "metadata": {"jupyter": {"source_hidden": True}},
             "source": "secret = 1", "outputs": [], "execution_count": None},
            {"cell_type": "code", "id": "out", "metadata": {"jupyter": {"outputs_hidden": True}},
             "source": "print('long')", "execution_count": 1,
             "outputs": [{"output_type": "stream", "name": "stdout", "text": "long output\n"}]},
            {"cell_type": "code", "id": "json", "metadata": {}, "source": "display(...)", "execution_count": 2,
             "outputs": [{"output_type": "display_data", "metadata": {},
                          "data": {"application/json": {"name": "ghost", "sizes": [1, 2, 3],
                                                        "nested": {"deep": {"value": True}}},
                                   "text/plain": "<IPython.core.display.JSON object>"}}]},
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (server.root / "f.ipynb").write_text(json.dumps(notebook))
    open_notebook(page, server.url("/notebooks/f.ipynb"))

    image = cells(page).nth(0).get_by_test_id("markdown-rendered").locator("img")
    expect(image).to_have_attribute("src", re.compile(r"^data:image/png;base64,"))
    image.evaluate("(img) => img.decode()")  # a real picture: it decodes
    assert image.evaluate("(img) => img.naturalWidth") == 1

    hidden_source = cells(page).nth(1)
    expect(hidden_source.get_by_test_id("cell-editor")).to_be_hidden()
    hidden_source.get_by_test_id("source-hidden").click()
    expect(hidden_source.get_by_test_id("cell-editor")).to_be_visible()
    expect(hidden_source.get_by_test_id("source-hidden")).to_be_hidden()

    hidden_outputs = cells(page).nth(2)
    expect(hidden_outputs.get_by_text("long output")).to_be_hidden()
    hidden_outputs.get_by_test_id("outputs-hidden").click()
    expect(hidden_outputs.get_by_text("long output")).to_be_visible()

    tree = cells(page).nth(3).get_by_test_id("json-tree")
    expect(tree).to_contain_text("name: \"ghost\"")
    expect(tree).to_contain_text("sizes: [ 3 items ]")
    deep = tree.get_by_text("deep: { 1 key }")
    expect(deep).to_be_hidden()  # a closed level: not built until opened
    tree.get_by_text("nested: { 1 key }").click()
    deep.click()
    expect(tree.get_by_text("value: true")).to_be_visible()
    assert not page.js_errors  # type: ignore[attr-defined]


def test_popup_labels_are_the_kernels_types(server: Server, page: Page) -> None:
    write_notebook(server.root / "t.ipynb", [("code", "import os\nmy_number = 1\ndef my_function(): pass"),
                                             ("code", ""),
                                             ("code", "get_ipython().Completer.jedi_compute_type_timeout = 0")])
    open_notebook(page, server.url("/notebooks/t.ipynb"))
    wait_idle(page)
    run(page, 0, 1)
    type_in_cell(page, cells(page).nth(1), "my_")
    popup = page.get_by_test_id("completion-popup")
    expect(popup).to_be_visible()
    expect(popup.locator("li", has_text="my_function")).to_contain_text("function")
    # IPython types what jedi types within its time limit and says "<unknown>" for the rest: no label then
    expect(popup.locator("li", has_text="my_number")).to_have_text(re.compile(r"^my_number(instance)?$"))
    page.keyboard.press("Escape")
    type_in_cell(page, cells(page).nth(1), "\nos.pa")
    expect(popup).to_be_visible()
    expect(popup.get_by_role("option", name="pathconffunction")).to_be_visible()
    expect(popup.locator("li", has_text="pardir")).to_contain_text("instance")
    expect(popup.locator("li", has_text="pathsep")).to_contain_text("instance")
    page.keyboard.press("Escape")

    run(page, 2, 2)  # now IPython gives up typing at once: every type is "<unknown>"
    cell = cells(page).nth(1)
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.type("my_")
    expect(popup).to_be_visible()
    expect(popup.locator("li")).to_have_text(["my_function", "my_number"])
