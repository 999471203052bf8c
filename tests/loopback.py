"""A Starlette app served by uvicorn on a free loopback port, in a thread: the stand-ins for model
servers and the hub that tests talk to over real HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Sequence

import uvicorn
from starlette.applications import Starlette
from starlette.routing import BaseRoute
from starlette.types import ASGIApp


class Loopback:
    """`serve(routes)` (or `serve_app(app)`) starts the app and returns its base URL; `stop()` ends it."""

    def __init__(self) -> None:
        self.url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def serve(self, routes: Sequence[BaseRoute], log_level: str = "warning") -> str:
        return self.serve_app(Starlette(routes=list(routes)), log_level)

    def serve_app(self, app: ASGIApp, log_level: str = "warning") -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self._server = uvicorn.Server(uvicorn.Config(app, log_level=log_level, lifespan="off"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
