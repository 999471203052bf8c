"""Token, Host, Origin and path confinement, against a real server process."""

from __future__ import annotations

import asyncio
import json
import socket
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
import websockets

from tests.conftest import RunningServer

pytestmark = pytest.mark.timeout(60)


def test_every_route_needs_the_token(server: RunningServer) -> None:
    for path in ["/", "/tree/", "/notebooks/x.ipynb", "/api/contents", "/api/kernelspecs", "/static/index.html",
                 "/api/files?path=x.ipynb", "/api/export?path=x.ipynb&to=html"]:
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
    assert (_ws_status(server, "http://[::1", server.token)) == 403  # malformed, not a 500
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


def test_only_the_output_renderers_scripts_load_without_the_token(server: RunningServer) -> None:
    """A sandboxed output frame has an opaque origin and sends no cookie: its <script src> reaches the
    renderer bundles and BokehJS without the token. Nothing else does, not by `..` either."""
    def get(path: str) -> httpx.Response:
        return httpx.get(server.base + path)

    for path in ["/static/build/frames/runtime.js", "/static/build/frames/plotly.js", "/static/build/frames/vega.js",
                 "/static/bokeh/bokeh.min.js"]:
        response = get(path)
        assert response.status_code in (200, 404), path  # 404: not built / bokeh not installed, but not 403
        assert "token" not in response.text[:200], path
        if response.status_code == 200:  # a classic script: no CORS needed, none given
            assert response.headers["content-type"].startswith("text/javascript"), path
            assert "access-control-allow-origin" not in response.headers, path
    for path in ["/static/build/main.js", "/static/index.html", "/static/build/frames/../main.js",
                 "/static/build/frames/%2e%2e/main.js", "/static/bokeh/../index.html", "/static/build/frames"]:
        assert get(path).status_code == 403, path
    assert httpx.post(server.base + "/static/build/frames/runtime.js").status_code == 403
    assert _ws_status(server, "null", server.token) == 403  # an output frame's websocket, token or not


def test_foreign_cookies_that_simplecookie_rejects_do_not_lock_out(server: RunningServer) -> None:
    ours = f"ghostbook-token-{server.port}={server.token}"
    for foreign in ['a=b c', 'j={"x": 1, "y": [2]}', 'q="unbalanced', 'w=x;;; =; ;v']:
        for cookie in [f"{foreign}; {ours}", f"{ours}; {foreign}"]:
            response = httpx.get(server.base + "/api/contents", headers={"Cookie": cookie})
            assert response.status_code == 200, cookie
    assert httpx.get(server.base + "/api/contents", headers={"Cookie": 'a=b c'}).status_code == 403


def test_state_changing_requests_must_come_from_our_origin(server: RunningServer) -> None:
    cookie = {"Cookie": f"ghostbook-token-{server.port}={server.token}"}
    own = f"http://127.0.0.1:{server.port}"
    body = '{"dir": "", "type": "directory", "name": "pwned"}'
    for origin in [f"http://127.0.0.1:{server.port + 1}", f"http://localhost:{server.port}", "null",
                   "http://evil.example.com", "http://[::1"]:
        # What a form or a fetch on another local port sends (cookies are shared across ports).
        response = httpx.post(server.base + "/api/contents", content=body,
                              headers={**cookie, "Origin": origin, "Content-Type": "text/plain"})
        assert response.status_code == 403 and "origin" in response.json()["error"], origin
        for method in ["PATCH", "DELETE", "PUT"]:
            assert httpx.request(method, server.base + "/api/contents?path=x", headers={**cookie, "Origin": origin},
                                 json={"path": "x", "new_path": "y"}).status_code == 403
    no_origin = httpx.post(server.base + "/api/contents", content=body,
                           headers={**cookie, "Sec-Fetch-Site": "same-site", "Content-Type": "text/plain"})
    assert no_origin.status_code == 403
    assert not (server.root / "pwned").exists()
    # Our own page's requests pass, but only with a JSON body (a cross-origin one would need a preflight).
    plain = httpx.post(server.base + "/api/contents", content=body,
                       headers={**cookie, "Origin": own, "Content-Type": "text/plain"})
    assert plain.status_code == 400 and "application/json" in plain.json()["error"]
    created = httpx.post(server.base + "/api/contents", content=body,
                         headers={**cookie, "Origin": own, "Content-Type": "application/json",
                                  "Sec-Fetch-Site": "same-origin"})
    assert created.status_code == 201
    deleted = httpx.delete(server.base + "/api/contents", params={"path": "pwned"}, headers={**cookie, "Origin": own})
    assert deleted.status_code == 204


@pytest.mark.parametrize("path", ["//evil.example.com/x", "///evil.example.com", "/%2F%2Fevil.example.com/x",
                                  "/%5Cevil.example.com", "/%5C%5Cevil.example.com/x", "/%2F%5Cevil.example.com"])
