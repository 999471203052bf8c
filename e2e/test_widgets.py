"""ipywidgets in the browser (issue 29.3), with the real ipywidgets in the kernel: interact re-runs its
function, a slider's value reaches the kernel, an Output widget captures prints, two tabs share one
widget state, restart and death leave widgets plainly disconnected, and the state saved in the notebook
shows again after the server restarts. A hostile notebook's widget state runs no script."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

from playwright.sync_api import BrowserContext, Locator, Page, WebSocket, expect

from .helpers import (
    KERNEL_TIMEOUT,
    Server,
    cells,
    launch_server,
    open_notebook,
    output,
    set_cell_source,
    stop_server,
    wait_idle,
    write_notebook,
)

SHOTS = Path("/tmp")


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"i29w_{name}.png"), full_page=True)


def run_cell(cell: Locator) -> None:
    cell.get_by_test_id("run-cell").click()


def widget(cell: Locator) -> Locator:
    return output(cell).get_by_test_id("widget-view")


def readout(cell: Locator) -> Locator:
    return widget(cell).locator(".widget-readout").first


def nudge(page: Page, cell: Locator, key: str, times: int = 1) -> None:
    """Press `key` on the cell's (first) slider handle, as a keyboard user moves a slider."""
    handle = widget(cell).locator(".noUi-handle").first
    handle.focus()
    for _ in range(times):
        page.keyboard.press(key)


