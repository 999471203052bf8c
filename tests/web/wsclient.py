"""A small test client for Ghostbook's notebook websocket."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import websockets

from tests.conftest import RunningServer


class NotebookClient:
    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []

    @classmethod
    async def connect(cls, server: RunningServer, path: str) -> NotebookClient:
        url = f"{server.ws_base}/ws?path={path}&token={server.token}"
        ws = await websockets.connect(url, origin=f"http://127.0.0.1:{server.port}", max_size=None)  # type: ignore[arg-type]
        return cls(ws)

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def expect(self, type_: str, timeout: float = 20, where: Callable[[dict[str, Any]], bool] | None = None,
                     **match: Any) -> dict[str, Any]:
        """Read messages until one of `type_` whose fields equal `match` (and satisfies `where`) arrives."""
        async with asyncio.timeout(timeout):
            while True:
                message = json.loads(await self.ws.recv())
                self.seen.append(message)
                if (message["type"] == type_ and all(message.get(k) == v for k, v in match.items())
                        and (where is None or where(message))):
                    return message

    async def expect_kernel(self, status: str, timeout: float = 30) -> dict[str, Any]:
        return await self.expect("kernel_status", timeout, where=lambda m: m["kernel"]["status"] == status)

    async def wait_idle(self, cell_id: str, timeout: float = 30) -> dict[str, Any]:
        return await self.expect("cell_state", timeout, cell_id=cell_id, state="idle")

    def latest_state(self, cell_id: str) -> str | None:
        for message in reversed(self.seen):
            if message["type"] == "cell_state" and message["cell_id"] == cell_id:
                return str(message["state"])
        return None

    def outputs_of(self, cell_id: str) -> list[dict[str, Any]]:
        for message in reversed(self.seen):
            if message["type"] == "cell_outputs" and message["cell_id"] == cell_id:
                return list(message["outputs"])
        return []

    async def close(self) -> None:
        await self.ws.close()
