"""Round trip of a trivial cell (`1+1`) through Ghostbook's websocket vs a bare jupyter_client call.

    .venv/bin/ghostbook bench roundtrip [--n 200] [--print-lines 200000]

Starts a Ghostbook server (its own process, as a user runs it) and a bare python3 kernel, then
alternates rounds between them so that both see the same machine load, and prints medians, p95
and the ratio. "result" is the moment the execute_result is in hand (ws: the cell_outputs message that
carries it); "done" is the moment the cell is known to be finished (ws: cell_state idle; bare:
execute_reply and iopub idle). A second part times a tight print loop through the server and reports
the server's memory before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import websockets
from jupyter_client.manager import AsyncKernelManager
from websockets.typing import Origin

from ghostbook.bench.server import start_server, stop_server

STALL = 30.0  # seconds one round may take before the benchmark gives up (a round takes ~10 ms)


class Stalled(RuntimeError):
    """A round never finished: reported instead of hanging."""


async def bare_once(client: object) -> tuple[float, float]:
    t0 = time.perf_counter()
    msg_id = client.execute("1+1")  # type: ignore[attr-defined]
    result = idle = reply = 0.0
    while not (result and idle):
        msg = await client.iopub_channel.get_msg()  # type: ignore[attr-defined]
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "execute_result":
            result = time.perf_counter()
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            idle = time.perf_counter()
    while (await client.shell_channel.get_msg())["parent_header"].get("msg_id") != msg_id:  # type: ignore[attr-defined]
        pass
    reply = time.perf_counter()
    return (result - t0) * 1000, (max(idle, reply) - t0) * 1000


async def ws_once(ws: websockets.ClientConnection, cell_id: str, limit: float = STALL) -> tuple[float, float]:
    t0 = time.perf_counter()
    await ws.send(json.dumps({"type": "execute_cells", "cell_ids": [cell_id]}))
    result = 0.0
    try:
        async with asyncio.timeout(limit):
            while True:
                message = json.loads(await ws.recv())
                if (message["type"] == "cell_outputs" and message["cell_id"] == cell_id
                        and any(o.get("output_type") == "execute_result" for o in message["outputs"])):
                    result = time.perf_counter()
                elif message["type"] == "cell_state" and message["cell_id"] == cell_id and message["state"] == "idle":
                    return (result - t0) * 1000, (time.perf_counter() - t0) * 1000
    except TimeoutError:
        raise Stalled(f"the cell did not finish within {limit:.0f} s (stalled queue)") from None


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def summary(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


async def main_async(n: int, print_lines: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="gb-bench-"))
    server = start_server(root)
    km = AsyncKernelManager(kernel_name="python3")
    try:
        auth = {"Authorization": f"token {server.token}"}
        path = httpx.post(server.base + "/api/contents", json={"dir": ""}, headers=auth).json()["path"]
        url = f"{server.ws_base}/ws?path={path}&token={server.token}"
        async with websockets.connect(url, origin=Origin(server.base), max_size=None) as ws:
            snapshot = json.loads(await ws.recv())
            cell_id = snapshot["notebook"]["cells"][0]["id"]
            await ws.send(json.dumps({"type": "set_source", "cell_id": cell_id, "source": "1+1"}))
            await km.start_kernel()
            client = km.client()
            client.start_channels()
            await client.wait_for_ready(timeout=60)
            await ws_once(ws, cell_id, limit=60)  # queued until Ghostbook's kernel is up
            bare: list[tuple[float, float]] = []
            ours: list[tuple[float, float]] = []
            for i in range(n + 10):
                b = await asyncio.wait_for(bare_once(client), STALL)
                try:
                    o = await ws_once(ws, cell_id)
                except Stalled as exc:
                    raise SystemExit(f"round {i}: {exc}") from None
                if i >= 10:  # warm-up
                    bare.append(b)
                    ours.append(o)
            print(f"1+1 round trip, {n} rounds each, alternating (ms)")
            print(f"{'':28}{'median':>9}{'p95':>9}")
            for label, index in (("result", 0), ("done", 1)):
                b_med, b_p95 = summary([x[index] for x in bare])
                o_med, o_p95 = summary([x[index] for x in ours])
                print(f"{'bare jupyter_client ' + label:28}{b_med:9.2f}{b_p95:9.2f}")
                print(f"{'ghostbook websocket ' + label:28}{o_med:9.2f}{o_p95:9.2f}")
                print(f"{'ratio ' + label:28}{o_med / b_med:9.2f}{o_p95 / b_p95:9.2f}   (goal: median <= 1.5)")
            client.stop_channels()

            before = rss_mb(server.process.pid)
            code = f"for i in range({print_lines}):\n    print(i)"
            await ws.send(json.dumps({"type": "set_source", "cell_id": cell_id, "source": code}))
            t0 = time.perf_counter()
            frames = await ws_once(ws, cell_id)
            after = rss_mb(server.process.pid)
            print(f"\nprint loop of {print_lines:,} lines: {frames[1] / 1000:.2f} s to done; "
                  f"server RSS {before:.0f} MB -> {after:.0f} MB")
            del t0
    finally:
        await km.shutdown_kernel(now=True)
        stop_server(server)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ghostbook bench roundtrip", description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--print-lines", type=int, default=200_000)
    args = parser.parse_args(argv)
    asyncio.run(main_async(args.n, args.print_lines))
    return 0
