"""Downloads and uploads of the file browser: `GET /api/files?path=` sends any file inside the root,
`PUT /api/files?path=DIR/NAME` stores the request body as a new file (raw bytes, up to a limit)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import PurePosixPath
from urllib.parse import quote

from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ghostbook.documents.contents import Contents, ContentsError
from ghostbook.documents.transfer import download_path, save_upload

# A download is a file to save, never a page of this origin: no sniffing, no scripts even if opened.
DOWNLOAD_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox",
                    "Cache-Control": "no-store"}
SPOOL_BYTES = 1024 * 1024  # an upload is held in memory up to this, then in a temporary file


def content_disposition(filename: str) -> str:
    """`attachment` with the name as browsers read it (RFC 6266; RFC 5987 for names beyond ASCII)."""
    quoted = quote(filename)
    if quoted == filename:
        return f'attachment; filename="{filename}"'
    fallback = filename.encode("ascii", "replace").decode().replace('"', "_")
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quoted}"


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _size(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB"


async def download(request: Request) -> Response:
    contents: Contents = request.app.state.contents
    try:
        path = await asyncio.to_thread(download_path, contents, request.query_params.get("path", ""))
    except ContentsError as exc:
        return _error(str(exc), 404)
    return FileResponse(path, headers={**DOWNLOAD_HEADERS, "Content-Disposition": content_disposition(path.name)})


async def upload(request: Request) -> Response:
    contents: Contents = request.app.state.contents
    limit: int = request.app.state.config.max_upload_bytes
    target = PurePosixPath(request.query_params.get("path", ""))
    directory = "" if str(target.parent) == "." else str(target.parent)
    too_large = (f"{target.name} is too large: uploads are limited to {_size(limit)} "
                 "(start ghostbook with --max-upload-mb to change it)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return _error(too_large, 413)
    received = 0
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as data:
        try:
            async for chunk in request.stream():
                received += len(chunk)
                if received > limit:
                    return _error(too_large, 413)
                data.write(chunk)
        except ClientDisconnect:
            return _error("the upload was interrupted")
        data.seek(0)
        try:
            path = await asyncio.to_thread(save_upload, contents, directory, target.name, data)
        except ContentsError as exc:
            return _error(str(exc))
    return JSONResponse({"path": path}, status_code=201)


routes = [
    Route("/api/files", download, methods=["GET"]),
    Route("/api/files", upload, methods=["PUT"]),
]