class Frames:
    """The notebook socket's frames from the server, to wait until the kernel has echoed an update."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.received: list[dict[str, object]] = []
        page.on("websocket", self._watch)

    def _watch(self, ws: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            if isinstance(payload, str) and '"comm_' in payload:
                self.received.append(json.loads(payload))

        ws.on("framereceived", on_frame)

    def wait_echo(self, key: str, value: object, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.received:
                data = message.get("data")
                if (message.get("type") == "comm_msg" and isinstance(data, dict) and data.get("method") == "echo_update"
                        and data.get("state", {}).get(key) == value):
                    return
            self.page.wait_for_timeout(50)  # (Playwright delivers events while it waits)
        raise AssertionError(f"the kernel never echoed {key}={value!r}")


def test_interact_reruns_the_function_when_the_slider_moves(server: Server, page: Page) -> None:
    source = ("from ipywidgets import interact\n"
              "def f(x):\n"
              "    print(f'x squared is {x * x}')\n"
              "interact(f, x=(0, 10))")
    write_notebook(server.root / "interact.ipynb", [("code", source)])
    open_notebook(page, server.url("/notebooks/interact.ipynb"))
    wait_idle(page)
    cell = cells(page).nth(0)
    run_cell(cell)
    expect(widget(cell).locator(".widget-slider")).to_be_visible(timeout=KERNEL_TIMEOUT)
    captured = widget(cell).get_by_test_id("widget-output")
    expect(captured).to_have_text("x squared is 25")  # interact's first call, with the middle value
    expect(readout(cell)).to_have_text("5")

    nudge(page, cell, "ArrowRight")
    expect(readout(cell)).to_have_text("6")
    expect(captured).to_have_text("x squared is 36", timeout=KERNEL_TIMEOUT)
    # dragging the handle with the mouse re-runs it too
    handle = widget(cell).locator(".noUi-handle").first
    track = widget(cell).locator(".noUi-target").first
    box = track.bounding_box()
    assert box is not None
    handle.hover()
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.9 + 2, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()
    expect(readout(cell)).to_have_text("9")
    expect(captured).to_have_text("x squared is 81", timeout=KERNEL_TIMEOUT)
    # f's prints went into interact's Output widget, none into the cell's own outputs
    expect(output(cell).locator(".output-list > [data-stream]")).to_have_count(0)
    # keys typed on a widget are the widget's: "d d" on the slider deletes no cell
    nudge(page, cell, "d", 2)
    page.wait_for_timeout(300)
    expect(cells(page)).to_have_count(1)
    shot(page, "interact")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_slider_value_is_read_back_and_output_widget_captures(server: Server, page: Page) -> None:
    write_notebook(server.root / "slider.ipynb", [
        ("code", "import ipywidgets as w\nslider = w.IntSlider(value=3, max=10, description='n')\nslider"),
        ("code", "print('the kernel has', slider.value)"),
        ("code", "out = w.Output()\ndisplay(out)\nprint('outside')\nwith out:\n    print('captured hello')"),
        ("code", "with out:\n    print('captured later')"),
        ("code", "out.outputs[-1]['text']"),
    ])
    frames = Frames(page)
    open_notebook(page, server.url("/notebooks/slider.ipynb"))
    wait_idle(page)
    first, second, third, fourth, fifth = (cells(page).nth(i) for i in range(5))
    run_cell(first)
    expect(readout(first)).to_have_text("3", timeout=KERNEL_TIMEOUT)
    nudge(page, first, "ArrowRight", 4)
    expect(readout(first)).to_have_text("7")
    frames.wait_echo("value", 7)
    run_cell(second)
    expect(output(second)).to_have_text("the kernel has 7", timeout=KERNEL_TIMEOUT)

    run_cell(third)
    captured = widget(third).get_by_test_id("widget-output")
    expect(captured).to_have_text("captured hello", timeout=KERNEL_TIMEOUT)
    own = output(third).locator(".output-list > [data-stream=stdout]")
    expect(own).to_have_text("outside")  # the print outside `with`
    run_cell(fourth)  # another cell prints into the same widget
    expect(captured).to_have_text("captured hello\ncaptured later", timeout=KERNEL_TIMEOUT)
    expect(page.get_by_test_id("kernel-status")).to_have_text("idle")
    expect(output(fourth).locator(".output-list > *")).to_have_count(0)  # nothing in the fourth cell itself
    run_cell(fifth)  # and the kernel knows what the widget holds (out.outputs), as with JupyterLab
    expect(output(fifth)).to_have_text("'captured hello\\ncaptured later\\n'", timeout=KERNEL_TIMEOUT)
    shot(page, "slider_output")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_two_tabs_see_the_same_slider(server: Server, context: BrowserContext) -> None:
    write_notebook(server.root / "tabs.ipynb",
                   [("code", "import ipywidgets as w\ns = w.IntSlider(value=2, max=20)\ns")])
    url = server.url("/notebooks/tabs.ipynb")
    a, b = context.new_page(), context.new_page()
    open_notebook(a, url)
    wait_idle(a)
    run_cell(cells(a).nth(0))
    expect(readout(cells(a).nth(0))).to_have_text("2", timeout=KERNEL_TIMEOUT)
    open_notebook(b, url)  # B comes later: the widget comes in its snapshot
    expect(readout(cells(b).nth(0))).to_have_text("2")

    nudge(a, cells(a).nth(0), "ArrowRight", 3)
    expect(readout(cells(a).nth(0))).to_have_text("5")
    expect(readout(cells(b).nth(0))).to_have_text("5", timeout=KERNEL_TIMEOUT)
    nudge(b, cells(b).nth(0), "ArrowLeft", 4)
    expect(readout(cells(b).nth(0))).to_have_text("1")
    expect(readout(cells(a).nth(0))).to_have_text("1", timeout=KERNEL_TIMEOUT)
    # the kernel's own change reaches both
    cells(a).nth(0).get_by_test_id("add-cell-below").click()
    expect(cells(a)).to_have_count(2)
    set_cell_source(a, cells(a).nth(1), "s.value = 17")
    run_cell(cells(a).nth(1))
    expect(readout(cells(a).nth(0))).to_have_text("17", timeout=KERNEL_TIMEOUT)
    expect(readout(cells(b).nth(0))).to_have_text("17", timeout=KERNEL_TIMEOUT)
    shot(b, "two_tabs_b")


def test_restart_and_death_leave_widgets_disconnected(server: Server, page: Page) -> None:
    write_notebook(server.root / "restart.ipynb", [
        ("code", "import ipywidgets as w, os\ns = w.IntSlider(value=4, max=10)\ndisplay(s)\nos.getpid()"),
    ])
    open_notebook(page, server.url("/notebooks/restart.ipynb"))
    wait_idle(page)
    cell = cells(page).nth(0)
    run_cell(cell)
    expect(readout(cell)).to_have_text("4", timeout=KERNEL_TIMEOUT)
    badge = widget(cell).get_by_test_id("widget-disconnected")
    expect(badge).to_be_hidden()

    page.get_by_test_id("restart-kernel").click()
    page.get_by_test_id("confirm-restart").click()
    expect(badge).to_be_visible(timeout=KERNEL_TIMEOUT)
    expect(badge).to_contain_text("Disconnected")
    expect(widget(cell)).to_have_class(re.compile(r"\bwidget-disconnected\b"))
    wait_idle(page)
    nudge(page, cell, "ArrowRight", 2)  # inert: the keys do nothing
    expect(readout(cell)).to_have_text("4")
    shot(page, "restart_disconnected")

    run_cell(cell)  # a new widget, live again
    expect(badge).to_be_hidden(timeout=KERNEL_TIMEOUT)
    pid = int(output(cell).locator("[data-output-type=execute_result]").inner_text().strip())
    os.kill(pid, signal.SIGKILL)
    expect(page.get_by_test_id("kernel-status")).to_have_text(re.compile("dead"), timeout=KERNEL_TIMEOUT)
    expect(badge).to_be_visible()


def test_saved_widget_state_shows_after_reopening(server: Server, context: BrowserContext) -> None:
    source = "import ipywidgets as w\nw.VBox([w.IntSlider(value=3, max=10), w.Label('saved label')])"
    write_notebook(server.root / "saved.ipynb", [("code", source)])
    page = context.new_page()
    frames = Frames(page)
    open_notebook(page, server.url("/notebooks/saved.ipynb"))
    wait_idle(page)
    cell = cells(page).nth(0)
    run_cell(cell)
    expect(readout(cell)).to_have_text("3", timeout=KERNEL_TIMEOUT)
    nudge(page, cell, "ArrowRight", 5)
    expect(readout(cell)).to_have_text("8")
    frames.wait_echo("value", 8)
    page.get_by_test_id("save-notebook").click()
    expect(page.get_by_test_id("save-status")).to_have_text("saved")
    saved = json.loads((server.root / "saved.ipynb").read_text())
    state = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    values = [m["state"].get("value") for m in state.values() if m["model_name"] == "IntSliderModel"]
    assert values == [8]
    page.close()

    # a new server (no widgets in its kernel): the views render from the saved state, disconnected
    stop_server(server.process)
    log = server.root.parent / "server2.log"
    port = int(server.base_url.rsplit(":", 1)[1])
    server.process = launch_server(server.root, port, log)
    again = context.new_page()
    open_notebook(again, server.url("/notebooks/saved.ipynb"))
    cell = cells(again).nth(0)
    expect(readout(cell)).to_have_text("8", timeout=KERNEL_TIMEOUT)
    expect(widget(cell)).to_contain_text("saved label")
    expect(widget(cell).get_by_test_id("widget-disconnected")).to_be_visible()
    shot(again, "reopened")


def test_hostile_widget_state_runs_no_script(server: Server, page: Page) -> None:
    """A notebook's saved widget state is the notebook author's: HTML in it is sanitised, names of
    modules and classes are text, and a custom module is never loaded."""
    evil = "<img src=x onerror=\"window.__pwned = 1\"><b>bold stays</b>"
    state = {
        "h1": {"model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
               "state": {"_model_name": "HTMLModel", "_view_name": "HTMLView",
                         "_model_module": "@jupyter-widgets/controls",
                         "_view_module": "@jupyter-widgets/controls", "_model_module_version": "2.0.0",
                         "_view_module_version": "2.0.0", "value": evil, "description": evil,
                         "description_allow_html": True}},
        "c1": {"model_name": "EvilModel", "model_module": "https://evil.example/evil.js",
               "model_module_version": "1.0.0",
               "state": {"_model_name": "EvilModel", "_view_name": "<img src=x onerror=\"window.__pwned = 2\">",
                         "_model_module": "https://evil.example/evil.js", "_view_module": "https://evil.example/evil.js",
                         "_model_module_version": "1.0.0", "_view_module_version": "1.0.0"}},
    }
    bundle = lambda mid: {"output_type": "display_data", "metadata": {}, "data": {  # noqa: E731
        "text/plain": f"widget {mid}", "application/vnd.jupyter.widget-view+json":
        {"version_major": 2, "version_minor": 0, "model_id": mid}}}
    notebook = {
        "cells": [{"cell_type": "code", "id": "c0", "metadata": {}, "source": "", "execution_count": 1,
                   "outputs": [bundle("h1"), bundle("c1"), bundle("unknown")]}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                     "widgets": {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0,
                                                                               "state": state}}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    (server.root / "hostile.ipynb").write_text(json.dumps(notebook))
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    open_notebook(page, server.url("/notebooks/hostile.ipynb"))
    cell = cells(page).nth(0)
    views = widget(cell)
    expect(views.nth(0)).to_contain_text("bold stays")
    expect(views.nth(1).get_by_test_id("widget-unsupported")).to_contain_text("https://evil.example/evil.js")
    expect(views.nth(2).get_by_test_id("widget-missing")).to_contain_text("widget unknown")
    views.nth(1).click()
    page.wait_for_timeout(500)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[onerror]").count() == 0
    assert not [url for url in requested if "evil" in url]  # the custom module was never fetched
    shot(page, "hostile")


def test_widgets_stay_live_through_a_reconnect(server: Server, page: Page) -> None:
    """A dropped socket brings a new snapshot: the widgets are made again from it, still live."""
    page.add_init_script("""(() => {
      const Native = window.WebSocket;
      window.__sockets = [];
      window.WebSocket = class extends Native {
        constructor(url, protocols) { super(url, protocols); window.__sockets.push(this); }
      };
    })();""")
    write_notebook(server.root / "reconnect.ipynb", [("code", "import ipywidgets as w\ns = w.IntSlider(value=1)\ns"),
                                                      ("code", "s.value")])
    frames = Frames(page)
    open_notebook(page, server.url("/notebooks/reconnect.ipynb"))
    wait_idle(page)
    cell = cells(page).nth(0)
    run_cell(cell)
    expect(readout(cell)).to_have_text("1", timeout=KERNEL_TIMEOUT)
    page.evaluate("window.__sockets.at(-1).close()")
    page.wait_for_function("window.__sockets.length > 1 && window.__sockets.at(-1).readyState === 1")
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    expect(readout(cell)).to_have_text("1")
    expect(widget(cell).get_by_test_id("widget-disconnected")).to_be_hidden()
    nudge(page, cell, "ArrowRight", 2)
    expect(readout(cell)).to_have_text("3")
    frames.wait_echo("value", 3)
    run_cell(cells(page).nth(1))
    expect(output(cells(page).nth(1))).to_have_text("3", timeout=KERNEL_TIMEOUT)
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_common_controls_render_and_talk_to_the_kernel(server: Server, page: Page) -> None:
    source = """import ipywidgets as w
