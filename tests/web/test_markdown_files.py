"""`GET /files/{path}` (the files Markdown cells point at), against a real server process: the token,
the notebook root's path rules, and content types that never run as a page of ours."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import RunningServer

pytestmark = pytest.mark.timeout(60)
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * 16


def get(server: RunningServer, path: str, token: str | None = "ok") -> httpx.Response:
    headers = {"Authorization": f"token {server.token}"} if token else {}
    return httpx.get(server.base + "/files/" + path, headers=headers)


def test_images_inline_text_as_plain_text(server: RunningServer) -> None:
    (server.root / "pics").mkdir(exist_ok=True)
    (server.root / "pics" / "plot one.png").write_bytes(PNG)
    (server.root / "data.csv").write_text("a,b\n1,2\n")
    image = get(server, "pics/plot%20one.png")
    assert image.status_code == 200 and image.content == PNG
    assert image.headers["content-type"] == "image/png"
    assert "content-disposition" not in image.headers
    assert image.headers["x-content-type-options"] == "nosniff"
    text = get(server, "data.csv")
    assert text.status_code == 200 and text.text == "a,b\n1,2\n"
    assert text.headers["content-type"] == "text/plain; charset=utf-8"
    assert text.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in text.headers["content-security-policy"]


def test_the_token_is_required(server: RunningServer) -> None:
    (server.root / "pic.png").write_bytes(PNG)
    assert get(server, "pic.png", token=None).status_code == 403
    assert httpx.get(server.base + "/files/pic.png", headers={"Authorization": "token wrong"}).status_code == 403
    with httpx.Client(base_url=server.base) as client:  # the page's cookie is enough (images in <img>)
        client.get("/", params={"token": server.token})
        assert client.get("/files/pic.png").status_code == 200


@pytest.mark.parametrize("name,body", [("page.html", "<script>alert(1)</script>"), ("page.htm", "<b>x</b>"),
                                       ("app.js", "alert(1)"), ("noext", "<html><script>alert(1)</script>")])
def test_pages_and_scripts_are_downloads(server: RunningServer, name: str, body: str) -> None:
    (server.root / name).write_text(body)
    response = get(server, name)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.headers["content-disposition"].startswith("attachment")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in response.headers["content-security-policy"]


def test_svg_is_sandboxed(server: RunningServer) -> None:
    (server.root / "fig.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    response = get(server, "fig.svg")
    assert response.headers["content-type"] == "image/svg+xml"
    csp = response.headers["content-security-policy"]
    assert csp.startswith("sandbox;") and "allow-scripts" not in csp and "default-src 'none'" in csp


@pytest.mark.parametrize("path", ["../notebooks-secret/secret.ipynb", "%2e%2e/notebooks-secret/secret.ipynb",
                                  "sub/..%2f..%2fnotebooks-secret/secret.ipynb", "%2fetc%2fpasswd"])
def test_traversal_is_refused(server: RunningServer, path: str) -> None:
    response = get(server, path)
    assert response.status_code in (400, 404) and "cells" not in response.text


def test_symlinks_out_of_the_root_and_hidden_files_are_refused(server: RunningServer) -> None:
    link = server.root / "escape.png"
    if not link.exists():
        link.symlink_to(server.root.parent / "notebooks-secret" / "secret.ipynb")
    response = get(server, "escape.png")
    assert response.status_code == 400 and "cells" not in response.text
    (server.root / ".env").write_text("SECRET=1")
    assert get(server, ".env").status_code == 404
    assert get(server, "missing.png").status_code == 404
    (server.root / "folder").mkdir(exist_ok=True)
    assert get(server, "folder").status_code == 404
