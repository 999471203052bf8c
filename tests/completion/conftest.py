"""Fixtures for the completion service: a real tiny GGUF, and a scripted byte-level backend."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ghostbook import protocol as p
from ghostbook.decoding.plan import DecodePlan
from ghostbook.models.backend import BackendInfo, GenStats, TokenOut

from tests.models.conftest import shared_tiny_gguf

SPECIAL = ["<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<fim_pad>"]


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_tiny_gguf(tmp_path_factory)


class ScriptedBackend:
    """A byte-level "model" whose middle is always `heal + script`, one byte per token.

    Real enough for the service's logic (prompt ids, healing, streaming, cancel); the text is known,
    so filters and caches can be checked exactly. It records every prompt it is asked to run.
    """

    def __init__(self, script: str, delay: float = 0.0) -> None:
        self.script = script.encode()
        self.delay = delay
        self.info = BackendInfo("scripted", "", "ghostbook", 4096, 256 + len(SPECIAL))
        self.last_stats = GenStats()
        self.prompts: list[list[int]] = []
        self.params: list[DecodePlan] = []

    def load(self) -> None: ...

    def unload(self) -> None: ...

    def tokenize(self, text: str) -> list[int]:
        return list(text.encode())

    def cached(self, prompt_ids: Sequence[int]) -> int:
        return len(prompt_ids)  # it reads no prompt: never a cold start (`completion.coldstart`)

    def lookup(self, token_text: str) -> int | None:
        return 256 + SPECIAL.index(token_text) if token_text in SPECIAL else None

    def piece(self, token: int) -> bytes:
        return bytes([token]) if token < 256 else b""

    async def stream(self, prompt_ids: Sequence[int], params: DecodePlan,
                     cancel: threading.Event) -> AsyncGenerator[TokenOut, None]:
        self.prompts.append(list(prompt_ids))
        self.params.append(params)
        stats = GenStats(len(prompt_ids))
        for byte in (params.heal + self.script)[: params.max_new_tokens]:
            if cancel.is_set():
                stats.cancelled = True
                break
            await asyncio.sleep(self.delay)
            stats.generated += 1
            yield TokenOut(byte, bytes([byte]))
        self.last_stats = stats


@dataclass
class FakeCell:
    id: str
    cell_type: str
    source: str


def wire_dict(message: p.ServerEvent) -> dict[str, Any]:
    """A message as a tab receives it (validated on the way, as every message in the tests)."""
    return json.loads(p.encode(message))  # type: ignore[no-any-return]


@dataclass
class Outbox:
    """What the service sent, per client."""

    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    broadcasts: list[dict[str, Any]] = field(default_factory=list)

    def send(self, client: str, message: p.ServerEvent) -> None:
        self.sent.append((client, wire_dict(message)))

    def broadcast(self, message: p.ServerEvent, key: str | None = None) -> None:
        self.broadcasts.append(wire_dict(message))

    def of(self, type_: str, ref: str | None = None) -> list[dict[str, Any]]:
        return [m for _, m in self.sent if m["type"] == type_ and (ref is None or m.get("ref") == ref)]
