"""Token, Host, Origin and path confinement, against a real server process."""

from __future__ import annotations

import asyncio
import json
import socket

import httpx
import pytest
import websockets

from tests.conftest import RunningServer

pytestmark = pytest.mark.timeout(60)


def test_every_route_needs_the_token(server: RunningServer) -> None:
    for path in ["/", "/tree/", "/notebooks/x.ipynb", "/api/contents", "/api/kernelspecs", "/static/index.html"]:
        response = httpx.get(server.base + path)
        assert response.status_code == 403, path
        wrong = httpx.get(server.base + path, params={"token": "wrong"})
        assert wrong.status_code == 403, path
        header = httpx.get(server.base + path, headers={"Authorization": "token wrong"})
        assert header.status_code == 403, path
    assert httpx.get(server.base + "/api/contents", headers={"Authorization": f"token {server.token}"}).is_success


def test_query_token_becomes_a_cookie(server: RunningServer) -> None:
    with httpx.Client(base_url=server.base) as client:
        response = client.get("/", params={"token": server.token})
        assert response.status_code == 303 and response.headers["location"] == "/"
        cookie = response.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert client.get("/api/contents").status_code == 200  # the cookie alone is enough now


def test_foreign_host_is_refused(server: RunningServer) -> None:
    response = httpx.get(server.base + "/api/contents", params={"token": server.token},
                         headers={"Host": "evil.example.com"})
    assert response.status_code == 403
    assert "localhost" in response.json()["error"]


def _ws_status(server: RunningServer, origin: str | None, token: str | None, host: str | None = None) -> int:
    """Send a raw websocket handshake (so Host and Origin are exactly what we say) and return the status."""
    target = "/ws?path=x.ipynb" + (f"&token={token}" if token else "")
    lines = [f"GET {target} HTTP/1.1", f"Host: {host or f'127.0.0.1:{server.port}'}", "Upgrade: websocket",
             "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
    if origin:
        lines.append(f"Origin: {origin}")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status_line = sock.recv(4096).split(b"\r\n", 1)[0]
    return int(status_line.split()[1])


def test_websocket_checks_token_origin_and_host(server: RunningServer) -> None:
    own = f"http://127.0.0.1:{server.port}"
    assert (_ws_status(server, own, None)) == 403
    assert (_ws_status(server, own, "wrong")) == 403
    assert (_ws_status(server, "http://evil.example.com", server.token)) == 403
    assert (_ws_status(server, f"http://127.0.0.1:{server.port + 1}", server.token)) == 403
    assert (_ws_status(server, None, server.token)) == 403
    assert (_ws_status(server, "http://evil.example.com", server.token, host="evil.example.com")) == 403
    assert (_ws_status(server, own, server.token)) == 101


@pytest.mark.parametrize("path", ["../notebooks-secret", "../notebooks-secret/secret.ipynb", "/etc",
                                  "sub/../../notebooks-secret"])
def test_traversal_is_refused(server: RunningServer, path: str) -> None:
    auth = {"Authorization": f"token {server.token}"}
    listing = httpx.get(server.base + "/api/contents", params={"path": path}, headers=auth)
    assert listing.status_code == 404 and "secret" not in listing.text
    delete = httpx.delete(server.base + "/api/contents", params={"path": path}, headers=auth)
    assert delete.status_code == 400
    rename = httpx.patch(server.base + "/api/contents", json={"path": path, "new_path": "stolen.ipynb"},
                         headers=auth)
    assert rename.status_code == 400
    create = httpx.post(server.base + "/api/contents", json={"dir": path}, headers=auth)
    assert create.status_code == 400
    assert (server.root.parent / "notebooks-secret" / "secret.ipynb").exists()


def test_websocket_refuses_notebooks_outside_root(server: RunningServer) -> None:
    async def open_outside() -> dict[str, object]:
        url = f"{server.ws_base}/ws?path=../notebooks-secret/secret.ipynb&token={server.token}"
        async with websockets.connect(url, origin=f"http://127.0.0.1:{server.port}") as ws:
            return json.loads(await ws.recv())

    reply = asyncio.run(open_outside())
    assert reply["type"] == "fatal" and "not allowed" in str(reply["message"])


def test_static_files_are_revalidated(server: RunningServer) -> None:
    response = httpx.get(server.base + "/static/index.html", headers={"Authorization": f"token {server.token}"})
    assert response.status_code == 200 and response.headers["cache-control"] == "no-cache"
