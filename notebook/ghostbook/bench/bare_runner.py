"""The bare jupyter_client baseline in a process of its own, driven by the round-trip benchmark.

    python -m ghostbook.bench.bare_runner      # JSON lines: commands on stdin, answers on stdout

The child starts a python3 kernel and an async client, says `{"ready": true}`, then answers one JSON
line per command: `{"op": "round", "code": C}` → `{"result": ms, "done": ms}` (as `bare_once`);
`{"op": "run_all", "codes": [...]}` → `{"ms": total}` (each cell sent when the one before is done, as
Ghostbook's queue sends them); `{"op": "quit"}` ends it. Between commands the child blocks reading its
stdin outside its event loop, so during a round nothing else runs in it: the client as it is alone.
`BareProcess` is the parent's side.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager

STALL = 30.0  # seconds one command may take before the parent gives up


async def bare_once(client: AsyncKernelClient, code: str = "1+1") -> tuple[float, float]:
    """One execute request: ms to its execute_result (0 when it has none) and ms to done (the execute_reply
    and the iopub idle both in hand)."""
    t0 = time.perf_counter()
    msg_id = client.execute(code)
    result = idle = 0.0
    while not idle:
        msg = await client.iopub_channel.get_msg()
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "execute_result":
            result = time.perf_counter()
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            idle = time.perf_counter()
    while (await client.shell_channel.get_msg())["parent_header"].get("msg_id") != msg_id:
        pass
    reply = time.perf_counter()
    return (result - t0) * 1000 if result else 0.0, (max(idle, reply) - t0) * 1000


async def run_all(client: AsyncKernelClient, codes: list[str]) -> float:
    """ms to run `codes` one after the other, each sent when the one before is done."""
    t0 = time.perf_counter()
    for code in codes:
        await bare_once(client, code)
    return (time.perf_counter() - t0) * 1000


def answer(loop: asyncio.AbstractEventLoop, client: AsyncKernelClient, command: dict[str, Any]) -> dict[str, Any]:
    if command["op"] == "round":
        result, done = loop.run_until_complete(bare_once(client, command.get("code", "1+1")))
        return {"result": result, "done": done}
    if command["op"] == "run_all":
        return {"ms": loop.run_until_complete(run_all(client, list(command["codes"])))}
    return {"error": f"unknown op {command['op']!r}"}


def child_main() -> int:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    km = AsyncKernelManager(kernel_name="python3")
    loop.run_until_complete(km.start_kernel())
    client = km.client()
    client.start_channels(hb=False, control=False)
    try:
        loop.run_until_complete(client.wait_for_ready(timeout=60))
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:  # blocks here, outside the loop, between commands
            command = json.loads(line)
            if command["op"] == "quit":
                break
            print(json.dumps(answer(loop, client, command)), flush=True)
    finally:
        client.stop_channels()
        loop.run_until_complete(km.shutdown_kernel(now=True))
        loop.close()
    return 0


class BareProcess:
    """The parent's side: `await BareProcess.start()`, then `round()` / `run_all()`, then `close()`."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        return self._process.pid

    @classmethod
    async def start(cls, timeout: float = 90.0) -> BareProcess:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "ghostbook.bench.bare_runner",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        bare = cls(process)
        try:
            ready = await bare._read(timeout)
        except BaseException:
            await bare.close()
            raise
        if not ready.get("ready"):
            await bare.close()
            raise RuntimeError(f"the bare runner did not start: {ready}")
        return bare

    async def _read(self, timeout: float = STALL) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = await asyncio.wait_for(self._process.stdout.readline(), timeout)
        if not line:
            raise RuntimeError("the bare runner exited")
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def _ask(self, command: dict[str, Any], timeout: float = STALL) -> dict[str, Any]:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(command).encode() + b"\n")
        await self._process.stdin.drain()
        return await self._read(timeout)

    async def round(self, code: str = "1+1") -> tuple[float, float]:
        """One round in the child: (ms to result, ms to done)."""
        answer = await self._ask({"op": "round", "code": code})
        return float(answer["result"]), float(answer["done"])

    async def run_all(self, codes: list[str], timeout: float = 120.0) -> float:
        """ms for the child to run `codes` one after the other."""
        return float((await self._ask({"op": "run_all", "codes": codes}, timeout))["ms"])

    async def close(self) -> None:
        if self._process.returncode is None and self._process.stdin is not None:
            try:
                self._process.stdin.write(b'{"op": "quit"}\n')
                self._process.stdin.close()
                await asyncio.wait_for(self._process.wait(), 15)
            except (TimeoutError, OSError):
                self._process.kill()
                await self._process.wait()


if __name__ == "__main__":
    raise SystemExit(child_main())
