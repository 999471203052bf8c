"""A tab that reads nothing must not make the server hold memory without bound (issue 14.6).

A real server process and kernel; the stalled tab is a raw socket that completes the websocket
handshake with a tiny receive buffer and then never reads, as a frozen browser tab does. The
server's resident memory is read from /proc while cells print to it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.conftest import RunningServer
from tests.web.test_websocket import new_notebook
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(120)
MB = 1024 * 1024


def rss(pid: int) -> int:
    """Resident memory of a process in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def stalled_tab(server: RunningServer, path: str) -> socket.socket:
    """Open the notebook's websocket and read only the handshake's response headers."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws?path={quote(path)}&token={server.token} HTTP/1.1\r\n"
                  f"Host: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  f"Origin: http://127.0.0.1:{server.port}\r\n\r\n").encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def read_frames(sock: socket.socket, timeout: float,
                until: Callable[[dict[str, Any]], bool] | None = None) -> list[tuple[int, bytes]]:
    """Read (opcode, payload) server frames until a close frame, EOF, `timeout`, or a text
    frame whose message satisfies `until`."""
    sock.settimeout(timeout)
    buffer = b""
    frames: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(1 << 20)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        buffer += chunk
        while len(buffer) >= 2:
            length, at = buffer[1] & 0x7F, 2
            header = {126: 4, 127: 10}.get(length, 2)
            if len(buffer) < header:  # a read that ended inside the frame's header
                break
            if length == 126:
                length, at = struct.unpack("!H", buffer[2:4])[0], 4
            elif length == 127:
                length, at = struct.unpack("!Q", buffer[2:10])[0], 10
            if len(buffer) < at + length:
                break
            frames.append((buffer[0] & 0x0F, buffer[at:at + length]))
            buffer = buffer[at + length:]
            if frames[-1][0] == 8 or (until is not None and frames[-1][0] == 1
                                      and until(json.loads(frames[-1][1]))):
                return frames
    return frames


async def run_and_wait(client: NotebookClient, cell_id: str, source: str, timeout: float = 60) -> None:
    await client.send({"type": "set_source", "cell_id": cell_id, "source": source})
    await client.send({"type": "execute_cells", "cell_ids": [cell_id]})
    await client.expect("cell_state", cell_id=cell_id, state="running", timeout=timeout)
    await client.wait_idle(cell_id, timeout=timeout)


async def ready_notebook(server: RunningServer, name: str) -> tuple[NotebookClient, str, str]:
    """A notebook whose kernel is idle, with a reading tab; returns (tab, path, first cell id)."""
    path = new_notebook(server, name)
    client = await NotebookClient.connect(server, path)
    snapshot = await client.expect("snapshot")
    if snapshot["kernel"]["status"] != "idle":
        await client.expect_kernel("idle")
    cell_id = snapshot["notebook"]["cells"][0]["id"]
    await run_and_wait(client, cell_id, "1")  # warm: the first run imports what later runs use
    return client, path, cell_id


RICH_OUTPUTS = """\
import time
from IPython.display import HTML, display
for i in range(120):
    display(HTML(f"<p>{i}</p>" + "x" * 20_000))
    time.sleep(0.06)
"""

PRINTS = """\
import sys, time
for i in range(600):
    print(i, "o" * 2000)
    print(i, "e" * 2000, file=sys.stderr)
    time.sleep(0.02)
