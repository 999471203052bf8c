"""Hub downloads through huggingface_hub: the standard HF cache, HF_TOKEN for gated repos, HF_ENDPOINT /
HF_HUB_OFFLINE / HF_HUB_CACHE / HF_HOME honoured (read at each call, so a server started with them, or
a test that sets them, gets them). Progress comes as (done, total)
bytes at most every `every_s` and at least every HEARTBEAT_S; setting `cancel` stops the download at
its next chunk. A dropped connection is resumed where it broke (huggingface_hub retries with a Range
request); huggingface_hub 2.x keeps no partial file across calls (each download writes a file of its
own, huggingface_hub#4228), so a cancelled download starts over. Every failure is a `DownloadError`
whose message says what to do.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Progress = Callable[[int, int | None], None]  # bytes done, total (None: unknown)
CHUNK = 256 * 1024  # bytes read between two progress updates
HEARTBEAT_S = 0.4  # the last progress is repeated at least this often
PROBE_S = 5.0  # how long the hub may take to answer at all

# the transformers files of a repo: config, tokenizer, weights (safetensors only)
REPO_PATTERNS = ["*.json", "*.safetensors", "tokenizer*", "*.model", "*.txt"]


class DownloadError(RuntimeError):
    """A download failed; the message is meant for the user."""


class DownloadCancelled(DownloadError):
    def __init__(self) -> None:
        super().__init__("download cancelled: choose the model again to download it")


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _options() -> dict[str, Any]:
    cache = os.environ.get("HF_HUB_CACHE") or (str(Path(os.environ["HF_HOME"]) / "hub")
                                              if os.environ.get("HF_HOME") else None)
    return {"endpoint": os.environ.get("HF_ENDPOINT") or None, "cache_dir": cache,
            "token": os.environ.get("HF_TOKEN") or None}


def cached_file(repo: str, filename: str) -> Path | None:
    """The file if it is in the HF cache already (no network)."""
    from huggingface_hub import try_to_load_from_cache

    opts = _options()
    found = try_to_load_from_cache(repo, filename, cache_dir=opts["cache_dir"])
    return Path(found) if isinstance(found, str) and Path(found).is_file() else None


def _progress_class(report: Progress, cancel: threading.Event, every_s: float) -> type[Any]:
    """A tqdm class huggingface_hub drives: it reports bytes and raises once cancelled."""
    from tqdm.auto import tqdm

    class Reporter(tqdm):  # type: ignore[misc, type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = False
            kwargs["file"] = open(os.devnull, "w")  # noqa: SIM115 - closed in close()
            super().__init__(*args, **kwargs)
            self._last = 0.0
            report(int(self.n), int(self.total) if self.total else None)

        def update(self, n: float | None = 1) -> bool | None:
            if cancel.is_set():
                raise DownloadCancelled()
            shown = super().update(n)
            now = time.monotonic()
            if now - self._last >= every_s:
                self._last = now
                report(int(self.n), int(self.total) if self.total else None)
            return shown

        def close(self) -> None:
            if not self.disable:
                report(int(self.n), int(self.total) if self.total else None)
            handle = self.fp
            super().close()
            handle.close()

    return Reporter


def _reachable(endpoint: str | None, what: str) -> None:
    """Fail at once when the hub cannot be reached (huggingface_hub retries a refused connection for
    ~25 s before it gives up); any HTTP answer will do."""
    import httpx

    url = endpoint or "https://huggingface.co"
    try:
        httpx.head(url, timeout=PROBE_S)
    except httpx.HTTPError:
        raise DownloadError(f"{what} is not downloaded and cannot reach {url}: check the network (or "
                            "HF_ENDPOINT) and choose the model again") from None


def download(repo: str, filename: str | None, report: Progress, cancel: threading.Event,
             every_s: float = 0.25) -> Path:
    """Blocking: the cached file (or, filename None, the repo's transformers snapshot folder),
    downloading what is missing. Raises DownloadError with a message for the user."""
    import huggingface_hub as hub
    from huggingface_hub import constants, errors

    opts = _options()
    offline = _env_flag("HF_HUB_OFFLINE")
    what = f"{repo}/{filename}" if filename else repo
    # huggingface_hub reads 10 MB between progress updates: far apart on a slow line
    constants.DOWNLOAD_CHUNK_SIZE = min(constants.DOWNLOAD_CHUNK_SIZE, CHUNK)
    latest: list[tuple[int, int | None]] = []
    done = threading.Event()

    def noted(n: int, total: int | None) -> None:
        latest[:] = [(n, total)]
        report(n, total)

    def heartbeat() -> None:  # the last counts again while the line stalls: the UI knows it is alive
        while not done.wait(HEARTBEAT_S):
            if latest:
                report(*latest[0])

    threading.Thread(target=heartbeat, daemon=True).start()
    tqdm_class = _progress_class(noted, cancel, every_s)
    try:
        if filename is not None:
            try:  # downloaded before: no network at all
                return Path(hub.hf_hub_download(repo, filename, local_files_only=True, **opts))
            except errors.LocalEntryNotFoundError:
                if offline:
                    raise
            _reachable(opts["endpoint"], what)
            return Path(hub.hf_hub_download(repo, filename, tqdm_class=tqdm_class, **opts))
        try:
            return Path(hub.snapshot_download(repo, allow_patterns=REPO_PATTERNS, local_files_only=True, **opts))
        except errors.LocalEntryNotFoundError:
            if offline:
                raise
        _reachable(opts["endpoint"], what)
        return Path(hub.snapshot_download(repo, allow_patterns=REPO_PATTERNS, tqdm_class=tqdm_class, **opts))
    except DownloadError:
        raise
    except errors.GatedRepoError:
        raise DownloadError(f"{repo} is gated: accept its licence on the model's hub page, then start Ghostbook "
                            "with HF_TOKEN set to a token of that account") from None
    except errors.RepositoryNotFoundError:
        raise DownloadError(f"no repo {repo} on the hub, or it is private (401): check the name, or set HF_TOKEN "
                            "to a token that can read it") from None
    except errors.RemoteEntryNotFoundError:
        raise DownloadError(f"{repo} has no file {filename} (404): check the file name on the repo's "
                            "'Files' page") from None
    except errors.LocalEntryNotFoundError:
        hint = ("HF_HUB_OFFLINE is set: unset it to download" if offline else
                f"cannot reach {opts['endpoint'] or 'huggingface.co'}: check the network (or HF_ENDPOINT) "
                "and choose the model again")
        raise DownloadError(f"{what} is not downloaded and {hint}") from None
    except errors.HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "?"
        raise DownloadError(f"downloading {what} failed (HTTP {status}): {str(exc).splitlines()[0]}") from None
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):  # no space, over quota, over a size limit
            raise DownloadError(f"the disk is full while downloading {what}: free some space (the HF cache is "
                                f"{opts['cache_dir'] or '~/.cache/huggingface/hub'}; `hf cache delete` removes "
                                "models) and choose the model again") from None
        raise DownloadError(f"downloading {what} failed: {exc}") from None
    except Exception as exc:  # httpx connection errors and the like
        raise DownloadError(f"downloading {what} failed: {exc}; check the network and choose the model "
                            "again") from None
    finally:
        done.set()
