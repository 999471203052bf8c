"""JSON routes of the file browser and the kernelspec list."""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ghostbook.documents.contents import Contents, ContentsError
from ghostbook.session.manager import SessionManager


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> dict[str, Any]:
    # JSON only: a page elsewhere cannot send application/json across origins without a preflight.
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise ContentsError("the request body must be JSON (Content-Type: application/json)")
    try:
        body = await request.json()
    except (ValueError, RecursionError):
        raise ContentsError("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise ContentsError("the request body must be a JSON object")
    return body


def _string(body: dict[str, Any], key: str, default: str | None = None) -> str:
    value = body.get(key, default)
    if not isinstance(value, str):
        raise ContentsError(f"'{key}' must be a string")
    return value


async def list_contents(request: Request) -> Response:
    contents: Contents = request.app.state.contents
    path = request.query_params.get("path", "")
    try:
        entries = await asyncio.to_thread(contents.list_dir, path)
    except ContentsError as exc:
        return _error(str(exc), 404)
    return JSONResponse({"path": path, "entries": [asdict(entry) for entry in entries],
                         "max_upload_bytes": request.app.state.config.max_upload_bytes})


async def create_content(request: Request) -> Response:
    contents: Contents = request.app.state.contents
    try:
        body = await _json_body(request)
        name = body.get("name")
        if name is not None and not isinstance(name, str):
            raise ContentsError("'name' must be a string")
        path = contents.create(_string(body, "dir", ""), _string(body, "type", "notebook"), name)
    except ContentsError as exc:
        return _error(str(exc))
    return JSONResponse({"path": path}, status_code=201)


async def rename_content(request: Request) -> Response:
    contents: Contents = request.app.state.contents
    sessions: SessionManager = request.app.state.sessions
    try:
        body = await _json_body(request)
        old = contents.relative(contents.locate(_string(body, "path")))
        new = contents.rename(old, _string(body, "new_path"))
    except ContentsError as exc:
        return _error(str(exc))
    sessions.renamed(old, new)
    return JSONResponse({"path": new})


async def delete_content(request: Request) -> Response:
    contents: Contents = request.app.state.contents
    sessions: SessionManager = request.app.state.sessions
    try:
        path = contents.relative(contents.locate(request.query_params.get("path", "")))
        await sessions.deleted(path)
        contents.delete(path)
    except ContentsError as exc:
        return _error(str(exc))
    return Response(status_code=204)


async def kernelspecs(request: Request) -> Response:
    result = await request.app.state.kernels.refresh_specs()  # local, or the gateway's (#18)
    request.app.state.kernelspecs = request.app.state.kernels.specs
    return JSONResponse(result)


routes = [
    Route("/api/contents", list_contents, methods=["GET"]),
    Route("/api/contents", create_content, methods=["POST"]),
    Route("/api/contents", rename_content, methods=["PATCH"]),
    Route("/api/contents", delete_content, methods=["DELETE"]),
    Route("/api/kernelspecs", kernelspecs, methods=["GET"]),
]