"""


@pytest.mark.parametrize("name, code", [("rich", RICH_OUTPUTS), ("prints", PRINTS)])
def test_a_stalled_tab_holds_little_memory(server: RunningServer, name: str, code: str) -> None:
    """120 rich outputs of 20 KB (each update carries the cell's whole output list), or 12 s of
    printing on two streams: the server grows by at most 20 MB while a tab reads nothing, and a
    reading tab still gets every output."""

    async def scenario() -> None:
        client, path, cell_id = await ready_notebook(server, f"stalled-{name}.ipynb")
        stalled = stalled_tab(server, path)
        try:
            await asyncio.sleep(0.5)
            before = rss(server.process.pid)
            await run_and_wait(client, cell_id, code)
            await asyncio.sleep(0.3)
            grown = rss(server.process.pid) - before
            print(f"{name}: server RSS grew by {grown / MB:.1f} MB")
            assert grown <= 20 * MB, f"server RSS grew by {grown / MB:.1f} MB with a stalled tab"
            outputs = client.outputs_of(cell_id)
            if name == "rich":
                assert len(outputs) == 120 and "<p>119</p>" in outputs[-1]["data"]["text/html"]
            else:
                for stream in ("stdout", "stderr"):
                    text = "".join(o["text"] for o in outputs if o["name"] == stream)
                    assert text.rstrip().splitlines()[-1].startswith("599 ")
            # The stalled tab was kept (only superseded output lists were dropped): once it reads,
            # it gets the cell's latest outputs, not a close.
            last = next(m for m in reversed(client.seen) if m["type"] == "cell_outputs")
            frames = await asyncio.to_thread(read_frames, stalled, 30, lambda m: m == last)
            assert frames[-1][0] == 1 and json.loads(frames[-1][1]) == last
            assert sum(len(f[1]) for f in frames) < 20 * MB
        finally:
            stalled.close()
            await client.close()

    asyncio.run(scenario())


def test_a_tab_still_too_far_behind_is_dropped_and_resyncs(server: RunningServer) -> None:
    """Outputs of several cells (no update supersedes another) pile up past the byte limit: the
    stalled tab is closed with 1013 and its memory is freed; a reconnect gets a full snapshot."""

    async def scenario() -> None:
        client, path, first = await ready_notebook(server, "dropped.ipynb")
        ids = [first]
        for i in range(3):
            ids.append(f"big{i}")
            await client.send({"type": "insert_cell", "index": i + 1, "cell_type": "code", "cell_id": ids[-1],
                               "source": ""})
            await client.expect("cell_inserted", where=lambda m: m["cell"]["id"] == ids[-1])
        stalled = stalled_tab(server, path)
        try:
            await asyncio.sleep(0.5)
            before = rss(server.process.pid)
            for n, cell_id in enumerate(ids):  # 4 cells x 6 MB: more than the 16 MB a tab may lag
                await run_and_wait(client, cell_id, f"display({{'text/plain': '{n}' * 6_000_000}}, raw=True)")
            await asyncio.sleep(0.5)
            grown = rss(server.process.pid) - before
            frames = await asyncio.to_thread(read_frames, stalled, 20)
            assert frames and frames[-1][0] == 8, "the stalled tab was not closed"
            assert struct.unpack("!H", frames[-1][1][:2])[0] == 1013
            print(f"dropped: server RSS grew by {grown / MB:.1f} MB")
            again = await NotebookClient.connect(server, path)
            snapshot = await again.expect("snapshot")
            cells = snapshot["notebook"]["cells"]
            assert [c["outputs"][0]["data"]["text/plain"][:1] for c in cells] == ["0", "1", "2", "3"]
            await again.close()
        finally:
            stalled.close()
            await client.close()

    asyncio.run(scenario())


def test_one_output_list_bigger_than_the_limit_does_not_drop_a_tab(server: RunningServer) -> None:
    """A tab behind by one huge output list (bigger than the byte limit) plus a few small messages
    is kept: the limit is twice the largest message, else such a cell would drop every tab."""

    async def scenario() -> None:
        client, path, first = await ready_notebook(server, "huge.ipynb")
        await client.send({"type": "insert_cell", "index": 1, "cell_type": "code", "cell_id": "huge", "source": ""})
        await client.expect("cell_inserted", where=lambda m: m["cell"]["id"] == "huge")
        stalled = stalled_tab(server, path)
        try:
            await asyncio.sleep(0.5)
            # 5 MB fill what the connection buffers, then 17 MB wait in the queue, then small messages
            await run_and_wait(client, first, "display({'text/plain': 'f' * 5_000_000}, raw=True)")
            await run_and_wait(client, "huge", "display({'text/plain': 'h' * 17_000_000}, raw=True)")
            await run_and_wait(client, first, "print('after')")
            last = next(m for m in reversed(client.seen) if m["type"] == "cell_outputs")
            frames = await asyncio.to_thread(read_frames, stalled, 30, lambda m: m == last)
            assert frames[-1][0] == 1, "the tab was dropped"
            huge = [json.loads(f[1]) for f in frames if f[0] == 1 and b'"cell_id":"huge"' in f[1][:200]]
            assert any(m["type"] == "cell_outputs" and len(m["outputs"][0]["data"]["text/plain"]) == 17_000_000
                       for m in huge)
        finally:
            stalled.close()
            await client.close()

    asyncio.run(scenario())