label = w.Label('not clicked')
button = w.Button(description='Click me')
def clicked(_):
    label.value = 'clicked!'
button.on_click(clicked)
drop = w.Dropdown(options=['apple', 'pear'], value='apple', description='Fruit')
w.VBox([
    w.HBox([button, label]),
    drop,
    w.Text(value='typed', description='Text'),
    w.Checkbox(value=True, description='Check'),
    w.FloatSlider(value=0.5, min=0, max=1, description='Float'),
    w.IntProgress(value=7, max=10, description='Progress'),
    w.ToggleButtons(options=['one', 'two']),
    w.HTML('<b>bold</b> html'),
    w.Tab(children=[w.Label('first tab'), w.Label('second tab')], titles=['A', 'B']),
])"""
    write_notebook(server.root / "controls.ipynb", [("code", source), ("code", "drop.value")])
    open_notebook(page, server.url("/notebooks/controls.ipynb"))
    wait_idle(page)
    cell = cells(page).nth(0)
    run_cell(cell)
    view = widget(cell)
    expect(view.get_by_role("button", name="Click me")).to_be_visible(timeout=KERNEL_TIMEOUT)
    view.get_by_role("button", name="Click me").click()  # a custom message: the kernel's on_click runs
    expect(view).to_contain_text("clicked!", timeout=KERNEL_TIMEOUT)
    view.locator("select").select_option("pear")
    expect(view.locator("b")).to_have_text("bold")
    view.get_by_role("tab", name="B").click()
    expect(view).to_contain_text("second tab")
    run_cell(cells(page).nth(1))
    expect(output(cells(page).nth(1))).to_have_text("'pear'", timeout=KERNEL_TIMEOUT)
    shot(page, "controls")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_a_second_tab_draws_a_live_interact_without_console_errors(server: Server, context: BrowserContext) -> None:
    """Issue 37.9: a tab that opens a notebook with a live interact (a VBox of a slider and an Output) drew
    it, but logged "Could not add child view to box" and "Cannot read properties of null (reading
    'widgets')": the box's first view, drawn before the snapshot, was removed while its children were
    still being made."""
    source = ("from ipywidgets import interact\n"
              "@interact(k=(1, 25))\n"
              "def neighbours(k=5):\n"
              "    print(f'{k} neighbours')")
    write_notebook(server.root / "tour.ipynb", [("code", source)])
    url = server.url("/notebooks/tour.ipynb")
    a, b = context.new_page(), context.new_page()
    logged: dict[str, list[str]] = {"a": [], "b": []}
    for name, tab in (("a", a), ("b", b)):
        tab.on("console", lambda msg, name=name: logged[name].append(msg.text) if msg.type == "error" else None)
        tab.on("pageerror", lambda exc, name=name: logged[name].append(str(exc)))
    open_notebook(a, url)
    wait_idle(a)
    run_cell(cells(a).nth(0))
    expect(widget(cells(a).nth(0)).get_by_test_id("widget-output")).to_have_text("5 neighbours", timeout=KERNEL_TIMEOUT)
    for _ in range(3):  # the second tab, opened (and reopened) while the slider lives
        open_notebook(b, url)
        expect(readout(cells(b).nth(0))).to_have_text("5")
        expect(widget(cells(b).nth(0)).get_by_test_id("widget-output")).to_have_text("5 neighbours")
        b.wait_for_timeout(500)  # a late child view would log now
    nudge(b, cells(b).nth(0), "ArrowRight")
    expect(widget(cells(a).nth(0)).get_by_test_id("widget-output")).to_have_text("6 neighbours", timeout=KERNEL_TIMEOUT)
    assert logged == {"a": [], "b": []}
