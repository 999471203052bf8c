"""Round trip of a trivial cell (`1+1`) through Ghostbook's websocket vs a bare jupyter_client call.

    .venv/bin/ghostbook bench roundtrip [--n 200] [--cells 100] [--runs 5] [--page] [--print-lines 200000]

Starts a Ghostbook server (its own process, as a user runs it, with a fresh config: the default settings)
and two bare python3 kernels: one driven by a client in a process of its own (`bare_runner`: the client
alone) and one by a client in this process, interleaved with the websocket client on the same event loop.
Rounds alternate between the three (in rotating order) so that all see the same machine load; medians,
p95 and the ratio against the faster bare client are printed. "result" is the moment the execute_result
is in hand (ws: the first cell_outputs message that carries it); "done" is the moment the cell is known to be
finished (ws: cell_state idle; bare: execute_reply and iopub idle). Then a tight print loop through the
server, with the server's memory before and after.

Then a notebook of `--cells` trivial cells: opening it (websocket connect → snapshot received and parsed;
the first open reads the file, later ones find the session open; with `--page`, Chromium's navigation
start → the notebook painted, as `bench collab` times it) and "run all" (`execute_cells` with every id →
the last cell idle) against the bare client running the same cells in its own process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import websockets
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from websockets.typing import Origin

from ghostbook.bench.bare_runner import BareProcess, bare_once
from ghostbook.bench.server import RunningServer, start_server, stop_server

STALL = 30.0  # seconds one round may take before the benchmark gives up (a round takes ~10 ms)
WARMUP = 10


class Stalled(RuntimeError):
    """A round never finished: reported instead of hanging."""


async def ws_once(ws: websockets.ClientConnection, cell_id: str, limit: float = STALL) -> tuple[float, float]:
    t0 = time.perf_counter()
    await ws.send(json.dumps({"type": "execute_cells", "cell_ids": [cell_id]}))
    result = 0.0
    try:
        async with asyncio.timeout(limit):
            while True:
                message = json.loads(await ws.recv())
                if (not result and message["type"] == "cell_outputs" and message["cell_id"] == cell_id
                        and any(o.get("output_type") == "execute_result" for o in message["outputs"])):
                    result = time.perf_counter()
                elif message["type"] == "cell_state" and message["cell_id"] == cell_id and message["state"] == "idle":
                    return (result - t0) * 1000, (time.perf_counter() - t0) * 1000
    except TimeoutError:
        raise Stalled(f"the cell did not finish within {limit:.0f} s (stalled queue)") from None


async def ws_run_all(ws: websockets.ClientConnection, cell_ids: list[str], limit: float = 120.0) -> float:
    """ms from `execute_cells` with every id to the last cell idle."""
    t0 = time.perf_counter()
    await ws.send(json.dumps({"type": "execute_cells", "cell_ids": cell_ids}))
    last = cell_ids[-1]
    try:
        async with asyncio.timeout(limit):
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "cell_state" and message["cell_id"] == last and message["state"] == "idle":
                    return (time.perf_counter() - t0) * 1000
    except TimeoutError:
        raise Stalled(f"run all did not finish within {limit:.0f} s") from None


async def ws_open(url: str, origin: str) -> float:
    """ms from connecting to the snapshot received and parsed."""
    t0 = time.perf_counter()
    async with websockets.connect(url, origin=Origin(origin), max_size=None) as ws:
        snapshot = json.loads(await ws.recv())
        elapsed = (time.perf_counter() - t0) * 1000
        if snapshot.get("type") != "snapshot":
            raise RuntimeError(f"expected a snapshot, got {snapshot.get('type')}")
    return elapsed


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) process `pid` has used so far, ms; NaN once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The child processes of `pid` (its kernels)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(child) for child in task.read_text().split()]
    return found


class CpuMeter:
    """CPU used by a process and its children (as they are at the start) between `start()` and `per(n)`."""

    def __init__(self, pid: int) -> None:
        self.pids = [pid, *children(pid)]
        self._start = [0.0] * len(self.pids)

    def start(self) -> None:
        self._start = [cpu_ms(pid) for pid in self.pids]

    def per(self, n: int) -> tuple[float, float]:
        """(the process, its children) CPU ms per one of `n` rounds since `start()`."""
        used = [cpu_ms(pid) - start for pid, start in zip(self.pids, self._start, strict=True)]
        return used[0] / n, sum(used[1:]) / n


def summary(values: Sequence[float]) -> tuple[float, float]:
    """(median, p95) of `values`; p95 by nearest rank (the ceil(0.95 n)-th smallest)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    return statistics.median(ordered), ordered[max(math.ceil(0.95 * len(ordered)) - 1, 0)]


def rotated(items: Sequence[Any], i: int) -> list[Any]:
    """`items` starting at index i mod len: the order of round i, so that no side always goes first."""
    k = i % len(items)
    return [*items[k:], *items[:k]]


