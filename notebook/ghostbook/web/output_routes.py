"""`/outputs/{id}`: the whole text of a long stream output, page by page ("show all" under its cut).

Escaped HTML with next/prev links (`?page=N`, from 1), or `?format=text` for the page as text/plain.
Behind the usual token check (web/security.py); `nosniff` and a CSP that allows no script, as the text
is the kernel's.
"""

from __future__ import annotations

import asyncio
import html
import re

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from ghostbook.session.full_outputs import Page, read_page
from ghostbook.session.manager import SessionManager
from ghostbook.web.appearance import Appearance, html_attributes

HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store",
           "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"}
FULL_ID = re.compile(r"^[0-9a-f]{32}$")

# The notebook's colours (frontend/src/styles.css) in light and dark: the saved theme is on <html> (as
# pages.index writes it), "system" follows prefers-color-scheme.
STYLE = """:root{color-scheme:light dark}:root[data-theme=light]{color-scheme:light}
:root[data-theme=dark]{color-scheme:dark}
body{font:14px system-ui,sans-serif;margin:0;color:light-dark(#1f2328,#e6edf3);background:light-dark(#fff,#0d1117)}
header{position:sticky;top:0;background:light-dark(#f6f8fa,#161b22);border-bottom:1px solid light-dark(#d0d7de,#30363d);
padding:8px 16px;display:flex;gap:16px;align-items:center}
a{color:light-dark(#6f42c1,#a371f7)}
nav a,nav span{margin-right:12px}nav span{color:light-dark(#8c959f,#6e7681)}
pre{margin:0;padding:8px 16px;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap;
word-break:break-all}
pre>span::before{content:attr(data-n);display:inline-block;min-width:7ch;margin-right:12px;
text-align:right;color:light-dark(#8c959f,#6e7681)}
.stderr{background:light-dark(#fff5f5,#25161a)}"""


def _not_found() -> Response:
    return PlainTextResponse("This output is no longer kept: it was cleared, run again, or its notebook was closed.\n",
                             status_code=404, headers=HEADERS)


async def full_output(request: Request) -> Response:
    full_id = request.path_params["full_id"]
    sessions: SessionManager = request.app.state.sessions
    session = sessions.full_output(full_id) if FULL_ID.match(full_id) else None
    found = session.full_outputs.snapshot(full_id) if session is not None else None
    if found is None:
        return _not_found()
    try:
        number = int(request.query_params.get("page", "1"))
    except ValueError:
        return PlainTextResponse("page must be a number\n", status_code=400, headers=HEADERS)
    try:
        page = await asyncio.to_thread(read_page, *found, page=number - 1)
    except OSError:
        return _not_found()
    if request.query_params.get("format") == "text":
        return PlainTextResponse("".join(f"{line}\n" for line in page.lines), headers=HEADERS)
    return HTMLResponse(render_page(full_id, page, session.data.path if session else "",
                                    request.app.state.appearance.current), headers=HEADERS)


def render_page(full_id: str, page: Page, notebook: str, appearance: Appearance | None = None) -> str:
    """The page as HTML in `appearance`'s theme; every piece of text is escaped."""
    number = page.page + 1
    last = page.first + len(page.lines)

    def link(to: int, text: str, name: str) -> str:
        if to < 1 or to > page.pages or to == number:
            return f"<span>{text}</span>"
        return f'<a href="/outputs/{full_id}?page={to}" data-testid="full-output-{name}">{text}</a>'

    nav = " ".join([link(1, "« First", "first"), link(number - 1, "‹ Prev", "prev"),
                    link(number + 1, "Next ›", "next"), link(page.pages, "Last »", "last")])
    rows = "\n".join(f'<span data-n="{page.first + i + 1}">{html.escape(line)}</span>'
                     for i, line in enumerate(page.lines))  # the numbers are CSS: copying takes the text only
    title = html.escape(f"{notebook}: {page.name}, lines {page.first + 1:,}–{last:,} of {page.total_lines:,}")
    return (f'<!doctype html><html lang="en" {html_attributes(appearance or Appearance())}>'
            f'<head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{STYLE}</style></head><body><header><strong data-testid=\"full-output-title\">{title}</strong>"
            f'<nav>{nav}</nav><span data-testid="full-output-page">page {number:,} of {page.pages:,}</span>'
            f'<a href="/outputs/{full_id}?page={number}&amp;format=text">text</a></header>'
            f'<pre class="{html.escape(page.name)}" data-testid="full-output-text">{rows}</pre></body></html>')


routes = [Route("/outputs/{full_id}", full_output, methods=["GET"])]
