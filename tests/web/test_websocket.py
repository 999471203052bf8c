"""The notebook websocket end to end: a real server process, a real kernel, real files."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from tests.conftest import RunningServer
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(90)


def new_notebook(server: RunningServer, name: str) -> str:
    response = httpx.post(server.base + "/api/contents", json={"dir": "", "name": name},
                          headers={"Authorization": f"token {server.token}"})
    assert response.status_code == 201, response.text
    return str(response.json()["path"])


async def run_cell(client: NotebookClient, cell_id: str, source: str) -> list[dict[str, object]]:
    await client.send({"type": "set_source", "cell_id": cell_id, "source": source})
    await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
    await client.expect("cell_state", cell_id=cell_id, state="running")
    await client.wait_idle(cell_id)
    return client.outputs_of(cell_id)


def test_edit_run_and_autosave(server: RunningServer) -> None:
    path = new_notebook(server, "first.ipynb")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        snapshot = await client.expect("snapshot")
        assert snapshot["path"] == path and snapshot["kernel"]["name"] == "python3"
        cell_id = snapshot["notebook"]["cells"][0]["id"]
        outputs = await run_cell(client, cell_id, "print('hello')\n1+1")
        assert outputs == [{"output_type": "stream", "name": "stdout", "text": "hello\n"},
                           {"output_type": "execute_result", "data": {"text/plain": "2"}, "metadata": {},
                            "execution_count": 1}]
        await client.expect("save_status", timeout=5, save={"status": "saved", "message": None})
        await client.close()

    asyncio.run(scenario())
    saved = json.loads((server.root / path).read_text())
    assert "".join(saved["cells"][0]["source"]) == "print('hello')\n1+1"
    assert saved["cells"][0]["execution_count"] == 1
    assert saved["cells"][0]["outputs"][1]["data"]["text/plain"] == ["2"]


def test_malformed_messages_get_errors_and_the_connection_stays(server: RunningServer) -> None:
    path = new_notebook(server, "malformed.ipynb")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        snapshot = await client.expect("snapshot")
        cell_id = snapshot["notebook"]["cells"][0]["id"]
        bad_messages: list[dict[str, object] | str] = [
            "not json at all", "[1, 2]", {"no": "type"}, {"type": "launch_missiles", "ref": "r1"},
            {"type": "insert_cell", "index": -4, "ref": "r2"}, {"type": "set_source", "cell_id": cell_id},
            {"type": "set_source", "cell_id": "../../x", "source": "x"},
            {"type": "set_source", "cell_id": "nope", "source": "x", "ref": "r3"},
            {"type": "delete_cells", "cell_ids": []}, {"type": "stdin_reply", "value": "x", "ref": "r4"},
        ]
        for bad in bad_messages:
            await client.send(bad)
            error = await client.expect("error")
            assert error["message"]
        assert {m.get("ref") for m in client.seen if m["type"] == "error"} >= {"r1", "r2", "r3", "r4"}
        await client.send({"type": "ping", "ref": "alive"})
        assert (await client.expect("pong"))["ref"] == "alive"
        await client.close()

    asyncio.run(scenario())


def test_two_tabs_stay_in_sync_and_a_late_tab_gets_everything(server: RunningServer) -> None:
    path = new_notebook(server, "shared.ipynb")

    async def scenario() -> None:
        one = await NotebookClient.connect(server, path)
        two = await NotebookClient.connect(server, path)
        snap_one, snap_two = await one.expect("snapshot"), await two.expect("snapshot")
        assert snap_one["client_id"] != snap_two["client_id"]
        await one.send({"type": "insert_cell", "index": 1, "cell_id": "added", "source": "import time"})
        inserted = await two.expect("cell_inserted")
        assert inserted["cell"]["id"] == "added" and inserted["origin"] == snap_one["client_id"]
        await one.send({"type": "set_source", "cell_id": "added",
                        "source": "import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.3)"})
        assert (await two.expect("source_set", cell_id="added"))["source"].startswith("import time\nfor")
        await one.send({"type": "execute_cells", "cell_ids": ["added"]})
        await two.expect("cell_state", cell_id="added", state="running")
        await one.close()
        await two.close()  # nobody is watching while the cell prints
        await asyncio.sleep(1.5)
        late = await NotebookClient.connect(server, path)
        snapshot = await late.expect("snapshot")
        cell = next(c for c in snapshot["notebook"]["cells"] if c["id"] == "added")
        assert cell["state"] == "idle" and cell["outputs"][0]["text"] == "0\n1\n2\n"
        await late.close()

    asyncio.run(scenario())


def test_corrupt_notebook_gets_a_fatal_error_and_is_untouched(server: RunningServer) -> None:
    broken = server.root / "broken.ipynb"
    broken.write_text('{"cells": [ this is not json')

    async def scenario() -> dict[str, object]:
        client = await NotebookClient.connect(server, "broken.ipynb")
        return await client.expect("fatal")

    fatal = asyncio.run(scenario())
    assert "not valid JSON" in str(fatal["message"])
    assert broken.read_text() == '{"cells": [ this is not json'


def test_interrupt_and_restart(server: RunningServer) -> None:
    path = new_notebook(server, "loop.ipynb")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell_id = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await run_cell(client, cell_id, "x = 41")
        await client.send({"type": "set_source", "cell_id": cell_id, "source": "while True: pass"})
        await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
        await client.expect("cell_state", cell_id=cell_id, state="running")
        await asyncio.sleep(0.5)
        await client.send({"type": "interrupt_kernel"})
        await client.wait_idle(cell_id)
        assert client.outputs_of(cell_id)[-1]["ename"] == "KeyboardInterrupt"
        assert (await run_cell(client, cell_id, "x + 1"))[0]["data"] == {"text/plain": "42"}
        await client.send({"type": "restart_kernel"})
        await client.expect_kernel("restarting")
        await client.expect_kernel("idle")
        outputs = await run_cell(client, cell_id, "x")
        assert outputs[-1]["ename"] == "NameError"
        await client.close()

    asyncio.run(scenario())


def test_rename_and_delete_follow_open_sessions(server: RunningServer) -> None:
    path = new_notebook(server, "moving.ipynb")
    auth = {"Authorization": f"token {server.token}"}

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell_id = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        renamed = httpx.patch(server.base + "/api/contents", json={"path": path, "new_path": "moved.ipynb"},
                              headers=auth)
        assert renamed.status_code == 200
        await client.expect("notebook_renamed", path="moved.ipynb")  # every tab follows (issue 31.1)
        await client.send({"type": "set_source", "cell_id": cell_id, "source": "after = 'rename'"})
        await client.expect("save_status", timeout=5, save={"status": "saved", "message": None})
        assert "after = 'rename'" in (server.root / "moved.ipynb").read_text()
        assert not (server.root / path).exists()
        # a tab that was away during the rename comes back under the old name: it gets the session
        late = await NotebookClient.connect(server, path)
        assert (await late.expect("snapshot"))["path"] == "moved.ipynb"
        # a move into a folder (here, the folder is renamed afterwards) is followed the same way
        (server.root / "box").mkdir()
        assert httpx.patch(server.base + "/api/contents", json={"path": "moved.ipynb", "new_path": "box/moved.ipynb"},
                           headers=auth).status_code == 200
        await client.expect("notebook_renamed", path="box/moved.ipynb")
        assert httpx.patch(server.base + "/api/contents", json={"path": "box", "new_path": "crate"},
                           headers=auth).status_code == 200
        await late.expect("notebook_renamed", path="crate/moved.ipynb")
        deleted = httpx.delete(server.base + "/api/contents", params={"path": "crate/moved.ipynb"}, headers=auth)
        assert deleted.status_code == 204
        await client.expect("notebook_deleted", path="crate/moved.ipynb")
        await asyncio.sleep(1)
        assert not (server.root / "crate" / "moved.ipynb").exists()  # not resurrected by autosave
        await late.close()

    asyncio.run(scenario())


def test_server_keeps_serving_after_a_file_vanishes(server: RunningServer, tmp_path: Path) -> None:
    response = httpx.get(server.base + "/api/contents", params={"path": "no/such/folder"},
                         headers={"Authorization": f"token {server.token}"})
    assert response.status_code == 404 and response.json()["error"]


def test_intellisense_stdin_and_kernel_death(server: RunningServer) -> None:
    path = new_notebook(server, "kernel-features.ipynb")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell_id = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await client.expect_kernel("idle")
        await client.send({"type": "set_source", "cell_id": cell_id, "source": "import os\nos.pa"})
        await client.send({"type": "complete", "ref": "c1", "cell_id": cell_id, "cursor": 15})
        reply = await client.expect("complete_reply", ref="c1")
        assert "path" in [m.rsplit(".", 1)[-1] for m in reply["matches"]]
        assert reply["cursor_end"] == 15 and len(reply["types"]) == len(reply["matches"])
        await client.send({"type": "set_source", "cell_id": cell_id, "source": "len"})
        await client.send({"type": "inspect", "ref": "i1", "cell_id": cell_id, "cursor": 3})
        inspected = await client.expect("inspect_reply", ref="i1")
        assert inspected["found"] and "Return the number of items" in inspected["data"]["text/plain"]

        await client.send({"type": "set_source", "cell_id": cell_id,
                           "source": "name = input('Who? ')\nprint('hi', name)"})
        await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
        request = await client.expect("stdin_request", cell_id=cell_id)
        assert request["prompt"] == "Who? " and request["password"] is False
        await client.send({"type": "stdin_reply", "value": "Ada"})
        await client.wait_idle(cell_id)
        assert "".join(o.get("text", "") for o in client.outputs_of(cell_id)) == "Who? Ada\nhi Ada\n"

        await client.send({"type": "set_source", "cell_id": cell_id, "source": "import os; os._exit(3)"})
        await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
        dead = await client.expect_kernel("dead", timeout=15)
        assert "3" in dead["kernel"]["reason"]
        if client.latest_state(cell_id) != "idle":
            await client.wait_idle(cell_id)
        assert client.outputs_of(cell_id)[-1]["ename"] == "KernelStopped"
        await client.send({"type": "execute_cells", "cell_ids": [cell_id], "ref": "x"})
        assert "dead" in (await client.expect("error", ref="x"))["message"]
        await client.send({"type": "restart_kernel"})
        await client.expect_kernel("idle")
        await client.send({"type": "set_source", "cell_id": cell_id, "source": "'alive'"})
        await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
        await client.wait_idle(cell_id)
        assert client.outputs_of(cell_id)[0]["data"] == {"text/plain": "'alive'"}
        await client.close()

    asyncio.run(scenario())


def test_switching_kernel_keeps_cells_waiting_for_the_new_one(server: RunningServer) -> None:
    path = new_notebook(server, "switch.ipynb")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell_id = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await client.expect_kernel("idle")
        await client.send({"type": "set_source", "cell_id": cell_id, "source": "import os; os.getpid()"})
        await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
        await client.wait_idle(cell_id)
        first_pid = client.outputs_of(cell_id)[0]["data"]["text/plain"]
        await client.send({"type": "change_kernel", "name": "python3"})
        starting = await client.expect_kernel("starting")
        assert starting["kernel"]["name"] == "python3"
        await client.send({"type": "execute_cells", "cell_ids": [cell_id]})  # runs once the new kernel is up
        await client.wait_idle(cell_id)
        outputs = client.outputs_of(cell_id)
        assert outputs[0]["output_type"] == "execute_result" and outputs[0]["data"]["text/plain"] != first_pid
        assert not [m for m in client.seen if m["type"] == "error"]
        await client.close()

    asyncio.run(scenario())
