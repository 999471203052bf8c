"""The REST side of a Jupyter Kernel Gateway (or Enterprise Gateway): kernelspecs and kernel lifecycle.

Only the documented Jupyter server REST API is used (`/api/kernelspecs`, `/api/kernels`,
`/api/kernels/{id}`, `.../interrupt`, `.../restart`), so any gateway that speaks it works. Every
request has a connect and a request timeout; every failure becomes a `GatewayError` whose text
says what went wrong in words (the gateway is unreachable, timed out, refused the token, ...).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

__all__ = ["GatewayConfig", "GatewayError", "GatewayClient", "KernelGone"]


class GatewayError(RuntimeError):
    """The gateway could not be reached, timed out, or refused a request."""


class KernelGone(GatewayError):
    """The gateway does not know the kernel (it was culled, deleted, or the gateway restarted)."""


@dataclass(frozen=True)
class GatewayConfig:
    """Where the gateway is. Environment variables as jupyter_server names them fill what is not given."""

    url: str
    token: str | None = None
    connect_timeout: float = 10.0
    request_timeout: float = 60.0

    @classmethod
    def from_env(cls, url: str | None = None, token: str | None = None) -> GatewayConfig | None:
        """The gateway named by `url` or `JUPYTER_GATEWAY_URL`; None when neither is set.

        Raises ValueError for a URL that is not http(s)://host[:port][/base].
        """
        url = url or os.environ.get("JUPYTER_GATEWAY_URL") or None
        if url is None:
            return None
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"the gateway URL must look like http://host:port, not {url!r}")
        return cls(
            url=url.rstrip("/"),
            token=token or os.environ.get("JUPYTER_GATEWAY_AUTH_TOKEN") or None,
            connect_timeout=_env_float("JUPYTER_GATEWAY_CONNECT_TIMEOUT", cls.connect_timeout),
            request_timeout=_env_float("JUPYTER_GATEWAY_REQUEST_TIMEOUT", cls.request_timeout),
        )

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"} if self.token else {}

    def ws_url(self, kernel_id: str) -> str:
        """The kernel's channels websocket."""
        base = "ws" + self.url[len("http"):]
        return f"{base}/api/kernels/{quote(kernel_id)}/channels"


class GatewayClient:
    """Async calls to the gateway's REST API, each returning the decoded JSON body."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config

    async def kernelspecs(self) -> dict[str, Any]:
        """`{"default": name, "kernelspecs": {name: {"name", "spec": {...}}}}` as the gateway lists them."""
        return await self._call("GET", "/api/kernelspecs")

    async def start_kernel(self, name: str) -> dict[str, Any]:
        """Start a kernel of kernelspec `name`; returns its model (`id`, `name`, `execution_state`)."""
        return await self._call("POST", "/api/kernels", {"name": name})

    async def kernel(self, kernel_id: str) -> dict[str, Any]:
        return await self._call("GET", f"/api/kernels/{quote(kernel_id)}")

    async def interrupt(self, kernel_id: str) -> None:
        await self._call("POST", f"/api/kernels/{quote(kernel_id)}/interrupt", {})

    async def restart(self, kernel_id: str) -> None:
        await self._call("POST", f"/api/kernels/{quote(kernel_id)}/restart", {})

    async def shutdown(self, kernel_id: str) -> None:
        await self._call("DELETE", f"/api/kernels/{quote(kernel_id)}")

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        cfg = self.config
        request = HTTPRequest(
            cfg.url + path,
            method=method,
            headers={**cfg.headers, "Content-Type": "application/json"},
            body=json.dumps(body) if body is not None else None,
            connect_timeout=cfg.connect_timeout,
            request_timeout=cfg.request_timeout,
        )
        try:
            response = await AsyncHTTPClient().fetch(request)
        except HTTPClientError as exc:
            raise _http_error(cfg, method, path, exc) from exc
        except OSError as exc:  # refused, unreachable, name not resolved
            raise GatewayError(f"cannot reach the gateway at {cfg.url}: {exc.strerror or exc}") from exc
        if not response.body:
            return {}
        try:
            result = json.loads(response.body)
        except ValueError as exc:
            raise GatewayError(f"the gateway at {cfg.url} sent a reply that is not JSON ({method} {path})") from exc
        return result if isinstance(result, dict) else {"items": result}


def _http_error(cfg: GatewayConfig, method: str, path: str, exc: HTTPClientError) -> GatewayError:
    if exc.code == 599:  # tornado's code for "no HTTP response": timeout or connection closed
        what = "timed out" if "timeout" in str(exc).lower() else f"failed ({exc.message})"
        limit = f" after {cfg.request_timeout:g} s" if what == "timed out" else ""
        return GatewayError(f"the gateway at {cfg.url} {what}{limit} ({method} {path})")
    if exc.code in (401, 403):
        return GatewayError(f"the gateway at {cfg.url} refused the token (HTTP {exc.code}): "
                            "check --gateway-token / JUPYTER_GATEWAY_AUTH_TOKEN")
    detail = _reason(exc)
    if exc.code == 404 and path.startswith("/api/kernels/"):
        return KernelGone("the gateway no longer has the kernel (it was shut down or culled there, "
                          "or the gateway restarted)")
    return GatewayError(f"the gateway at {cfg.url} answered HTTP {exc.code} to {method} {path}: {detail}")


def _reason(exc: HTTPClientError) -> str:
    """The `message`/`reason` a Jupyter server puts in its JSON error body, else the HTTP reason."""
    body = exc.response.body if exc.response is not None else b""
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        data = {}
    if isinstance(data, dict):
        text = data.get("message") or data.get("reason")
        if isinstance(text, str) and text:
            return text
    return exc.message or "no reason given"


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    try:
        return float(raw) if raw else default
    except ValueError:
        return default


def specs_list(model: dict[str, Any]) -> list[dict[str, str]]:
    """The gateway's `/api/kernelspecs` reply as `[{name, display_name, language}]`, sorted by name
    (the shape `ghostbook.kernel.specs.list_kernelspecs` gives for local kernels)."""
    specs = model.get("kernelspecs") or {}
    out = []
    for name, entry in sorted(specs.items() if isinstance(specs, dict) else []):
        spec = entry.get("spec", {}) if isinstance(entry, dict) else {}
        out.append({"name": name, "display_name": spec.get("display_name", name),
                    "language": spec.get("language", "")})
    return out
