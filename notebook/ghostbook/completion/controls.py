"""Completion settings and model status for one session: answers `get_settings`/`update_settings`,
starts the model a setting names, and broadcasts `model_status` when it changes (protocol)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ghostbook import protocol as p
from ghostbook.completion.settings import SettingsError, SettingsStore
from ghostbook.models.backend import ModelStatus
from ghostbook.models.loader import ModelRegistry

Send = Callable[[str, dict[str, Any]], None]  # (client id, message)
Broadcast = Callable[[dict[str, Any]], None]


class SettingsController:
    """`on_model_change` runs when an update names another model (the suggestion cache is then stale)."""

    def __init__(self, store: SettingsStore, registry: ModelRegistry, send: Send, broadcast: Broadcast,
                 on_model_change: Callable[[], None] = lambda: None) -> None:
        self.store, self.registry = store, registry
        self._send, self._broadcast, self._on_model_change = send, broadcast, on_model_change
        self._unsubscribe = registry.subscribe(self._on_model_status)
        if store.current.enabled:
            registry.start(store.current.model)

    def close(self) -> None:
        self._unsubscribe()

    def model_status(self) -> ModelStatus:
        if not self.store.current.enabled:
            return ModelStatus("off", self.registry.status.name, self.registry.status.path)
        return self.registry.status

    def settings_message(self, ref: str | None) -> dict[str, Any]:
        return p.event("settings", ref=ref, settings=self.store.current.to_json(), model=self.model_status().to_json())

    async def update(self, client_id: str, message: p.UpdateSettings) -> None:
        before = self.store.current
        try:
            after = await asyncio.to_thread(self.store.update, message.settings)
        except SettingsError as exc:
            self._send(client_id, p.error_message(f"invalid settings: {exc}", message.ref))
            return
        if after.model != before.model:
            self._on_model_change()
        if after.enabled:
            self.registry.start(after.model)
        self._send(client_id, self.settings_message(message.ref))
        if after.enabled != before.enabled:
            self._broadcast(p.event("model_status", model=self.model_status().to_json()))

    def _on_model_status(self, status: ModelStatus) -> None:
        self._broadcast(p.event("model_status", model=self.model_status().to_json()))
