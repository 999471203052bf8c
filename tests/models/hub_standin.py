"""A loopback stand-in for the Hugging Face hub's file API, for huggingface_hub pointed at it by
HF_ENDPOINT: `HEAD/GET /{repo}/resolve/{revision}/{file}` with ETag, X-Repo-Commit, Content-Length and
Range (resume), and `/api/models/{repo}[/revision/{rev}]` and `/api/models/{repo}/tree/{rev}`
(snapshot_download's file list). Unknown
repos answer 401 RepoNotFound, gated repos 401 GatedRepo without the right token, unknown files 404
EntryNotFound, as the hub does. `bytes_per_s` throttles downloads so progress can be watched; `fail`
makes a file's download fail: its GET answers an HTTP status, or ("drop") the connection closes
halfway through the file, every time (a resumed download gets no further)."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.loopback import Loopback

COMMIT = "0123456789abcdef0123456789abcdef01234567"
CHUNK = 64 * 1024


@dataclass
class HubStandIn:
    files: dict[str, dict[str, Path]] = field(default_factory=dict)  # repo -> {file name: path}
    gated: dict[str, str] = field(default_factory=dict)  # repo -> the token that may read it
    bytes_per_s: float | None = None
    fail: dict[str, int | str] = field(default_factory=dict)  # file name -> its GET's status, or "drop"
    requests: list[str] = field(default_factory=list)  # "METHOD path [range]" of every request
    url: str = ""

    def __post_init__(self) -> None:
        self._etags: dict[Path, str] = {}
        self._loopback = Loopback()

    # ---- the app ----------------------------------------------------------------------------------

    def _etag(self, path: Path) -> str:
        if path not in self._etags:
            self._etags[path] = hashlib.sha256(path.read_bytes()).hexdigest()
        return self._etags[path]

    def _refuse(self, request: Request, repo: str) -> Response | None:
        if repo not in self.files:
            return Response(status_code=401, headers={"X-Error-Code": "RepoNotFound",
                                                      "X-Error-Message": "Repository not found"})
        token = self.gated.get(repo)
        if token is not None and request.headers.get("authorization") != f"Bearer {token}":
            return Response(status_code=401, headers={"X-Error-Code": "GatedRepo",
                                                      "X-Error-Message": "Access to this model is restricted"})
        return None

    async def resolve(self, request: Request) -> Response:
        self.requests.append(f"{request.method} {request.url.path} {request.headers.get('range', '')}".strip())
        repo = f"{request.path_params['owner']}/{request.path_params['name']}"
        refused = self._refuse(request, repo)
        if refused is not None:
            return refused
        path = self.files[repo].get(request.path_params["file"])
        if path is None:
            return Response(status_code=404, headers={"X-Error-Code": "EntryNotFound",
                                                      "X-Error-Message": "Entry not found"})
        size = path.stat().st_size
        headers = {"ETag": f'"{self._etag(path)}"', "X-Repo-Commit": COMMIT, "Accept-Ranges": "bytes"}
        if request.method == "HEAD":
            return Response(status_code=200, headers={**headers, "Content-Length": str(size)})
        failing = self.fail.get(request.path_params["file"])
        if isinstance(failing, int):
            return Response(status_code=failing, headers={"X-Error-Message": "Internal Error"})
        start = 0
        ranged = request.headers.get("range", "")
        if ranged.startswith("bytes="):
            start = int(ranged[6:].split("-")[0] or 0)
        headers["Content-Length"] = str(size - start)
        if start:
            headers["Content-Range"] = f"bytes {start}-{size - 1}/{size}"
        stop = size // 2 if failing == "drop" else None
        return StreamingResponse(self._body(path, start, stop), status_code=206 if start else 200, headers=headers,
                                 media_type="application/octet-stream")

    async def _body(self, path: Path, start: int, stop: int | None = None) -> AsyncIterator[bytes]:
        """The file from `start`; with `stop`, the connection drops at that byte."""
        with open(path, "rb") as handle:
            handle.seek(start)
            while chunk := handle.read(CHUNK if stop is None else max(0, min(CHUNK, stop - handle.tell()))):
                if self.bytes_per_s:
                    await asyncio.sleep(len(chunk) / self.bytes_per_s)
                yield chunk
        if stop is not None:
            raise ConnectionResetError("the hub stand-in drops the connection")

    async def model_info(self, request: Request) -> Response:
        self.requests.append(f"{request.method} {request.url.path}")
        repo = f"{request.path_params['owner']}/{request.path_params['name']}"
        refused = self._refuse(request, repo)
        if refused is not None:
            return refused
        siblings = [{"rfilename": name, "size": p.stat().st_size} for name, p in sorted(self.files[repo].items())]
        return JSONResponse({"id": repo, "modelId": repo, "sha": COMMIT, "siblings": siblings, "private": False})

    async def tree(self, request: Request) -> Response:
        self.requests.append(f"{request.method} {request.url.path}")
        repo = f"{request.path_params['owner']}/{request.path_params['name']}"
        refused = self._refuse(request, repo)
        if refused is not None:
            return refused
        return JSONResponse([{"type": "file", "path": name, "size": p.stat().st_size, "oid": self._etag(p)}
                             for name, p in sorted(self.files[repo].items())])

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/api/models/{owner}/{name}/tree/{rev}", self.tree),
            Route("/api/models/{owner}/{name}", self.model_info),
            Route("/api/models/{owner}/{name}/revision/{rev}", self.model_info),
            Route("/{owner}/{name}/resolve/{rev}/{file:path}", self.resolve, methods=["GET", "HEAD"]),
        ])

    # ---- lifecycle --------------------------------------------------------------------------------

    def start(self) -> HubStandIn:
        self.url = self._loopback.serve_app(self.app())
        return self

    def stop(self) -> None:
        self._loopback.stop()


def main() -> None:
    """`python -m tests.models.hub_standin REPO FILE=PATH... [--bytes-per-s N] [--port-file F]`: serve
    until killed (the e2e tests run it beside the Ghostbook server)."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("repo")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--bytes-per-s", type=float, default=None)
    parser.add_argument("--port-file", type=Path, required=True)
    args = parser.parse_args()
    files = {name: Path(path) for name, path in (item.split("=", 1) for item in args.files)}
    hub = HubStandIn({args.repo: files}, bytes_per_s=args.bytes_per_s).start()
    args.port_file.write_text(hub.url)
    threading.Event().wait()


if __name__ == "__main__":
    main()
