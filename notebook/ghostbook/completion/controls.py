"""Completion settings and model status for one session: answers `get_settings`/`update_settings`,
starts the model a setting names, and broadcasts `model_status` when it changes (protocol)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ghostbook import protocol as p
from ghostbook.completion.settings import SettingsError, SettingsStore
from ghostbook.models import catalogue
from ghostbook.models.backend import ModelStatus
from ghostbook.models.loader import ModelRegistry

Send = Callable[[str, p.ServerEvent], None]  # (client id, message)
Broadcast = Callable[[p.ServerEvent], None]


class SettingsController:
    """`on_model_change` runs when an update names another model (the suggestion cache is then stale)."""

    def __init__(self, store: SettingsStore, registry: ModelRegistry, send: Send, broadcast: Broadcast,
                 on_model_change: Callable[[], None] = lambda: None) -> None:
        self.store, self.registry = store, registry
        self._send, self._broadcast, self._on_model_change = send, broadcast, on_model_change
        self._unsubscribe = registry.subscribe(self._on_model_status)
        registry.configure_remote(store.current.api_key, store.current.remote_fim)
        registry.configure_local(store.current.device, store.current.speculative, store.current.draft_model)
        if store.current.enabled:
            registry.start(store.current.model)

    def close(self) -> None:
        self._unsubscribe()

    def model_status(self) -> ModelStatus:
        if not self.store.current.enabled:
            return ModelStatus("off", self.registry.status.name, self.registry.status.path)
        return self.registry.status

    def settings_message(self, ref: str | None) -> p.SettingsMessage:
        settings = self.store.current.to_json()
        settings["api_key"] = "********" if settings["api_key"] else ""  # the key stays on the server
        return p.SettingsMessage.model_construct(ref=ref, settings=p.CompletionSettings.model_construct(**settings),
                                                 model=wire_status(self.model_status()))

    async def catalogue_message(self, ref: str | None) -> p.CatalogueMessage:
        """The catalogue (`models.catalogue`), each model marked downloaded or not, and the free RAM."""
        found = await asyncio.to_thread(catalogue.offers)
        free = await asyncio.to_thread(catalogue.available_ram_mb)
        models = [p.CatalogueModel.model_construct(**offer.to_json()) for offer in found]
        return p.CatalogueMessage.model_construct(ref=ref, models=models, free_ram_mb=free,
                       models_dir=str(catalogue.models_dir()))

    def cancel_download(self) -> None:
        self.registry.cancel_download()

    async def update(self, client_id: str, message: p.UpdateSettings) -> None:
        before = self.store.current
        changes = dict(message.settings)
        if changes.get("api_key") == "********":  # the masked key sent back unchanged
            del changes["api_key"]
        try:
            after = await asyncio.to_thread(self.store.update, changes)
        except SettingsError as exc:
            self._send(client_id, p.error_message(f"invalid settings: {exc}", message.ref))
            return
        if after.model != before.model:
            self._on_model_change()
        self.registry.configure_remote(after.api_key, after.remote_fim)
        self.registry.configure_local(after.device, after.speculative, after.draft_model)
        if after.enabled:  # choosing a model that failed (a download) once more tries again
            self.registry.start(after.model, force="model" in changes)
        self._send(client_id, self.settings_message(message.ref))
        if after.enabled != before.enabled:
            self._broadcast(p.ModelStatusEvent.model_construct(model=wire_status(self.model_status())))

    def _on_model_status(self, status: ModelStatus) -> None:
        failed = self.registry.fell_back
        if failed is not None and status.state == "ready" and status.serving == failed[1]:
            # the chosen model failed and the one before serves on: the setting says what serves (the
            # status's message names both), in this session's tabs too
            if self.store.current.model == failed[0]:
                self.store.update({"model": failed[1]})
            self._broadcast(self.settings_message(None))
        self._broadcast(p.ModelStatusEvent.model_construct(model=wire_status(self.model_status())))


def wire_status(status: ModelStatus) -> p.ModelStatus:
    """A model's status as the settings panel gets it."""
    return p.ModelStatus.model_construct(**status.to_json())
