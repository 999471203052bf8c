"""Export, download and upload routes against a real server process: auth, Origin, path rules, headers."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import RunningServer, start_server
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(120)


def client(server: RunningServer, origin: bool = True) -> httpx.Client:
    headers = {"Authorization": f"token {server.token}"}
    if origin:
        headers["Origin"] = f"http://127.0.0.1:{server.port}"
    return httpx.Client(base_url=server.base, headers=headers, timeout=60)


def write(root: Path, name: str, source: str) -> None:
    (root / name).write_text(json.dumps({
        "cells": [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# Hello"},
                  {"cell_type": "code", "id": "c1", "metadata": {}, "source": source, "outputs": [],
                   "execution_count": None}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_export_a_closed_notebook_in_each_format(server: RunningServer) -> None:
    write(server.root, "Café notes.ipynb", "x = 1")
    with client(server) as http:
        py = http.get("/api/export", params={"path": "Café notes.ipynb", "to": "py"})
        assert py.status_code == 200, py.text
        assert py.text == "# %% [markdown]\n# # Hello\n\n# %%\nx = 1\n"
        assert py.headers["content-disposition"] == \
            "attachment; filename=\"Caf? notes.py\"; filename*=UTF-8''Caf%C3%A9%20notes.py"
        assert py.headers["x-content-type-options"] == "nosniff"
        html = http.get("/api/export", params={"path": "Café notes.ipynb", "to": "html"})
        assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
        assert "<title>Café notes</title>" in html.text and "Hello<a" in html.text, re.findall("<title.*", html.text)
        nb = http.get("/api/export", params={"path": "Café notes.ipynb"})  # ipynb by default
        assert json.loads(nb.text)["cells"][1]["source"] == ["x = 1"]
        assert http.get("/api/export", params={"path": "Café notes.ipynb", "to": "docx"}).status_code == 400
        assert http.get("/api/export", params={"path": "nope.ipynb", "to": "py"}).status_code == 404
        assert http.get("/api/export", params={"path": "../x.ipynb", "to": "py"}).json()["error"] == \
            "'..' is not allowed in paths"
    assert httpx.get(server.base + "/api/export", params={"path": "Café notes.ipynb"}).status_code == 403


def test_export_of_an_open_notebook_has_its_unsaved_edits(server: RunningServer) -> None:
    write(server.root, "open.ipynb", "before = 1")

    async def scenario() -> str:
        ws = await NotebookClient.connect(server, "open.ipynb")
        await ws.expect("snapshot")
        await ws.send({"type": "set_source", "cell_id": "c1", "source": "after = 2"})
        await ws.send({"type": "ping", "ref": "p"})
        await ws.expect("pong", ref="p")  # the edit is applied; the autosave has not run yet
        with client(server) as http:
            text = http.get("/api/export", params={"path": "open.ipynb", "to": "py"}).text
        await ws.close()
        return text

    assert "after = 2" in asyncio.run(scenario())


def test_download_any_file_inside_the_root_only(server: RunningServer, tmp_path: Path) -> None:
    (server.root / "data").mkdir(exist_ok=True)
    (server.root / "data" / "table.csv").write_text("a,b\n1,2\n")
    (server.root / "page.html").write_text("<script>alert(1)</script>")
    (server.root / ".env").write_text("SECRET=1")
    os.symlink(server.root.parent / "notebooks-secret" / "secret.ipynb", server.root / "leak.ipynb")
    with client(server) as http:
        csv = http.get("/api/files", params={"path": "data/table.csv"})
        assert csv.status_code == 200 and csv.text == "a,b\n1,2\n"
        assert csv.headers["content-disposition"] == 'attachment; filename="table.csv"'
        assert csv.headers["x-content-type-options"] == "nosniff"
        page = http.get("/api/files", params={"path": "page.html"})
        assert page.headers["content-disposition"].startswith("attachment") and \
            page.headers["content-security-policy"] == "sandbox"
        for bad, status in [("../notebooks-secret/secret.ipynb", 404), ("leak.ipynb", 404), (".env", 404),
                            ("data", 404), ("missing.txt", 404)]:
            response = http.get("/api/files", params={"path": bad})
            assert response.status_code == status, bad
        assert "outside" in http.get("/api/files", params={"path": "leak.ipynb"}).json()["error"]
    assert httpx.get(server.base + "/api/files", params={"path": "data/table.csv"}).status_code == 403


def test_upload_writes_a_new_file_and_refuses_bad_ones(server: RunningServer) -> None:
    with client(server) as http:
        made = http.put("/api/files", params={"path": "up/one.bin"}, content=b"\x00\x01")
        assert made.status_code == 400 and "no such folder" in made.json()["error"]
        (server.root / "up").mkdir()
        made = http.put("/api/files", params={"path": "up/one.bin"}, content=b"\x00\x01")
        assert made.status_code == 201 and made.json() == {"path": "up/one.bin"}
        assert (server.root / "up" / "one.bin").read_bytes() == b"\x00\x01"
        again = http.put("/api/files", params={"path": "up/one.bin"}, content=b"other")
        assert again.status_code == 400 and "already exists" in again.json()["error"]
        assert (server.root / "up" / "one.bin").read_bytes() == b"\x00\x01"
        for bad in ["../escape.txt", "up/.hidden", "up/../../x.txt", ".git/config"]:
            assert http.put("/api/files", params={"path": bad}, content=b"x").status_code == 400, bad
        listing = http.get("/api/contents", params={"path": "up"}).json()["entries"]
        assert [(e["name"], e["type"]) for e in listing] == [("one.bin", "file")]
    assert not list((server.root / "up").glob(".~upload*"))
    with client(server, origin=False) as http:
        foreign = http.put("/api/files", params={"path": "up/two.bin"}, content=b"x",
                           headers={"Origin": "http://evil.example.com"})
        assert foreign.status_code == 403
    assert not (server.root / "up" / "two.bin").exists()


@pytest.fixture(scope="module")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    from ghostbook.bench.server import stop_server

    root = tmp_path_factory.mktemp("small")
    running = start_server(root, extra=("--max-upload-mb", "0.01"))
    yield running
    stop_server(running)


def test_too_large_upload_gets_a_clear_error(small_server: RunningServer) -> None:
    with client(small_server) as http:
        response = http.put("/api/files", params={"path": "big.csv"}, content=b"x" * 20_000)
        assert response.status_code == 413
        assert response.json()["error"] == ("big.csv is too large: uploads are limited to 10 KB "
                                             "(start ghostbook with --max-upload-mb to change it)")

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            yield from (b"y" * 4096 for _ in range(5))

        streamed = http.put("/api/files", params={"path": "big2.csv"}, content=chunks())
        assert streamed.status_code == 413
        assert http.put("/api/files", params={"path": "small.csv"}, content=b"ok").status_code == 201
    assert sorted(p.name for p in small_server.root.iterdir()) == ["small.csv"]
