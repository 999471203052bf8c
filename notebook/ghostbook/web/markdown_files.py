"""`GET /files/{path}`: the files a notebook's Markdown points at (`![plot](pic.png)`, `[data](data/x.csv)`),
read from inside the notebook root only.

The security middleware has already checked the token (or cookie) and the Host. Paths follow the file
browser's rules (`documents/paths.py`: no `..`, no absolute paths, no symlink that leaves the root) and
no dot-file or dot-folder is served. Nothing served here can run as a page of ours: images (SVG too,
under the sandbox) are sent inline with their own type, plain text as `text/plain`, everything else
(HTML, scripts, unknown) as a download; every response says `nosniff` and carries a sandboxing
Content-Security-Policy.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from ghostbook.documents.contents import Contents, ContentsError

IMAGES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
          # an <img> never runs an SVG's scripts; opened on its own, the CSP sandbox (no allow-scripts,
          # an opaque origin) keeps them from running with ours
          ".svg": "image/svg+xml"}
TEXT = {".txt", ".csv", ".tsv", ".md", ".py", ".json", ".log", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".tex"}
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-cache",
}


def _refuse(message: str, status: int) -> Response:
    return PlainTextResponse(message + "\n", status_code=status, headers=HEADERS)


async def markdown_file(request: Request) -> Response:
    contents: Contents = request.app.state.contents
    relative = request.path_params["path"]
    if any(part.startswith(".") for part in PurePosixPath(relative).parts):
        return _refuse("hidden files are not served", 404)
    try:
        path = contents.resolve(relative)
    except ContentsError as exc:
        return _refuse(str(exc), 400)
    if not path.is_file():
        return _refuse(f"no such file: {relative}", 404)
    suffix = path.suffix.lower()
    if suffix in IMAGES:
        return FileResponse(path, media_type=IMAGES[suffix], headers=HEADERS)
    if suffix in TEXT:
        return FileResponse(path, media_type="text/plain; charset=utf-8", headers=HEADERS)
    return FileResponse(path, media_type="application/octet-stream", headers=HEADERS, filename=path.name,
                        content_disposition_type="attachment")


routes = [Route("/files/{path:path}", markdown_file, methods=["GET", "HEAD"])]