def trivial_notebook(path: Path, cells: int) -> list[str]:
    """Write a notebook of `cells` trivial code cells (`i + 1`); their codes."""
    codes = [f"{i} + 1" for i in range(cells)]
    notebook = {"cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": code, "outputs": [],
                           "execution_count": None} for i, code in enumerate(codes)],
                "nbformat": 4, "nbformat_minor": 5,
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}
    path.write_text(json.dumps(notebook, indent=1))
    return codes


def table(title: str, rows: list[tuple[str, Sequence[float]]], ratio_to: Sequence[float] | None = None) -> None:
    """Print median and p95 of each row; with `ratio_to`, each row's ratio to it."""
    print(title)
    print(f"{'':38}{'median':>9}{'p95':>9}")
    for label, values in rows:
        med, p95 = summary(values)
        print(f"{label:38}{med:9.2f}{p95:9.2f}")
    if ratio_to is not None:
        b_med, b_p95 = summary(ratio_to)
        med, p95 = summary(rows[-1][1])
        print(f"{'ratio (vs the faster bare)':38}{med / b_med:9.2f}{p95 / b_p95:9.2f}   (goal: median <= 1.5)")


def faster(*samples: list[float]) -> list[float]:
    """Of several samples, the one with the lowest median."""
    return min(samples, key=statistics.median)


async def one_cell(server: RunningServer, bare: BareProcess, client: AsyncKernelClient, n: int,
                   print_lines: int) -> None:
    auth = {"Authorization": f"token {server.token}"}
    path = httpx.post(server.base + "/api/contents", json={"dir": ""}, headers=auth).json()["path"]
    url = f"{server.ws_base}/ws?path={path}&token={server.token}"
    async with websockets.connect(url, origin=Origin(server.base), max_size=None) as ws:
        snapshot = json.loads(await ws.recv())
        cell_id = snapshot["notebook"]["cells"][0]["id"]
        await ws.send(json.dumps({"type": "set_source", "cell_id": cell_id, "source": "1+1"}))
        await ws_once(ws, cell_id, limit=90)  # queued until Ghostbook's kernel is up

        async def ours() -> tuple[float, float]:
            try:
                return await ws_once(ws, cell_id)
            except Stalled as exc:
                raise SystemExit(f"websocket round: {exc}") from None

        async def interleaved() -> tuple[float, float]:
            return await asyncio.wait_for(bare_once(client), STALL)

        sides = {"own": bare.round, "interleaved": interleaved, "ws": ours}
        got: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        meters = {"ws": CpuMeter(server.process.pid), "own": CpuMeter(bare.pid)}
        for i in range(n + WARMUP):
            if i == WARMUP:
                for meter in meters.values():
                    meter.start()
            for name in rotated(list(sides), i):
                sample = await sides[name]()
                if i >= WARMUP:
                    got[name].append(sample)
        cpu = {name: meter.per(n) for name, meter in meters.items()}
        print(f"1+1 round trip, {n} rounds each, alternating (ms)")
        for label, index in (("result", 0), ("done", 1)):
            own, inter, ws_ = ([x[index] for x in got[name]] for name in ("own", "interleaved", "ws"))
            table("", [(f"bare jupyter_client {label}, own process", own),
                       (f"bare jupyter_client {label}, interleaved", inter),
                       (f"ghostbook websocket {label}", ws_)], ratio_to=faster(own, inter))
        print(f"\nCPU per round (ms): ghostbook server {cpu['ws'][0]:.2f}, its kernel {cpu['ws'][1]:.2f}; "
              f"bare client (own process) {cpu['own'][0]:.2f}, its kernel {cpu['own'][1]:.2f}")

        await print_loop(server, ws, cell_id, print_lines)


async def print_loop(server: RunningServer, ws: websockets.ClientConnection, cell_id: str, print_lines: int) -> None:
    before = rss_mb(server.process.pid)
    code = f"for i in range({print_lines}):\n    print(i)"
    await ws.send(json.dumps({"type": "set_source", "cell_id": cell_id, "source": code}))
    frames = await ws_once(ws, cell_id, limit=300)
    after = rss_mb(server.process.pid)
    print(f"\nprint loop of {print_lines:,} lines: {frames[1] / 1000:.2f} s to done; "
          f"server RSS {before:.0f} MB -> {after:.0f} MB")


