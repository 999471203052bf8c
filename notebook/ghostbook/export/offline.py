"""Make plotly and vega outputs draw in an exported HTML file with no network.

nbconvert's JupyterLab template draws neither (JupyterLab renders them with extensions that the export
does not carry), and the HTML that plotly or altair put next to them loads the library from a CDN. Here
each such output becomes a `text/html` output that draws the figure with the library Ghostbook itself
ships (its output-frame bundles, `web/static/build/frames/`), inlined once in the page."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from nbconvert.preprocessors import Preprocessor

BUILD = Path(__file__).resolve().parent.parent / "web" / "static" / "build"
FRAMES = BUILD / "frames"
EXPORT = BUILD / "export"  # math.js/.css (KaTeX, fonts inlined) and widgets.js/.css (the widget manager)
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PLOTLY = "application/vnd.plotly.v1+json"
VEGA = re.compile(r"^application/vnd\.(vega|vegalite)\.v\d+\+json$")

# The bundles are written for a sandboxed output frame and ask it for their data: this stand-in gives
# them none, so they only define their globals (Plotly; vega, vegaLite, vegaEmbed).
FRAME_STUB = ("window.ghostbook={data:function(){return null},root:function(){return Promise.resolve("
              "document.body)},fail:function(e){console.error(e)},post:function(){},onMessage:function(){}};")

DRAW = {
    "plotly": ("var f={spec};Plotly.newPlot(el,f.data||[],f.layout||{{}},Object.assign({{responsive:true,"
               "displaylogo:false}},f.config||{{}}));"),
    "vega": "vegaEmbed(el,{spec},{{renderer:'svg',mode:{mode},actions:false}});",
}


MATH_MARKS = ("$", "\\(", "\\[", "\\begin{")


def has_math(notebook: Any) -> bool:
    """Whether a markdown cell may hold TeX, or an output is LaTeX (then the page needs KaTeX)."""
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and any(mark in cell.source for mark in MATH_MARKS):
            return True
        if any("text/latex" in (output.get("data") or {}) for output in cell.get("outputs", [])):
            return True
    return False


def has_widgets(notebook: Any) -> bool:
    """Whether an output shows a widget whose state the notebook saved (then the page needs the manager)."""
    if WIDGET_STATE not in (notebook.metadata.get("widgets") or {}):
        return False
    return any(WIDGET_VIEW in (output.get("data") or {})
               for cell in notebook.cells for output in cell.get("outputs", []))


def bundle_head(name: str, folder: Path = EXPORT) -> str:
    """An export bundle's stylesheet and script (`math`: KaTeX; `widgets`: the widget manager) for the
    page's <head>; "" when the frontend is not built (the TeX, or the widget's text, then shows as is)."""
    try:
        css = (folder / f"{name}.css").read_text(encoding="utf-8")
        js = (folder / f"{name}.js").read_text(encoding="utf-8")
    except OSError:
        return ""
    return "<style>" + css.replace("</style", "<\\/style") + "</style>" + inline_script(js)


def script_json(value: Any) -> str:
    """JSON that is safe inside a <script> element (no `</script>`, no `<!--`)."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def inline_script(source: str) -> str:
    return "<script>" + source.replace("</script", "<\\/script") + "</script>"


class OfflineRenderers(Preprocessor):  # type: ignore[misc]
    """Replace each plotly or vega output by HTML that draws it; the first one also carries the library."""

    def __init__(self, frames: Path = FRAMES, **kw: Any) -> None:
        super().__init__(**kw)
        self.frames = frames
        self.inlined: set[str] = set()
        self.missing: set[str] = set()

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> tuple[Any, Any]:
        for output in cell.get("outputs", []):
            data = output.get("data") or {}
            if PLOTLY in data:
                self._replace(data, "plotly", DRAW["plotly"].format(spec=script_json(data[PLOTLY])))
                continue
            mime = next((m for m in data if VEGA.match(m)), None)
            if mime is not None:
                mode = "vega-lite" if "vegalite" in mime else "vega"
                self._replace(data, "vega", DRAW["vega"].format(spec=script_json(data[mime]), mode=repr(mode)))
        return cell, resources

    def _replace(self, data: dict[str, Any], library: str, draw: str) -> None:
        code = self._library(library)
        if code is None:  # not built: the output keeps its own text or image, or says what it is
            if not any(m.startswith(("text/", "image/")) for m in data):
                data["text/plain"] = f"[a {library} figure: Ghostbook's frontend is not built, so it cannot be drawn]"
            return
        div_id = f"gb-{library}-{uuid.uuid4().hex[:12]}"
        data["text/html"] = (f'{code}<div id="{div_id}" class="ghostbook-{library}"></div>'
                             + inline_script(f"(function(){{var el=document.getElementById('{div_id}');{draw}}})();"))

    def _library(self, library: str) -> str | None:
        """The library's script the first time it is asked for, "" after, None if it is not built."""
        if library in self.inlined:
            return ""
        path = self.frames / f"{library}.js"
        try:
            code = path.read_text(encoding="utf-8")
        except OSError:
            self.missing.add(library)
            return None
        self.inlined.add(library)
        return inline_script(FRAME_STUB) + inline_script(code)
