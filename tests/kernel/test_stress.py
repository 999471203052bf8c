"""Back-to-back requests on one kernel: no reply may be stranded (issue 14.1).

A request sent while a reply is arriving used to swallow the reply's wake-up: the reply sat unread in
the socket, its execution never finished and every later cell stayed queued. This happened within a
few hundred runs when each run is followed at once by a silent namespace refresh, as the session does.
"""

from __future__ import annotations

import asyncio

from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.events import ExecutionFinished, KernelEvent

RUNS = 400
STALL = 10.0  # seconds without an answer that count as a stall (a run takes ~20 ms)


async def test_back_to_back_runs_with_silent_runs_and_completions() -> None:
    finished: asyncio.Queue[ExecutionFinished] = asyncio.Queue()
    background: set[asyncio.Task[object]] = set()

    def on_event(event: KernelEvent) -> None:
        if isinstance(event, ExecutionFinished):
            finished.put_nowait(event)
            # what the session does after every run: refresh the namespace summary, silently
            task = asyncio.get_running_loop().create_task(adapter.run_silent("pass", STALL))
            background.add(task)
            task.add_done_callback(background.discard)

    adapter = KernelAdapter(on_event)
    await adapter.start()
    try:
        last_count = 0
        for i in range(RUNS):
            msg_id = adapter.execute(f"{i} + 1")
            extra = adapter.complete("import os; os.pa", 16) if i % 7 == 0 else adapter.inspect("len", 3)
            async with asyncio.timeout(STALL):
                done = await finished.get()
                assert (await extra)["status"] == "ok"
            assert done.msg_id == msg_id and done.status == "ok", f"run {i}: {done}"
            assert done.execution_count == last_count + 1 or last_count == 0
            last_count = done.execution_count or 0
        async with asyncio.timeout(STALL):
            for result in await asyncio.gather(*background):
                assert isinstance(result, dict) and result["status"] == "ok"
    finally:
        await adapter.shutdown()
