"""Baseline for the round-trip benchmark: `1+1` through a bare jupyter_client AsyncKernelClient,
and the same through Ghostbook's KernelAdapter, for comparison.

    ghostbook bench kernel [N]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager

from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.events import ExecutionFinished, KernelEvent

WARMUP = 5


async def bare_execute_once(client: AsyncKernelClient, code: str = "1+1") -> float:
    """One execute → execute_result → (reply and iopub idle) round trip, in ms."""
    t0 = time.perf_counter()
    msg_id = client.execute(code)
    got_result = got_idle = False
    while not (got_result and got_idle):
        msg = await client.iopub_channel.get_msg()
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "execute_result":
            got_result = True
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            got_idle = True
    while True:
        reply = await client.shell_channel.get_msg()
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    return (time.perf_counter() - t0) * 1000


async def bare_roundtrip_ms(n: int) -> list[float]:
    """Start a python3 kernel, time `n` `1+1` round trips with a bare client (after a warm-up)."""
    km = AsyncKernelManager(kernel_name="python3")
    await km.start_kernel()
    client = km.client()
    client.start_channels(hb=False, control=False)
    try:
        await client.wait_for_ready(timeout=60)
        for _ in range(WARMUP):
            await bare_execute_once(client)
        return [await bare_execute_once(client) for _ in range(n)]
    finally:
        client.stop_channels()
        await km.shutdown_kernel(now=True)


async def adapter_roundtrip_ms(n: int) -> list[float]:
    """The same measurement through KernelAdapter: execute() → ExecutionFinished event."""
    finished: asyncio.Queue[str] = asyncio.Queue()

    def on_event(event: KernelEvent) -> None:
        if isinstance(event, ExecutionFinished):
            finished.put_nowait(event.msg_id)

    adapter = KernelAdapter(on_event)
    await adapter.start()
    try:
        times = []
        for i in range(WARMUP + n):
            t0 = time.perf_counter()
            msg_id = adapter.execute("1+1")
            while await finished.get() != msg_id:
                pass
            if i >= WARMUP:
                times.append((time.perf_counter() - t0) * 1000)
        return times
    finally:
        await adapter.shutdown()


async def interleaved_ms(n: int) -> tuple[list[float], list[float]]:
    """Bare and adapter round trips alternated one by one (fair under a noisy machine load)."""
    km = AsyncKernelManager(kernel_name="python3")
    await km.start_kernel()
    client = km.client()
    client.start_channels(hb=False, control=False)
    finished: asyncio.Queue[str] = asyncio.Queue()
    adapter = KernelAdapter(lambda e: finished.put_nowait(e.msg_id) if isinstance(e, ExecutionFinished) else None)
    await adapter.start()
    bare: list[float] = []
    ours: list[float] = []
    try:
        await client.wait_for_ready(timeout=60)
        for i in range(WARMUP + n):
            b = await bare_execute_once(client)
            t0 = time.perf_counter()
            msg_id = adapter.execute("1+1")
            while await finished.get() != msg_id:
                pass
            if i >= WARMUP:
                bare.append(b)
                ours.append((time.perf_counter() - t0) * 1000)
        return bare, ours
    finally:
        await adapter.shutdown()
        client.stop_channels()
        await km.shutdown_kernel(now=True)


async def _main(n: int) -> None:
    bare, ours = await interleaved_ms(n)
    for name, times in (("bare", bare), ("adapter", ours)):
        print(f"{name:8s} median {statistics.median(times):6.2f} ms  min {min(times):6.2f} ms  n={n}")
    print(f"ratio    {statistics.median(ours) / statistics.median(bare):.2f}")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    asyncio.run(_main(int(args[0]) if args else 200))
    return 0
