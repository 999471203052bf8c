"""The exporters on real notebooks: nbconvert's own output, read back by Jupytext, opened by Chromium."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import jupytext
import nbformat
import pytest
from ghostbook.export import ExportError, export_notebook
from ghostbook.export.cli import main as export_cli
from ghostbook.export.offline import FRAMES

# A 1x1 red PNG.
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8cfc000"
    "00030101001800dd8db00000000049454e44ae426082")).decode()


def notebook() -> dict:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title\n\nSome *prose*.\n\n![dot](attachment:dot.png)",
                                      attachments={"dot.png": {"image/png": PNG}}),
        nbformat.v4.new_code_cell("%matplotlib inline\nx = 1\n\nprint(x)", outputs=[
            nbformat.v4.new_output("display_data", {"image/png": PNG, "text/plain": "<Figure>"})]),
        nbformat.v4.new_raw_cell("raw text"),
        nbformat.v4.new_code_cell("!echo hi\ndef f():\n    return 2"),
        nbformat.v4.new_code_cell("fig", outputs=[nbformat.v4.new_output(
            "display_data", {"application/vnd.plotly.v1+json": {"data": [{"type": "bar", "y": [1, 2]}],
                                                                 "layout": {"title": {"text": "</script>"}}}})]),
        nbformat.v4.new_code_cell("chart", outputs=[nbformat.v4.new_output("display_data", {
            "application/vnd.vegalite.v5+json": {
                "mark": "bar", "data": {"values": [{"a": "x", "b": 1}, {"a": "y", "b": 3}]},
                "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}}},
            "text/plain": "alt.Chart(...)"})]),
        nbformat.v4.new_markdown_cell("Euler: $e^{i\\pi} + 1 = 0$, and a dollar: $5."),
    ]
    return json.loads(nbformat.writes(nb))


def test_ipynb_is_the_notebook_itself() -> None:
    exported = export_notebook(notebook(), "tour.ipynb", "ipynb")
    assert exported.filename == "tour.ipynb" and exported.media_type == "application/x-ipynb+json"
    assert nbformat.reads(exported.body.decode(), as_version=4).cells[3].source.startswith("!echo")


def test_py_percent_round_trips_through_jupytext() -> None:
    nb = notebook()
    exported = export_notebook(nb, "My notes.ipynb", "py")
    assert exported.filename == "My notes.py"
    script = exported.body.decode()
    assert script.startswith("# %% [markdown]\n# # Title\n#\n# Some *prose*.")
    assert "# %%\n# %matplotlib inline\nx = 1\n\nprint(x)\n" in script  # magics commented, as Jupytext does
    assert "# %% [raw]\n# raw text\n" in script
    compile(script, "notes.py", "exec")  # still Python
    back = jupytext.reads(script, fmt="py:percent")
    assert [(c.cell_type, c.source) for c in back.cells] == [
        (c["cell_type"], "".join(c["source"]).replace("](attachment:", "](attachment:")) for c in nb["cells"]]


def test_html_is_one_offline_file_with_images_inline(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "plotly.js").write_text("window.Plotly={newPlot:function(el,d){el.dataset.drawn=d.length}};")
    exported = export_notebook(notebook(), "tour.ipynb", "html", frames=frames)
    html = exported.body.decode()
    assert exported.filename == "tour.html" and exported.media_type.startswith("text/html")
    assert not re.search(r"<script[^>]+src=", html)  # nothing loaded: no CDN, no file beside it
    assert not re.search(r"<link[^>]+href=[\"']?https?:", html)
    assert html.count(f"data:image/png;base64,{PNG}") == 2  # the output and the markdown attachment
    assert html.count("window.Plotly=") == 1 and "Plotly.newPlot(el" in html  # the library once, then the figure
    assert "\\u003c/script\\u003e" in html  # the figure's text cannot close the script
    assert ".ghostbook-widget[data-model-id]" not in html  # no widget: no widget manager
    no_math = notebook()
    no_math["cells"].pop()
    assert "katex" not in export_notebook(no_math, "t.ipynb", "html", frames=frames).body.decode()


def with_slider() -> dict:
    """A notebook whose output is an IntSlider, with the widget state ipywidgets itself writes."""
    from ipywidgets import IntSlider
    from ipywidgets.embed import embed_data

    data = embed_data(views=[IntSlider(value=7, max=10, description="n")])
    nb = notebook()
    nb["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": data["manager_state"]}
    nb["cells"].append(nbformat.v4.new_code_cell("IntSlider(7)", outputs=[nbformat.v4.new_output("display_data", {
        "application/vnd.jupyter.widget-view+json": data["view_specs"][0], "text/plain": "IntSlider(value=7)"})]))
    return nb


@pytest.mark.skipif(not (FRAMES / "plotly.js").is_file(), reason="frontend not built")
def test_html_plotly_and_math_draw_offline_in_chromium(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "tour.html"
    page_file.write_bytes(export_notebook(with_slider(), "tour.ipynb", "html").body)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(offline=True)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(page_file.as_uri())
        page.locator(".ghostbook-plotly .main-svg").first.wait_for(timeout=20_000)
        assert page.locator(".ghostbook-plotly .bars path").count() == 2
        page.locator(".ghostbook-vega svg .mark-rect path").first.wait_for(timeout=20_000)
        assert page.locator(".ghostbook-vega svg .mark-rect path").count() == 2  # vega-lite's two bars
        assert page.locator(".jp-RenderedMarkdown .katex").count() == 1  # KaTeX, inlined with its fonts
        assert "a dollar: $5." in page.locator(".jp-RenderedMarkdown").last.inner_text()
        # the widget, drawn from its saved state by Ghostbook's widget manager (no kernel: as saved)
        slider = page.locator(".ghostbook-widget .widget-slider")
        slider.wait_for(timeout=20_000)
        assert page.locator(".ghostbook-widget .widget-readout").inner_text() == "7"
        assert page.locator(".ghostbook-widget .widget-label").first.inner_text() == "n"
        browser.close()
    assert errors == []


def test_pdf_is_printed_by_chromium() -> None:
    exported = export_notebook(notebook(), "tour.ipynb", "pdf")
    assert exported.filename == "tour.pdf" and exported.body.startswith(b"%PDF-")
    assert len(exported.body) > 5000


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ExportError, match="unknown export format 'docx'"):
        export_notebook(notebook(), "tour.ipynb", "docx")


def test_cli_writes_beside_the_notebook_or_where_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "tour.ipynb"
    source.write_text(json.dumps(notebook()))
    assert export_cli([str(source), "--to", "py"]) == 0
    assert (tmp_path / "tour.py").read_text().startswith("# %% [markdown]")
    assert export_cli([str(source), "--to", "html", "--output", str(tmp_path / "out" / "x.html")]) == 2
    (tmp_path / "out").mkdir()
    assert export_cli([str(source), "--to", "html", "--output", str(tmp_path / "out" / "x.html")]) == 0
    assert (tmp_path / "out" / "x.html").read_text().startswith("<!DOCTYPE html>")
    assert export_cli([str(tmp_path / "missing.ipynb"), "--to", "py"]) == 2
    assert export_cli([str(source), "--to", "ipynb"]) == 2  # would overwrite the notebook
    assert "no such file" in capsys.readouterr().out
