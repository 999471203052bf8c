"""The server-wide model: loaded once, lazily, in a worker thread; status reported as data.

A bad model setting (missing or corrupt file, default not built) puts the registry in state "error"
with a message for the user; completion then answers `suggestion_error` and the notebook keeps working.
A new setting loads beside the model serving now: requests (`ModelRegistry.for_request`) keep getting
that one until the new one is ready and replaces it; if the new one fails, the old one goes on serving
and the status says so ("ready", its message naming both; `fell_back`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ghostbook.models import specs
from ghostbook.models.backend import Backend, ModelLoadError, ModelStatus
from ghostbook.models.catalog import CatalogEntry, ModelNotFound, resolve
from ghostbook.models.catalogue import available_ram_mb, check_ram, hub_offer, ram_needed_mb
from ghostbook.models.download import DownloadError, cached_file, download
from ghostbook.models.load_progress import transformers_weights
from ghostbook.models.remote import remote_backend
from ghostbook.models.templates import TemplateError

log = logging.getLogger(__name__)

Listener = Callable[[ModelStatus], None]
BackendFactory = Callable[[Path, str | None, str], Backend]
RemoteFactory = Callable[[str, str, str, str], Any]  # (kind, url, key, family) -> a server client with load()


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


EDIT_CTX = 4096  # an edit model's context: the cell, its rewrite, the instructions and the cells around


def edit_factory(path: Path, family: str | None, name: str) -> Backend:
    """An edit (chat) model: as `default_factory`, but FIM tokens are not required, and a GGUF gets a
    context for a whole cell's rewrite."""
    if path.is_dir():
        backend = default_factory(path, family, name)
    else:
        from ghostbook.models.llamacpp_backend import LlamaCppBackend

        backend = LlamaCppBackend(path, family=family, name=name, n_ctx=EDIT_CTX)
    backend.needs_fim = False  # type: ignore[attr-defined]
    return backend


def open_edit_backend(path: Path, threads: int | None = None, device: str | None = None) -> Backend:
    """A loaded edit (chat) model outside the registry (tests, `bench edits`): as the editor loads it
    (`edit_factory`: no FIM tokens needed, a GGUF with `EDIT_CTX`, capped at what it was trained on)."""
    backend: Backend
    if path.is_dir():
        from ghostbook.models.transformers_backend import TransformersBackend

        backend = TransformersBackend(path, threads=threads, device=device)
    else:
        from ghostbook.models.llamacpp_backend import LlamaCppBackend

        backend = LlamaCppBackend(path, n_ctx=EDIT_CTX, threads=threads)
    backend.needs_fim = False  # type: ignore[attr-defined]
    backend.load()
    return backend


def chat_server(kind: str, url: str, key: str, family: str) -> Any:
    """An edit model's server: `/v1/chat/completions` of an openai: or llamacpp: server."""
    from ghostbook.models.remote_chat import ChatServer

    return ChatServer(kind, url, key)  # type: ignore[arg-type]


