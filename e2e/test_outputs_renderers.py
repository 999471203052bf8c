"""Issue 29, item 2: plotly, vega-lite (altair, both its HTML and its mimetype renderer) and bokeh, made
by the real Python packages in the kernel, render from bundled scripts (no CDN, no network) in sandboxed
frames; a plotly hover works; the saved notebook reopens and renders them with no kernel running."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Frame, Locator, Page, expect

from .helpers import (
    KERNEL_TIMEOUT,
    Server,
    cells,
    launch_server,
    open_notebook,
    output,
    stop_server,
    wait_idle,
    write_notebook,
)

PLOTLY = """import plotly.express as px
df = px.data.iris()
px.scatter(df, x="sepal_width", y="sepal_length", color="species", title="plotly iris")"""
ALTAIR = """import altair as alt
alt.Chart(df).mark_point().encode(x="sepal_width", y="sepal_length", color="species").properties(
    title="altair iris", width=360, height=240)"""
BOKEH = """from bokeh.io import output_notebook
from bokeh.plotting import figure, show
output_notebook()
p = figure(width=420, height=280, title="bokeh iris")
p.scatter(df.sepal_width, df.sepal_length, size=6, color="navy", alpha=0.6)
show(p)"""
ALTAIR_MIMETYPE = """alt.renderers.enable("mimetype")
alt.Chart(df).mark_bar().encode(x="species", y="mean(petal_length)").properties(title="altair bars", width=300)"""
SOURCES = [PLOTLY, ALTAIR, BOKEH, ALTAIR_MIMETYPE]

# The most painted pixels on one canvas under `root`, shadow roots included (vega's and bokeh's canvases).
PAINTED = """root => {
  const canvases = [], walk = node => node.querySelectorAll('*').forEach(e => {
    if (e.tagName === 'CANVAS') canvases.push(e);
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(root);
  return canvases.map(c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                             let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n; })
    .reduce((a, b) => Math.max(a, b), 0);
}"""


def frame_in(cell: Locator) -> Frame:
    frame = output(cell).locator("iframe.output-frame").first
    expect(frame).to_be_visible(timeout=KERNEL_TIMEOUT)
    handle = frame.element_handle()
    assert handle is not None and handle.get_attribute("sandbox") == "allow-scripts"
    content = handle.content_frame()
    assert content is not None
    return content


def check_plotly(page: Page, cell: Locator, hover: bool) -> None:
    frame = frame_in(cell)
    points = frame.locator(".scatterlayer .point")
    expect(points).to_have_count(150, timeout=20_000)  # the iris data set, all drawn
    expect(frame.locator(".gtitle")).to_have_text("plotly iris")
    loaded = frame.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")
    assert [url.rsplit("/", 1)[-1] for url in loaded] == ["runtime.js", "plotly-cartesian.js"], loaded
    if hover:
        box = points.nth(10).bounding_box()  # page coordinates, through the iframe
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        label = frame.locator(".hoverlayer .hovertext")
        expect(label).to_be_visible()
        expect(label).to_contain_text("sepal_width=")


def check_altair_html(cell: Locator) -> None:
    frame = frame_in(cell)
    expect(frame.locator(".vega-embed")).to_be_visible(timeout=20_000)
    # drawn by vega-embed's default renderer: all 150 points as SVG marks, or a painted canvas
    frame.wait_for_function(f"""() => document.querySelectorAll('.mark-symbol.role-mark path').length === 150
                                      || ({PAINTED})(document.body) > 1000""")
    expect(frame.locator(".error")).to_have_count(0)  # the template found vega without its CDN
    expect(frame.locator(".vega-actions")).to_have_count(0)  # no menu of links that cannot work here


def check_bokeh(cell: Locator) -> None:
    frame = frame_in(cell)
    expect(frame.locator("canvas").first).to_be_attached(timeout=20_000)
    expect(frame.locator(".ghostbook-error")).to_have_count(0)
    frame.wait_for_function(f"() => ({PAINTED})(document.body) > 1000")  # bokeh painted its canvas
    assert frame.evaluate("() => window.Bokeh.version")  # BokehJS came from the server


def check_altair_mimetype(cell: Locator) -> None:
    frame = frame_in(cell)
    expect(frame.locator(".mark-rect path")).to_have_count(3, timeout=20_000)  # one bar per species


def check_all(page: Page, hover: bool) -> None:
    check_plotly(page, cells(page).nth(0), hover)
    check_altair_html(cells(page).nth(1))
    check_bokeh(cells(page).nth(2))
    check_altair_mimetype(cells(page).nth(3))
    for index in range(4):  # each frame sized itself to its chart
        height = output(cells(page).nth(index)).locator("iframe").first.evaluate(
            "f => f.getBoundingClientRect().height")
        assert 200 < height < 800, (index, height)


def screenshots(page: Page, name: str) -> None:
    """One per cell, scrolled into view (a full-page shot can miss frames painted only when on screen)."""
    page.screenshot(path=f"/tmp/i29_{name}.png")
    for index in range(4):
        cells(page).nth(index).screenshot(path=f"/tmp/i29_{name}_{index}.png")


@pytest.fixture
def no_kernel(tmp_path: Path) -> Path:
    """A JUPYTER_PATH whose python3 kernel cannot start (its command is /bin/false)."""
    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps(
        {"argv": ["/bin/false", "{connection_file}"], "display_name": "no kernel", "language": "python"}))
    return tmp_path


@pytest.fixture
def offline(page: Page, server: Server) -> Iterator[list[str]]:
    """Every request the page (frames included) makes to anywhere but the server: there must be none."""
    outside: list[str] = []

    def check(request: object) -> None:
        url = getattr(request, "url", "")
        if not url.startswith((server.base_url, "data:", "blob:", "about:")):
            outside.append(url)

    page.on("request", check)
    yield outside


def test_plotly_altair_and_bokeh_render_and_reopen_without_a_kernel(
        server: Server, page: Page, no_kernel: Path, offline: list[str]) -> None:
    write_notebook(server.root / "charts.ipynb", [("code", source) for source in SOURCES])
    open_notebook(page, server.url("/notebooks/charts.ipynb"))
    wait_idle(page)
    page.get_by_test_id("run-all").click()
    expect(cells(page).nth(3).get_by_test_id("cell-prompt")).to_have_text("[4]", timeout=120_000)
    for index in range(4):
        expect(output(cells(page).nth(index)).locator(".output-error")).to_have_count(0)
    check_all(page, hover=True)
    screenshots(page, "charts")
    assert not offline, offline  # nothing from a CDN

    page.get_by_test_id("save-notebook").click()
    expect(page.get_by_test_id("save-status")).to_have_text("saved")
    saved = json.loads((server.root / "charts.ipynb").read_text())
    mimes = [[m for o in c["outputs"] for m in o.get("data", {})] for c in saved["cells"]]
    assert "application/vnd.plotly.v1+json" in mimes[0]
    assert "text/html" in mimes[1]
    assert "application/vnd.bokehjs_exec.v0+json" in mimes[2]
    assert any(m.startswith("application/vnd.vegalite.v") for m in mimes[3]), mimes[3]

    # A new server on the same folder, whose kernel cannot start: the outputs alone must render.
    stop_server(server.process)
    port = int(server.base_url.rsplit(":", 1)[1])
    env = {"JUPYTER_PATH": str(no_kernel), "XDG_CONFIG_HOME": str(server.root.parent / "config")}
    server.process = launch_server(server.root, port, server.root.parent / "server2.log", env)
    open_notebook(page, server.url("/notebooks/charts.ipynb"))
    expect(page.get_by_test_id("kernel-status")).not_to_have_text("idle", timeout=5_000)
    check_all(page, hover=True)
    status = page.get_by_test_id("kernel-status").inner_text()
    assert status != "idle" and status != "busy", status  # no kernel ran while they rendered
    screenshots(page, "reopened")
    assert not offline, offline
    assert not page.js_errors  # type: ignore[attr-defined]


def test_a_vega_lite_output_loads_only_the_vega_bundle(server: Server, page: Page) -> None:
    """A saved vega-lite output renders without a kernel, and its frame loads the runtime and the vega
    bundle only (no plotly, no BokehJS); the page itself loads none of them."""
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": "bar",
            "data": {"values": [{"a": "x", "b": 3}, {"a": "y", "b": 5}]},
            "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}}}
    notebook = {
        "cells": [{"cell_type": "code", "id": "c0", "metadata": {}, "source": "chart", "execution_count": 1,
                   "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                                "data": {"application/vnd.vegalite.v5+json": spec, "text/plain": "chart"}}]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    (server.root / "vega.ipynb").write_text(json.dumps(notebook))
    open_notebook(page, server.url("/notebooks/vega.ipynb"))
    frame = frame_in(cells(page).nth(0))
    expect(frame.locator(".mark-rect path")).to_have_count(2)
    loaded = frame.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")
    assert loaded == [f"{server.base_url}/static/build/frames/runtime.js",
                      f"{server.base_url}/static/build/frames/vega.js"], loaded
    assert not page.evaluate("() => performance.getEntriesByType('resource').some(e => /frames|bokeh/.test(e.name))")


def test_a_chart_is_not_reloaded_while_its_cell_keeps_printing(server: Server, page: Page) -> None:
    """The server resends a cell's whole output list on every update; unchanged frames stay put."""
    spec = {"mark": "bar", "data": {"values": [{"a": "x", "b": 3}, {"a": "y", "b": 5}]},
            "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}}}
    source = (f"from IPython.display import display\nimport time\n"
              f"display({{'application/vnd.vegalite.v5+json': {spec!r}, 'text/plain': 'chart'}}, raw=True)\n"
              f"time.sleep(3)\n"
              f"for i in range(12):\n    print('line', i, flush=True)\n    time.sleep(0.2)")
    write_notebook(server.root / "stream.ipynb", [("code", source)])
    open_notebook(page, server.url("/notebooks/stream.ipynb"))
    wait_idle(page)
    cell = cells(page).nth(0)
    cell.get_by_test_id("run-cell").click()
    frame = frame_in(cell)
    expect(frame.locator(".mark-rect path")).to_have_count(2)
    iframe = output(cell).locator("iframe")
    iframe.evaluate("f => { f.dataset.mark = 'first' }")
    started = frame.evaluate("() => performance.timeOrigin")
    expect(output(cell)).to_contain_text("line 11", timeout=KERNEL_TIMEOUT)
    expect(cell).to_have_attribute("data-state", "idle")
    expect(iframe).to_have_attribute("data-mark", "first")  # the same element...
    assert frame_in(cell).evaluate("() => performance.timeOrigin") == started  # ...never reloaded
    expect(frame_in(cell).locator(".mark-rect path")).to_have_count(2)
