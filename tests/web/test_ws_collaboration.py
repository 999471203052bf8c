"""Collaboration through the real server's websocket (`session.collaboration`): each "tab" is a pycrdt
document fed by `y_update`s, as the browser's Yjs one is. Typing reaches the other tabs and the file;
`set_source` from a script is the smallest change, so typing at the same moment survives it; a bad
update is refused without harm; presence is passed on and dropped when a tab leaves."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from ghostbook.collab.shared_text import SOURCES
from pycrdt import Doc, Map, Text

from tests.conftest import RunningServer
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(120)


class Tab:
    """A websocket client with its copy of the notebook's texts."""

    def __init__(self, client: NotebookClient, snapshot: dict[str, Any]) -> None:
        self.client = client
        self.doc: Doc = Doc()
        self.doc.apply_update(base64.b64decode(snapshot["text"]["update"]))
        self.cell_ids = [cell["id"] for cell in snapshot["notebook"]["cells"]]

    @classmethod
    async def open(cls, server: RunningServer, path: str) -> Tab:
        client = await NotebookClient.connect(server, path)
        return cls(client, await client.expect("snapshot"))

    def text(self, cell_id: str) -> str:
        value = self.doc.get(SOURCES, type=Map)[cell_id]
        assert isinstance(value, Text)
        return str(value)

    def edit(self, cell_id: str, at: int, text: str) -> dict[str, Any]:
        """Type here; the message that tells the server (not sent yet)."""
        before = self.doc.get_state()
        value = self.doc.get(SOURCES, type=Map)[cell_id]
        assert isinstance(value, Text)
        value.insert(at, text)
        update = base64.b64encode(self.doc.get_update(before)).decode()
        return {"type": "y_update", "update": update, "cell_id": cell_id, "cursor": at + len(text)}

    async def type(self, cell_id: str, at: int, text: str) -> None:
        await self.client.send(self.edit(cell_id, at, text))

    async def hear(self, **match: Any) -> dict[str, Any]:
        message = await self.client.expect("y_update", **match)
        self.doc.apply_update(base64.b64decode(message["update"]))
        return message


def new_notebook(server: RunningServer, source: str) -> str:
    auth = {"Authorization": f"token {server.token}"}
    path = str(httpx.post(server.base + "/api/contents", json={"dir": ""}, headers=auth).json()["path"])
    nb = {"cells": [{"cell_type": "code", "id": "c1", "source": source, "metadata": {}, "outputs": [],
                     "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (server.root / path).write_text(json.dumps(nb))
    return path


def saved_source(root: Path, path: str) -> str:
    return "".join(json.loads((root / path).read_text())["cells"][0]["source"])


def test_typing_reaches_the_other_tab_and_the_file(server: RunningServer) -> None:
    path = new_notebook(server, "x = 1")

    async def scenario() -> None:
        a, b = await Tab.open(server, path), await Tab.open(server, path)
        await a.type("c1", 5, "0")
        heard = await b.hear()
        assert heard["origin"] is not None and b.text("c1") == "x = 10"
        await a.client.send({"type": "save", "ref": "s"})
        await a.client.expect("save_status", where=lambda m: m["save"]["status"] == "saved")
        assert saved_source(server.root, path) == "x = 10"
        await a.client.close()
        await b.client.close()

    asyncio.run(scenario())


def test_set_source_is_the_smallest_change_so_concurrent_typing_survives(server: RunningServer) -> None:
    path = new_notebook(server, "a = 1\nb = 2\n")

    async def scenario() -> None:
        tab, script = await Tab.open(server, path), await NotebookClient.connect(server, path)
        await script.expect("snapshot")
        typed = tab.edit("c1", 5, "00")  # typed at the same moment: on its way while the script's applies
        await script.send({"type": "set_source", "cell_id": "c1", "source": "a = 1\nb = 20\n"})
        await tab.hear(origin=None)  # the server's own change (the set_source), as a splice
        await tab.client.send(typed)
        assert tab.text("c1") == "a = 100\nb = 20\n"
        await tab.client.send({"type": "ping", "ref": "p"})
        await tab.client.expect("pong", ref="p")
        again = await Tab.open(server, path)
        assert again.text("c1") == "a = 100\nb = 20\n"  # both, each in its place (a whole replace would not)
        await again.client.close()
        await script.close()
        await tab.client.close()

    asyncio.run(scenario())


def test_a_malformed_update_gets_an_error_and_the_server_serves_on(server: RunningServer) -> None:
    path = new_notebook(server, "keep")

    async def scenario() -> None:
        tab = await Tab.open(server, path)
        await tab.client.send({"type": "y_update", "ref": "bad", "update": base64.b64encode(b"\x05\x01junk").decode()})
        assert "could not be applied" in (await tab.client.expect("error", ref="bad"))["message"]
        await tab.client.send({"type": "y_update", "ref": "bad64", "update": "QUJ"})  # no padding
        assert "not base64" in (await tab.client.expect("error", ref="bad64"))["message"]
        await tab.type("c1", 4, "!")
        await tab.client.send({"type": "ping", "ref": "p"})
        await tab.client.expect("pong", ref="p")
        again = await Tab.open(server, path)
        assert again.text("c1") == "keep!"
        await again.client.close()
        await tab.client.close()

    asyncio.run(scenario())


def test_presence_is_passed_on_and_dropped_when_a_tab_leaves(server: RunningServer) -> None:
    path = new_notebook(server, "")

    async def scenario() -> None:
        a, b = await Tab.open(server, path), await Tab.open(server, path)
        await a.client.send({"type": "awareness", "update": "AQID", "y_client": 42})
        assert (await b.client.expect("awareness"))["update"] == "AQID"
        late = await NotebookClient.connect(server, path)  # a tab opened later hears of A at once
        await late.expect("snapshot")
        assert (await late.expect("awareness"))["update"] == "AQID"
        await a.client.close()
        assert (await b.client.expect("presence_left"))["y_client"] == 42
        await late.close()
        await b.client.close()

    asyncio.run(scenario())


def test_a_client_reading_the_shared_texts_gets_each_source_once(server: RunningServer) -> None:
    path = new_notebook(server, "x = 1\n" * 1000)

    async def scenario() -> None:
        url = f"{server.ws_base}/ws?path={path}&token={server.token}&texts=shared"
        ws = await websockets.connect(url, origin=f"http://127.0.0.1:{server.port}", max_size=None)
        client = NotebookClient(ws)
        snapshot = await client.expect("snapshot")
        assert snapshot["notebook"]["cells"][0]["source"] == ""
        assert snapshot["text"]["update"] is None  # the state is the next frame, as bytes (no base64)
        state = await ws.recv()
        assert isinstance(state, bytes)
        browser = Tab(client, {**snapshot, "text": {"update": base64.b64encode(state).decode()}})
        assert browser.text("c1") == "x = 1\n" * 1000  # from the shared texts only
        await client.send({"type": "ping", "ref": "p"})
        assert (await client.expect("pong"))["ref"] == "p"  # and the socket goes on as ever
        script = await NotebookClient.connect(server, path)
        assert (await script.expect("snapshot"))["notebook"]["cells"][0]["source"] == "x = 1\n" * 1000
        await script.close()
        await ws.close()

    asyncio.run(scenario())