class ModelRegistry:
    """Holds the backend serving now (`backend`, loaded for the setting `serving`) and, while the setting
    changes, loads the next one beside it (`remote` connects to servers: FIM completions for the
    completion model, chat for the edit model). `setting` is the one asked for last."""

    def __init__(self, factory: BackendFactory = default_factory, remote: RemoteFactory = remote_backend) -> None:
        self._factory = factory
        self._remote = remote
        self.setting: str | None = None
        self.backend: Backend | None = None
        self.serving: str | None = None  # the setting `backend` was loaded for
        self._serving_name = ""
        self._serving_path: str | None = None
        self._stale = False  # options changed since `backend` loaded: the same setting loads again
        self.fell_back: tuple[str, str] | None = None  # (the setting that failed, the one still serving)
        self.status = ModelStatus("off")
        self._listeners: list[Listener] = []
        self._task: asyncio.Task[None] | None = None
        self.prewarms: set[threading.Event] = set()  # cancel flags of speculative runs: any request stops them
        self.remote_options: tuple[str, str] = ("", "")  # (API key, FIM form) for openai:/llamacpp: servers
        self.local_options: tuple[str, bool, str] = ("auto", True, "")  # (device, speculative, draft model)
        self._download_cancel: threading.Event | None = None
        self.progress_every_s = 0.1  # load progress is broadcast at most this often
        self._loop: asyncio.AbstractEventLoop | None = None

    def cancel_prewarms(self) -> None:
        """A real request is coming: speculative prompt evaluations (of any session) make way."""
        for cancel in list(self.prewarms):
            cancel.set()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _set(self, status: ModelStatus) -> None:
        if self.backend is not None and self.serving is not None:
            status = dataclasses.replace(status, serving=self.serving, serving_name=self._serving_name)
        self.status = status
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:
                log.exception("model status listener failed")

    async def ensure(self, setting: str) -> Backend | None:
        """The backend for `setting`, loading it (once) if needed; None on failure (status "error", or
        "ready" for the model still serving)."""
        self.start(setting)
        if self._task is not None:
            await asyncio.shield(self._task)
        ready = self.status.state == "ready" and self.serving == setting and not self._stale
        return self.backend if self.setting == setting and ready else None

    async def for_request(self, setting: str) -> Backend | None:
        """The backend to answer a request for `setting` now: its own once loaded; while it downloads or
        loads, and after it failed, the one that served before (with none, its own, waited for); None
        when none can serve."""
        self.start(setting)
        if self.backend is None and self._task is not None:
            await asyncio.shield(self._task)
        return self.backend

    def start(self, setting: str, force: bool = False) -> None:
        """Begin loading in the background (e.g. when a session opens) without waiting; `force`: again,
        after an error (a failed download chosen once more). The model serving now goes on serving
        until the new one is ready; the setting it serves is ready at once."""
        if setting != self.setting or (force and self.status.state == "error"):
            self.setting, self.fell_back = setting, None
            self.cancel_download()
            if setting == self.serving and self.backend is not None and not self._stale:
                self._task = None  # a load in flight finds the setting changed and drops what it loaded
                self._set(ModelStatus("ready", self._serving_name, self._serving_path, 1.0, None))
                return
            self._set(ModelStatus("loading", setting, None, 0.0, None))
            self._task = asyncio.get_running_loop().create_task(self._load(setting))

    def configure_remote(self, key: str, family: str) -> None:
        """The API key and FIM form for remote servers; a change reconnects the current remote model."""
        if (key, family) != self.remote_options:
            self.remote_options = (key, family)
            if self.setting is not None and self.setting.split(":", 1)[0] in ("openai", "llamacpp"):
                self.setting, self._stale = None, True  # the next start() connects again

    def configure_local(self, device: str, speculative: bool, draft: str = "") -> None:
        """In-process models: the `device` and `draft` model of a transformers model (a change loads it
        again) and whether greedy drafts speculatively (applied at once)."""
        if (device, draft) != self.local_options[::2] and self.setting is not None and \
                hasattr(self.backend, "device"):
            self.setting, self._stale = None, True  # the next start() loads it with the new options
        self.local_options = (device, speculative, draft)
        if self.backend is not None and hasattr(self.backend, "speculative"):
            self.backend.speculative = speculative

    def cancel_download(self) -> None:
        """Stop the download in progress (the status becomes an error saying so)."""
        if self._download_cancel is not None:
            self._download_cancel.set()

    def _set_soon(self, status: ModelStatus) -> None:
        """`_set` from a worker thread: on the event loop, and only while the same setting is current."""
        setting = self.setting

        def apply() -> None:
            if self.setting == setting and self.status.state in ("downloading", "loading"):
                self._set(status)

        if self._loop is None:
            return
        try:
            self._loop.call_soon_threadsafe(apply)
        except RuntimeError:  # the loop is closed
            pass

    async def _serve(self, setting: str, backend: Backend, status: ModelStatus) -> None:
        """`backend` (loaded for `setting`) serves from now on; the one it replaces is unloaded (its
        background reading stopped first) before the status says the switch is done."""
        old, self.backend, self.serving, self._stale = self.backend, backend, setting, False
        self._serving_name, self._serving_path = status.name, status.path
        if old is not None and old is not backend:
            self.cancel_prewarms()  # prompts read for the model going away
            await asyncio.to_thread(old.unload)
        self._set(status)

    def _fail(self, setting: str, error: ModelStatus) -> None:
        """`setting` could not be loaded (`error`): the model serving before goes on serving, and the
        status ("ready", for it) says what failed; with none, the status is `error`."""
        if self.setting != setting:
            return
        if self.backend is None or self.serving is None:
            self._set(error)
            return
        failed = error.name or setting
        kept = "the built-in model" if self.serving == "default" else self._serving_name or self.serving
        reason = (error.message or "it failed").rstrip(". ")
        self.setting, self.fell_back = self.serving, (setting, self.serving)
        self._set(ModelStatus("ready", self._serving_name, self._serving_path, 1.0,
                              f"Could not load {failed}: {reason}. Still using {kept}; pick another model or retry."))

    async def _make_room(self, name: str, needed_mb: float) -> None:
        """Refuse (ModelLoadError) a model that does not fit in RAM; one that fits only without the model
        serving now gets its memory (that one stops serving first)."""
        free = await asyncio.to_thread(available_ram_mb)
        if free is None or needed_mb <= free or self.backend is None:
            check_ram(name, needed_mb, free)
            return
        check_ram(name, needed_mb, free + await asyncio.to_thread(_ram_held, self.backend))
        old, self.backend, self.serving = self.backend, None, None
        await asyncio.to_thread(old.unload)

    async def _load(self, setting: str) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            spec = specs.parse(setting)
        except specs.SpecError as exc:
            self._fail(setting, ModelStatus("error", setting, None, None, str(exc)))
            return
        if spec.remote:
            await self._connect(setting, spec)
            return
        entry: CatalogEntry | None = None
        family: str | None = None
        if spec.kind in ("hf_file", "hf_repo"):
            downloaded = await self._download(setting, spec)
            if downloaded is None:
                return
            path, name = downloaded, spec.label
            offer = hub_offer(spec.repo, spec.filename)
            family = offer.family if offer is not None else None
        else:
            try:
                entry, path = resolve(setting)
            except ModelNotFound as exc:
                self._fail(setting, ModelStatus("error", setting, None, None, str(exc)))
                return
            name = entry.name if entry else path.name
            family = entry.family if entry else None
        self._set(ModelStatus("loading", name, str(path), 0.0, None))  # now with the resolved path
        backend = self._factory(path, family, name)
        report = self._throttled(lambda x: ModelStatus("loading", name, str(path), x, None))
        if hasattr(backend, "on_progress"):  # llama.cpp's own load callback
            backend.on_progress = report
        if hasattr(backend, "device") and hasattr(backend, "draft_path"):  # transformers: device, draft model
            backend.device = self.local_options[0]
            backend.draft_path = Path(self.local_options[2]) if self.local_options[2] else None
        if hasattr(backend, "speculative"):
            backend.speculative = self.local_options[1]

        def load() -> None:
            if path.is_dir():  # transformers: its weights loop
                with transformers_weights(report):
                    backend.load()
            else:
                backend.load()

        try:
            needed = entry.ram_mb if entry is not None and entry.ram_mb else ram_needed_mb(path)
            await self._make_room(name, needed or 0)
            await asyncio.to_thread(load)
        except ModelLoadError as exc:
            self._fail(setting, ModelStatus("error", name, str(path), None, str(exc)))
            return
        except Exception as exc:  # anything else from a native library: still data, not a crash
            log.exception("loading %s failed", path)
            self._fail(setting, ModelStatus("error", name, str(path), None, f"cannot load {path}: {exc}"))
            return
        if self.setting != setting:  # the setting changed while this one loaded
            await asyncio.to_thread(backend.unload)
            return
        if entry is not None:
            extra = {**backend.info.extra, "code_only": entry.code_only}
            if entry.layout:
                extra["layout"] = entry.layout
            backend.info = dataclasses.replace(backend.info, extra=extra)
        await self._serve(setting, backend, ModelStatus("ready", name, str(path), 1.0, None))

    def _throttled(self, make: Callable[[float], ModelStatus]) -> Callable[[float], None]:
        last = [0.0]

        def report(progress: float) -> None:
            now = time.monotonic()
            if now - last[0] >= self.progress_every_s or progress >= 1.0:
                last[0] = now
                self._set_soon(make(progress))

        return report

    async def _download(self, setting: str, spec: specs.Spec) -> Path | None:
        """The hub file or repo in the HF cache (downloaded with progress if missing); None after an error."""
        name = spec.label
        cancel = self._download_cancel = threading.Event()

        def report(done: int, total: int | None) -> None:
            self._set_soon(ModelStatus("downloading", name, None, done / total if total else None, None, done, total))

        if not spec.filename or await asyncio.to_thread(cached_file, spec.repo, spec.filename) is None:
            self._set(ModelStatus("downloading", name, None, None, "connecting to the hub…"))
        try:
            path = await asyncio.to_thread(download, spec.repo, spec.filename or None, report, cancel)
        except DownloadError as exc:
            self._fail(setting, ModelStatus("error", name, None, None, str(exc)))
            return None
        finally:
            if self._download_cancel is cancel:
                self._download_cancel = None
        if self.setting != setting:
            return None
        if path.is_file():
            from ghostbook.models.llamacpp_backend import check_gguf

            try:
                check_gguf(path)
            except ModelLoadError:
                self._fail(setting, ModelStatus("error", name, str(path), None, f"the downloaded file is corrupt "
                                                f"(not a GGUF file): delete {path} (or `hf cache delete`) and "
                                                "choose the model again"))
                return None
        return path

    async def _connect(self, setting: str, spec: specs.Spec) -> None:
        key, family = self.remote_options
        self._set(ModelStatus("loading", spec.text, spec.url, None, None))
        try:
            backend = self._remote(spec.kind, spec.url, key, family)
            await asyncio.to_thread(backend.load)
        except (ModelLoadError, TemplateError) as exc:
            self._fail(setting, ModelStatus("error", spec.text, spec.url, None, str(exc)))
            return
        if self.setting == setting:
            await self._serve(setting, backend, ModelStatus("ready", spec.text, spec.url, 1.0, None))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self.setting = self.serving = self.fell_back = None
        if self.backend is not None:
            backend, self.backend = self.backend, None
            await asyncio.to_thread(backend.unload)
        self.status = ModelStatus("off")

    async def clear(self) -> None:
        """No model chosen: unload the current one; the status becomes "off"."""
        if self._task is not None:
            self._task.cancel()
        self.cancel_download()
        self.setting = self.serving = self.fell_back = None
        if self.backend is not None:
            backend, self.backend = self.backend, None
            await asyncio.to_thread(backend.unload)
        self._set(ModelStatus("off"))


def _ram_held(backend: Backend) -> float:
    """RAM (MB) a loaded backend holds: its model file's or folder's need; none for a server's client."""
    path = Path(backend.info.path or "-")
    return ram_needed_mb(path) if path.is_file() or (path / "config.json").is_file() else 0.0


_shared: ModelRegistry | None = None
_shared_edit: ModelRegistry | None = None


def shared_registry() -> ModelRegistry:
    """The one registry of this server process (the model is shared by all sessions)."""
    global _shared
    if _shared is None:
        _shared = ModelRegistry()
    return _shared


def shared_edit_registry() -> ModelRegistry:
    """The edit model's registry (Edit with AI): a chat or instruct model, beside the completion model."""
    global _shared_edit
    if _shared_edit is None:
        _shared_edit = ModelRegistry(edit_factory, remote=chat_server)
    return _shared_edit
