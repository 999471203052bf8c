"""The single-page app's HTML and static files."""

from __future__ import annotations

import html
import importlib.util
import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ghostbook.web.appearance import html_attributes

STATIC_DIR = Path(__file__).parent / "static"
NO_CACHE = {"Cache-Control": "no-cache"}


async def index(request: Request) -> Response:
    if not (STATIC_DIR / "build" / "main.js").is_file():
        return PlainTextResponse("The frontend is not built: run `make build` (npm ci && npm run build "
                                 "in frontend/).\n", status_code=500)
    # The user's theme and editor font size go onto <html> here, so the first paint has them.
    page = (STATIC_DIR / "index.html").read_text()
    attributes = html_attributes(request.app.state.appearance.current)
    page = page.replace("<html ", f"<html {attributes} ", 1)
    return HTMLResponse(page.replace(MAIN_SCRIPT, preload_links() + MAIN_SCRIPT, 1), headers=NO_CACHE)


MAIN_SCRIPT = '<script type="module" src="/static/build/main.js"></script>'


def preload_links() -> str:
    """`<link rel="modulepreload">` for each chunk main.js imports (the build's `preload.json`), so the
    browser fetches them beside main.js; none if the list is missing or not a list of names."""
    try:
        chunks = json.loads((STATIC_DIR / "build" / "preload.json").read_text())
    except (OSError, ValueError):
        return ""
    if not isinstance(chunks, list):
        return ""
    return "".join(f'<link rel="modulepreload" href="/static/build/{html.escape(chunk)}" />\n    '
                   for chunk in chunks if isinstance(chunk, str) and chunk.startswith("chunks/") and ".." not in chunk)


class NoCacheStaticFiles(StaticFiles):
    """The bundle keeps its name across builds: make browsers revalidate so a rebuild is never stale."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response


def bokehjs_dir() -> Path | None:
    """BokehJS as the installed bokeh package ships it (its "inline" resources), found without importing
    bokeh; the version then matches the bokeh that made the plots whenever the kernel shares this venv."""
    try:
        spec = importlib.util.find_spec("bokeh")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "server" / "static" / "js"
        if (path / "bokeh.min.js").is_file():
            return path
    return None


async def no_bokehjs(request: Request) -> Response:
    return PlainTextResponse("BokehJS is not installed next to the server: pip install bokeh\n", status_code=404)


_bokehjs = bokehjs_dir()

routes = [
    Route("/", index),
    Route("/tree/{path:path}", index),
    Route("/notebooks/{path:path}", index),
    Mount("/static/bokeh", NoCacheStaticFiles(directory=_bokehjs)) if _bokehjs
    else Route("/static/bokeh/{path:path}", no_bokehjs),
    Mount("/static", NoCacheStaticFiles(directory=STATIC_DIR, check_dir=False), name="static"),
]
