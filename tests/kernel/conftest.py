"""Shared helpers for the kernel adapter tests (real ipykernel, no mocks)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest_asyncio
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.events import ExecutionFinished, KernelEvent, Output, StatusChanged


class Recorder:
    """Collects adapter events and lets a test wait for one that matches."""

    def __init__(self) -> None:
        self.events: list[KernelEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, event: KernelEvent) -> None:
        self.events.append(event)
        self._changed.set()

    async def wait_for(self, pred: Callable[[KernelEvent], bool], seconds: float = 15) -> KernelEvent:
        async with asyncio.timeout(seconds):
            while True:
                for event in self.events:
                    if pred(event):
                        return event
                self._changed.clear()
                await self._changed.wait()

    async def finished(self, msg_id: str, seconds: float = 15) -> ExecutionFinished:
        event = await self.wait_for(lambda e: isinstance(e, ExecutionFinished) and e.msg_id == msg_id, seconds)
        assert isinstance(event, ExecutionFinished)
        return event

    async def state(self, state: str, seconds: float = 15) -> StatusChanged:
        event = await self.wait_for(lambda e: isinstance(e, StatusChanged) and e.state == state, seconds)
        assert isinstance(event, StatusChanged)
        return event

    def outputs(self, msg_id: str) -> list[Output]:
        return [e for e in self.events if isinstance(e, Output) and e.msg_id == msg_id]

    def states(self) -> list[str]:
        return [e.state for e in self.events if isinstance(e, StatusChanged)]

    def stdout(self, msg_id: str) -> str:
        return "".join(
            o.content["text"] for o in self.outputs(msg_id) if o.msg_type == "stream" and o.content["name"] == "stdout"
        )


@pytest_asyncio.fixture
async def fresh() -> AsyncIterator[tuple[KernelAdapter, Recorder]]:
    """A kernel of its own, for tests that kill or restart it."""
    rec = Recorder()
    adapter = KernelAdapter(rec)
    await adapter.start()
    try:
        yield adapter, rec
    finally:
        await adapter.shutdown()