async def many_cells(server: RunningServer, bare: BareProcess, cells: int, runs: int) -> str:
    """Open and run all of a notebook of `cells` trivial cells; return its name."""
    name = f"cells-{cells}.ipynb"
    codes = trivial_notebook(server.root / name, cells)
    ids = [f"c{i}" for i in range(cells)]
    url = f"{server.ws_base}/ws?path={name}&token={server.token}"
    file_ms = 0.0
    for _ in range(runs):  # the floor: reading the file and parsing it, in this process
        t0 = time.perf_counter()
        json.loads((server.root / name).read_bytes())
        file_ms = min(file_ms or 1e9, (time.perf_counter() - t0) * 1000)
    cold = await ws_open(url, server.base)
    async with websockets.connect(url, origin=Origin(server.base), max_size=None) as ws:
        await ws.recv()
        await ws_run_all(ws, ids, limit=180)  # waits for the kernel; warms both up
        await bare.run_all(codes)
        warm = [await ws_open(url, server.base) for _ in range(runs)]  # now with 100 outputs
        ours: list[float] = []
        theirs: list[float] = []
        meters = {"ws": CpuMeter(server.process.pid), "bare": CpuMeter(bare.pid)}
        for meter in meters.values():
            meter.start()
        for r in range(runs):
            for side in rotated(["ws", "bare"], r):
                if side == "ws":
                    ours.append(await ws_run_all(ws, ids))
                else:
                    theirs.append(await bare.run_all(codes))
        cpu = {name: meter.per(runs * cells) for name, meter in meters.items()}
    print(f"\nA notebook of {cells} trivial cells, {runs} runs (ms)")
    print(f"{'open, first (the session starts)':38}{cold:9.2f}")
    table("", [(f"open, session open, {cells} outputs", warm)])
    print(f"{'  (read + json.loads of the file)':38}{file_ms:9.2f}")
    table("", [("bare jupyter_client run all, own proc.", theirs), ("ghostbook websocket run all", ours)],
          ratio_to=theirs)
    print(f"\nCPU per cell (ms): ghostbook server {cpu['ws'][0]:.2f}, its kernel {cpu['ws'][1]:.2f}; "
          f"bare client (own process) {cpu['bare'][0]:.2f}, its kernel {cpu['bare'][1]:.2f}")
    return name


def page_open(server: RunningServer, name: str, cells: int, runs: int) -> None:
    """Chromium: navigation start to the notebook painted (bench collab's `open_ms`)."""
    from playwright.sync_api import sync_playwright

    from ghostbook.bench.collab import CHROMIUM, CHROMIUM_ARGS
    from ghostbook.bench.collab_pages import HELPERS_JS, open_ms

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(script=HELPERS_JS)
            page = context.new_page()
            page.goto(f"{server.base}/?token={server.token}")  # the cookie, and the bundle in the cache
            page.close()
            url = f"{server.base}/notebooks/{name}"
            head = f"{cells - 1} + 1"
            open_ms(context, url, cells, head)  # warm-up
            times = [open_ms(context, url, cells, head) for _ in range(runs)]
        finally:
            browser.close()
    table(f"\nChromium: navigation start to the {cells}-cell notebook painted, {runs} runs (ms)",
          [("page open, session open", times)])


async def parts(server: RunningServer, n: int, cells: int, runs: int, print_lines: int) -> str | None:
    bare = await BareProcess.start()
    km = AsyncKernelManager(kernel_name="python3")
    try:
        await km.start_kernel()
        client = km.client()
        client.start_channels(hb=False, control=False)
        try:
            await client.wait_for_ready(timeout=60)
            if n:
                await one_cell(server, bare, client, n, print_lines)
        finally:
            client.stop_channels()
        return await many_cells(server, bare, cells, runs) if cells else None
    finally:
        await bare.close()
        await km.shutdown_kernel(now=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ghostbook bench roundtrip", description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="1+1 rounds (0: skip)")
    parser.add_argument("--cells", type=int, default=100, help="cells of the run-all notebook (0: skip)")
    parser.add_argument("--runs", type=int, default=5, help="opens and run-alls of that notebook")
    parser.add_argument("--page", action="store_true", help="also time opening it in Chromium")
    parser.add_argument("--no-completion", action="store_true", help="the server with completion off")
    parser.add_argument("--print-lines", type=int, default=200_000)
    parser.add_argument("--server-pythonpath", metavar="PATH",
                        help="the server imports ghostbook from here (another tree's notebook:kernels folders)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gb-bench-") as tmp:
        base = Path(tmp)
        (base / "config" / "ghostbook").mkdir(parents=True)
        (base / "root").mkdir()
        if args.no_completion:
            (base / "config" / "ghostbook" / "settings.json").write_text(
                json.dumps({"completion": {"enabled": False}}))
        env = {"XDG_CONFIG_HOME": str(base / "config"), "GHOSTBOOK_TELEMETRY": "off"}
        if args.server_pythonpath:
            env["PYTHONPATH"] = args.server_pythonpath
        server = start_server(base / "root", env=env)
        try:
            name = asyncio.run(parts(server, args.n, args.cells, args.runs, args.print_lines))
            if args.page and name is not None:
                page_open(server, name, args.cells, args.runs)
        finally:
            stop_server(server)
    return 0