def test_token_redirect_stays_on_this_site(server: RunningServer, path: str) -> None:
    response = httpx.get(f"{server.base}{path}?token={server.token}&a=1")
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith("/") and location[1:2] not in ("/", "\\"), location
    assert urlsplit(location).netloc == "" and urlsplit(urljoin(server.base, location)).netloc == \
        f"127.0.0.1:{server.port}"
    assert location.endswith("evil.example.com/x?a=1") or location.endswith("evil.example.com?a=1")


def test_bad_file_requests_get_clear_4xx_errors(server: RunningServer) -> None:
    auth = {"Authorization": f"token {server.token}"}
    api = server.base + "/api/contents"
    (server.root / "loop-a").symlink_to(server.root / "loop-b")
    (server.root / "loop-b").symlink_to(server.root / "loop-a")
    (server.root / "outer" / "inner").mkdir(parents=True)
    requests = [
        httpx.get(api, params={"path": "x" * 300}, headers=auth),
        httpx.get(api, params={"path": "/".join(["d" * 200] * 25)}, headers=auth),
        httpx.get(api, params={"path": "loop-a"}, headers=auth),
        httpx.get(api, params={"path": "loop-a/x"}, headers=auth),
        httpx.post(api, json={"dir": "", "type": "directory", "name": "x" * 300}, headers=auth),
        httpx.post(api, json={"dir": "", "name": "é" * 200}, headers=auth),
        httpx.post(api, json={"dir": "loop-a", "type": "directory", "name": "x"}, headers=auth),
        httpx.post(api, content='{"dir": "\\ud800", "type": "directory"}',
                   headers={**auth, "Content-Type": "application/json"}),
        httpx.post(api, content="[" * 100_000, headers={**auth, "Content-Type": "application/json"}),
        httpx.patch(api, json={"path": "outer", "new_path": "outer/inner/outer"}, headers=auth),
        httpx.patch(api, json={"path": "outer", "new_path": "x" * 300}, headers=auth),
        httpx.patch(api, json={"path": "loop-a", "new_path": "y"}, headers=auth),
        httpx.delete(api, params={"path": "x" * 5000}, headers=auth),
        httpx.delete(api, params={"path": "loop-a"}, headers=auth),
    ]
    for response in requests:
        assert 400 <= response.status_code < 500, (response.request.method, response.request.url, response.text)
        error = response.json()["error"]
        assert error and "Traceback" not in error and len(error) < 300
    assert "into itself" in requests[9].json()["error"] and "too long" in requests[0].json()["error"]
    assert (server.root / "outer" / "inner").is_dir()
    assert httpx.get(api, headers=auth).status_code == 200  # the loop does not break the listing


def test_deleting_a_symlinked_folder_keeps_the_real_one(server: RunningServer) -> None:
    auth = {"Authorization": f"token {server.token}"}
    (server.root / "real-data").mkdir()
    (server.root / "real-data" / "keep.ipynb").write_text("{}")
    (server.root / "data-link").symlink_to(server.root / "real-data", target_is_directory=True)
    response = httpx.delete(server.base + "/api/contents", params={"path": "data-link"}, headers=auth)
    assert response.status_code == 204
    assert not (server.root / "data-link").is_symlink()
    assert (server.root / "real-data" / "keep.ipynb").read_text() == "{}"


@pytest.mark.parametrize("path", ["x" * 5000 + ".ipynb", "x" * 300 + ".ipynb", "d/" * 2500 + "a.ipynb",
                                  "loop-a/x.ipynb", "x" * 5000])
def test_websocket_bad_path_gets_a_fatal_message(server: RunningServer, path: str) -> None:
    from tests.web.wsclient import NotebookClient

    if not (server.root / "loop-a").is_symlink():
        (server.root / "loop-a").symlink_to(server.root / "loop-b")
        (server.root / "loop-b").symlink_to(server.root / "loop-a")

    async def scenario() -> dict[str, object]:
        client = await NotebookClient.connect(server, path)
        try:
            return await client.expect("fatal", timeout=10)
        finally:
            await client.close()

    message = str(asyncio.run(scenario())["message"])
    assert message and len(message) < 300 and "Traceback" not in message, message


def test_deeply_nested_frames_get_an_error_and_the_socket_stays(server: RunningServer) -> None:
    from tests.web.wsclient import NotebookClient

    created = httpx.post(server.base + "/api/contents", json={"dir": "", "name": "nested"},
                         headers={"Authorization": f"token {server.token}"})
    assert created.status_code == 201

    async def scenario() -> None:
        client = await NotebookClient.connect(server, "nested.ipynb")
        await client.expect("snapshot")
        for depth in [1_000, 100_000]:
            for frame in ["[" * depth + "]" * depth, '{"type": "ping", "ref": "deep", "x": ' + "[" * depth + "]" * depth
                          + "}", '{"a":' * depth + "1" + "}" * depth]:
                await client.send(frame)
                error = await client.expect("error", timeout=10)
                assert error["message"] and "Traceback" not in error["message"]
        await client.send({"type": "ping", "ref": "alive"})
        assert (await client.expect("pong"))["ref"] == "alive"
        await client.close()

    asyncio.run(scenario())
