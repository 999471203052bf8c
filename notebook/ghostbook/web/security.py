"""Every request must carry the server's token and come to a loopback Host; websockets and
state-changing HTTP requests must come from our own Origin. Pure ASGI middleware in Starlette's style.

The one exception to the token: reading the output renderers' scripts (PUBLIC_PATHS). A sandboxed output
frame has an opaque origin, so it sends no cookie; its <script src> must load them without one. They are
public code (plotly.js, vega, BokehJS), and the Host check still applies."""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs, urlencode, urlsplit

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from ghostbook.web.config import ServerConfig

LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
PUBLIC_PATHS = ("/static/build/frames/", "/static/bokeh/")


def host_name(host_header: str) -> str:
    """`127.0.0.1:8888` -> `127.0.0.1`, `[::1]:8888` -> `[::1]`."""
    if host_header.startswith("["):
        return host_header.split("]", 1)[0] + "]"
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


def is_public(scope: Scope) -> bool:
    """A GET or HEAD of a renderer script (no `..`: the exception must not reach other files)."""
    path = scope["path"]
    return (scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and path.startswith(PUBLIC_PATHS)
            and ".." not in path.split("/") and "\\" not in path)


class SecurityMiddleware:
    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        problem = self._check_host(headers) or self._check_origin(scope, headers)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        query_token = (query.get("token") or [None])[0]
        if problem is None and not is_public(scope) and not self._token_ok(scope, headers, query_token):
            problem = "invalid or missing token: open the URL that ghostbook printed"
        if problem is not None:
            await self._deny(scope, receive, send, problem)
            return
        if (scope["type"] == "http" and query_token is not None and scope["method"] == "GET"
                and not scope["path"].startswith(("/api/", "/static/"))):
            # Trade the token in the URL for a cookie and drop it from the address bar.
            await self._redirect_with_cookie(scope, query, receive, send)
            return
        await self.app(scope, receive, send)

    def _check_host(self, headers: Headers) -> str | None:
        if self.config.allow_remote:
            return None
        if host_name(headers.get("host", "")).lower() not in LOOPBACK_HOSTS:
            return "requests must be addressed to localhost (start with --allow-remote to serve others)"
        return None

    def _check_origin(self, scope: Scope, headers: Headers) -> str | None:
        """Websockets, and HTTP requests that change something, must come from a page of ours.

        Cookies are shared by every port of a host (and SameSite does not separate ports), so without
        this a page served by any other local app could act with the user's cookie. Browsers send
        Origin with every websocket and every POST/PUT/PATCH/DELETE; a client without Origin (curl, a
        script with the token) is let through unless Sec-Fetch-Site says the request crossed sites.
        """
        origin = headers.get("origin")
        if scope["type"] == "websocket":
            if origin is None:
                return "websocket without Origin header"
            return None if self._own_origin(origin, headers) else f"websocket from a foreign origin: {origin}"
        if scope["method"] in SAFE_METHODS:
            return None
        if origin is not None:
            return None if self._own_origin(origin, headers) else f"request from a foreign origin: {origin}"
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return "cross-site request refused"
        return None

    @staticmethod
    def _own_origin(origin: str, headers: Headers) -> bool:
        try:
            parts = urlsplit(origin)
        except ValueError:  # e.g. "http://[::1"
            return False
        return parts.scheme in ("http", "https") and parts.netloc.lower() == headers.get("host", "").lower()

    def _token_ok(self, scope: Scope, headers: Headers, query_token: str | None) -> bool:
        expected = self.config.token.encode()
        # Starlette's tolerant parser: another app's malformed cookie on this host must not lock us out.
        candidates = [query_token, HTTPConnection(scope).cookies.get(self.config.cookie_name)]
        auth = headers.get("authorization", "")
        if auth.lower().startswith("token "):
            candidates.append(auth[6:].strip())
        return any(c is not None and hmac.compare_digest(c.encode(), expected) for c in candidates)

    async def _deny(self, scope: Scope, receive: Receive, send: Send, reason: str) -> None:
        response: Response
        if scope["type"] == "websocket":
            # Closing before accept makes the server refuse the handshake with HTTP 403.
            await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})
            return
        if scope["path"].startswith("/api/"):
            response = JSONResponse({"error": reason}, status_code=403)
        else:
            response = PlainTextResponse(f"403 Forbidden: {reason}\n", status_code=403)
        await response(scope, receive, send)

    async def _redirect_with_cookie(self, scope: Scope, query: dict[str, list[str]], receive: Receive,
                                    send: Send) -> None:
        rest = {k: v for k, v in query.items() if k != "token"}
        # Only to a path of this site: "//evil.com/x" or "/\\evil.com" would leave it.
        path = "/" + scope["path"].lstrip("/\\")
        target = path + (("?" + urlencode(rest, doseq=True)) if rest else "")
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(self.config.cookie_name, self.config.token, httponly=True, samesite="strict")
        await response(scope, receive, send)
