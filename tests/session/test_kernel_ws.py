"""Kernel trouble through the websocket, on a server of its own whose log is read at the end (issue 14.4,
14.5, 14.12): Interrupt while starting is refused and spares the kernel, a killed kernel's cell says
what happened, Interrupt on a dead kernel answers a clear error, Restart brings it back; no traceback."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import httpx
import pytest

from tests.conftest import start_server, stop_server
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(120)


async def run(client: NotebookClient, cell_id: str, source: str) -> list[dict[str, object]]:
    await client.send({"type": "set_source", "cell_id": cell_id, "source": source})
    await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
    await client.expect("cell_state", cell_id=cell_id, state="running")
    await client.wait_idle(cell_id)
    return client.outputs_of(cell_id)


def test_interrupt_restart_and_death_reasons(tmp_path: Path) -> None:
    server = start_server(tmp_path)
    try:
        auth = {"Authorization": f"token {server.token}"}
        path = httpx.post(server.base + "/api/contents", json={"dir": ""}, headers=auth).json()["path"]

        async def scenario() -> None:
            client = await NotebookClient.connect(server, path)
            snapshot = await client.expect("snapshot")
            cell_id = snapshot["notebook"]["cells"][0]["id"]
            assert snapshot["kernel"]["status"] == "starting"
            await client.send({"type": "interrupt_kernel", "ref": "early"})
            refused = await client.expect("error", ref="early")
            assert "starting" in refused["message"]
            await client.expect_kernel("idle")
            pid = int(str((await run(client, cell_id, "import os; os.getpid()"))[0]["data"]["text/plain"]))  # type: ignore[index]

            await client.send({"type": "set_source", "cell_id": cell_id, "source": "import time; time.sleep(60)"})
            await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
            await client.expect("cell_state", cell_id=cell_id, state="running")
            await asyncio.sleep(0.3)
            os.kill(pid, signal.SIGKILL)
            dead = await client.expect_kernel("dead", timeout=10)
            assert dead["kernel"]["reason"].startswith("killed by signal 9 (SIGKILL)")
            if client.latest_state(cell_id) != "idle":
                await client.wait_idle(cell_id)
            error = client.outputs_of(cell_id)[-1]
            assert error["evalue"].startswith("The kernel died: killed by signal 9 (SIGKILL)")

            await client.send({"type": "interrupt_kernel", "ref": "dead"})
            assert "the kernel is dead" in (await client.expect("error", ref="dead"))["message"]
            await client.send({"type": "restart_kernel"})
            await client.expect_kernel("idle", timeout=30)
            assert (await run(client, cell_id, "'back'"))[0]["data"] == {"text/plain": "'back'"}
            await client.close()

        asyncio.run(scenario())
    finally:
        log = stop_server(server)
    assert "Traceback" not in log, log
