"""`GET /api/export?path=NOTEBOOK&to=ipynb|py|html|pdf`: the notebook as a file to download.

An open notebook is exported as its session holds it, unsaved edits included (what every tab shows);
a closed one as its file. nbconvert is CPU-bound (and PDF waits on Chromium): it runs in a thread."""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ghostbook.documents.contents import Contents, ContentsError
from ghostbook.documents.ipynb_file import NotebookFormatError, read_notebook
from ghostbook.export import FORMATS, ExportError, export_notebook
from ghostbook.session.manager import SessionManager
from ghostbook.web.transfer_routes import DOWNLOAD_HEADERS, content_disposition

log = logging.getLogger(__name__)


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def export(request: Request) -> Response:
    contents: Contents = request.app.state.contents
    sessions: SessionManager = request.app.state.sessions
    to = request.query_params.get("to", "ipynb")
    if to not in FORMATS:
        return _error(f"unknown export format {to!r}: choose one of {', '.join(FORMATS)}")
    try:
        file_path = contents.resolve(request.query_params.get("path", ""))
        key = contents.relative(file_path)
        session = sessions.sessions.get(key)
        notebook: dict[str, Any]
        if session is not None and not session.closed:
            notebook = copy.deepcopy(session.data.to_nbformat())  # a copy: the session goes on changing
        elif file_path.suffix == ".ipynb" and file_path.is_file():
            notebook = await asyncio.to_thread(read_notebook, file_path)
        else:
            return _error(f"no such notebook: {key}", 404)
        exported = await asyncio.to_thread(export_notebook, notebook, file_path.name, to)
    except (ContentsError, NotebookFormatError, ExportError) as exc:
        return _error(str(exc))
    except Exception as exc:  # nbconvert or Chromium failing on this notebook: say so, keep serving
        log.exception("export of %s to %s failed", request.query_params.get("path"), to)
        return _error(f"export to {to} failed: {exc}", 500)
    headers = {**DOWNLOAD_HEADERS, "Content-Disposition": content_disposition(exported.filename)}
    return Response(exported.body, media_type=exported.media_type, headers=headers)


routes = [Route("/api/export", export, methods=["GET"])]
