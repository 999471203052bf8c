"""The server-wide model: loaded once, lazily, in a worker thread; status reported as data.

A bad model setting (missing or corrupt file, default not built) puts the registry in state "error"
with a message for the user; completion then answers `suggestion_error` and the notebook keeps working.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from ghostbook.models.backend import Backend, ModelLoadError, ModelStatus
from ghostbook.models.catalog import ModelNotFound, resolve

log = logging.getLogger(__name__)

Listener = Callable[[ModelStatus], None]
BackendFactory = Callable[[Path, str | None, str], Backend]


def default_factory(path: Path, family: str | None, name: str) -> Backend:
    """llama.cpp for a .gguf file, transformers for a model folder."""
    if path.is_dir():
        from ghostbook.models.transformers_backend import TransformersBackend

        return TransformersBackend(path, family=family, name=name)
    from ghostbook.models.llamacpp_backend import LlamaCppBackend

    return LlamaCppBackend(path, family=family, name=name)


def open_backend(path: Path, threads: int | None = None, n_ctx: int | None = None) -> Backend:
    """A loaded backend for a model file or folder outside the registry (eval, benchmarks): llama.cpp
    for a .gguf file (`n_ctx`, capped at what it was trained on), transformers for a model folder."""
    backend: Backend
    if path.is_dir():
        from ghostbook.models.transformers_backend import TransformersBackend

        backend = TransformersBackend(path, threads=threads)
    else:
        from ghostbook.models.llamacpp_backend import LlamaCppBackend

        backend = LlamaCppBackend(path, n_ctx=n_ctx or 2048, threads=threads)
    backend.load()
    return backend


class ModelRegistry:
    """Holds at most one loaded backend, for the current model setting."""

    def __init__(self, factory: BackendFactory = default_factory) -> None:
        self._factory = factory
        self.setting: str | None = None
        self.backend: Backend | None = None
        self.status = ModelStatus("off")
        self._listeners: list[Listener] = []
        self._task: asyncio.Task[None] | None = None
        self.prewarms: set[threading.Event] = set()  # cancel flags of speculative runs: any request stops them

    def cancel_prewarms(self) -> None:
        """A real request is coming: speculative prompt evaluations (of any session) make way."""
        for cancel in list(self.prewarms):
            cancel.set()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _set(self, status: ModelStatus) -> None:
        self.status = status
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:
                log.exception("model status listener failed")

    async def ensure(self, setting: str) -> Backend | None:
        """The backend for `setting`, loading it (once) if needed; None with status "error" on failure."""
        self.start(setting)
        if self._task is not None:
            await asyncio.shield(self._task)
        return self.backend if self.setting == setting and self.status.state == "ready" else None

    def start(self, setting: str) -> None:
        """Begin loading in the background (e.g. when a session opens) without waiting."""
        if setting != self.setting:
            self.setting = setting
            self._set(ModelStatus("loading", setting, None, 0.0, None))
            self._task = asyncio.get_running_loop().create_task(self._load(setting))

    async def _load(self, setting: str) -> None:
        old, self.backend = self.backend, None
        if old is not None:
            await asyncio.to_thread(old.unload)
        try:
            entry, path = resolve(setting)
        except ModelNotFound as exc:
            self._set(ModelStatus("error", setting, None, None, str(exc)))
            return
        name = entry.name if entry else path.name
        self._set(ModelStatus("loading", name, str(path), 0.0, None))  # now with the resolved path
        backend = self._factory(path, entry.family if entry else None, name)
        try:
            await asyncio.to_thread(backend.load)
        except ModelLoadError as exc:
            if self.setting == setting:
                self._set(ModelStatus("error", name, str(path), None, str(exc)))
            return
        except Exception as exc:  # anything else from a native library: still data, not a crash
            log.exception("loading %s failed", path)
            if self.setting == setting:
                self._set(ModelStatus("error", name, str(path), None, f"cannot load {path}: {exc}"))
            return
        if self.setting != setting:  # the setting changed while this one loaded
            await asyncio.to_thread(backend.unload)
            return
        if entry is not None:
            extra = {**backend.info.extra, "code_only": entry.code_only}
            if entry.layout:
                extra["layout"] = entry.layout
            backend.info = dataclasses.replace(backend.info, extra=extra)
        self.backend = backend
        self._set(ModelStatus("ready", name, str(path), 1.0, None))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self.backend is not None:
            backend, self.backend = self.backend, None
            await asyncio.to_thread(backend.unload)
        self.setting = None
        self.status = ModelStatus("off")


_shared: ModelRegistry | None = None


def shared_registry() -> ModelRegistry:
    """The one registry of this server process (the model is shared by all sessions)."""
    global _shared
    if _shared is None:
        _shared = ModelRegistry()
    return _shared
