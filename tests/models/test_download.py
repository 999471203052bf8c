"""Hub downloads (models.download) against a loopback stand-in for the hub's file API: the shipped GGUF
served under another repo name, progress, the HF cache, resume after cancel, offline reuse, and the
errors a user meets (401 unknown/private, gated without HF_TOKEN, 404, no network, offline)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ghostbook.models.catalog import default_model_path
from ghostbook.models.download import DownloadCancelled, DownloadError, download

from .hub_standin import HubStandIn

REPO, FILE = "acme/ghost-fim-GGUF", "ghost-fim-q8_0.gguf"


@pytest.fixture
def shipped() -> Path:
    path = default_model_path()
    assert path is not None
    return path


@pytest.fixture
def hub(shipped: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubStandIn]:
    stand_in = HubStandIn({REPO: {FILE: shipped}, "acme/gated": {FILE: shipped}}, gated={"acme/gated": "hf_ok"})
    stand_in.start()
    monkeypatch.setenv("HF_ENDPOINT", stand_in.url)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    for name in ("HF_HUB_CACHE", "HF_TOKEN", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    yield stand_in
    stand_in.stop()


def test_download_reports_progress_then_reuses_the_cache_without_network(hub: HubStandIn, shipped: Path,
                                                                         tmp_path: Path) -> None:
    hub.bytes_per_s = 4e6  # ~1.2 s for the shipped 4.6 MB
    reports: list[tuple[float, int, int | None]] = []
    path = download(REPO, FILE, lambda done, total: reports.append((time.monotonic(), done, total)),
                    threading.Event())
    assert path.read_bytes() == shipped.read_bytes()
    assert str(path).startswith(str(tmp_path / "hf" / "hub"))  # the standard HF cache under HF_HOME
    size = shipped.stat().st_size
    assert reports[-1][1:] == (size, size)
    dones = [done for _, done, _ in reports]
    assert dones == sorted(dones) and len({d for d in dones if 0 < d < size}) >= 3  # it moved
    gaps = [b[0] - a[0] for a, b in zip(reports, reports[1:], strict=False)]
    assert max(gaps) < 0.5
    hub.stop()  # chosen again: no network needed
    before = len(hub.requests)
    assert download(REPO, FILE, lambda *_: None, threading.Event()) == path
    assert len(hub.requests) == before


def test_cancel_stops_the_download_and_choosing_again_completes_it(hub: HubStandIn, shipped: Path,
                                                                   tmp_path: Path) -> None:
    hub.bytes_per_s = 2e6
    cancel = threading.Event()
    seen: list[int] = []

    def report(done: int, total: int | None) -> None:
        seen.append(done)
        if done > 1_000_000:
            cancel.set()

    started = time.monotonic()
    with pytest.raises(DownloadCancelled, match="cancelled"):
        download(REPO, FILE, report, cancel, every_s=0.05)
    assert time.monotonic() - started < 1.5 and max(seen) < shipped.stat().st_size  # stopped mid-way
    assert not list((tmp_path / "hf").rglob("*.incomplete"))  # nothing half-written left in the cache
    hub.bytes_per_s = None
    path = download(REPO, FILE, lambda *_: None, threading.Event())
    assert path.read_bytes() == shipped.read_bytes()


@pytest.mark.parametrize(("repo", "file", "message"), [
    ("acme/nothing", FILE, "no repo acme/nothing on the hub, or it is private"),
    ("acme/gated", FILE, "is gated: accept its licence.*HF_TOKEN"),
    (REPO, "other.gguf", "has no file other.gguf \\(404\\)"),
])
def test_hub_errors_say_what_to_do(hub: HubStandIn, repo: str, file: str, message: str) -> None:
    with pytest.raises(DownloadError, match=message):
        download(repo, file, lambda *_: None, threading.Event())


def test_gated_repo_downloads_with_hf_token(hub: HubStandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_ok")
    assert download("acme/gated", FILE, lambda *_: None, threading.Event()).is_file()


def test_no_network_and_offline_mode(hub: HubStandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"  # nothing listens once closed
    monkeypatch.setenv("HF_ENDPOINT", closed)
    started = time.monotonic()
    with pytest.raises(DownloadError, match=f"not downloaded and cannot reach {closed}"):
        download(REPO, FILE, lambda *_: None, threading.Event())
    assert time.monotonic() - started < 6  # at once, not after huggingface_hub's ~25 s of retries
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DownloadError, match="HF_HUB_OFFLINE is set"):
        download(REPO, FILE, lambda *_: None, threading.Event())
    assert not hub.requests


def test_disk_full_is_a_clear_error(hub: HubStandIn, tmp_path: Path) -> None:
    """A download that cannot be written (here: a 1 MB file size limit on a process, EFBIG; a full disk
    is ENOSPC, the same message) says the disk is full and where the cache is."""
    script = (
        "import resource, signal, threading\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, 1_000_000))\n"
        "from ghostbook.models.download import DownloadError, download\n"
        "try:\n"
        f"    download({REPO!r}, {FILE!r}, lambda *_: None, threading.Event())\n"
        "except DownloadError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ})
    assert "the disk is full while downloading" in done.stdout, done.stdout + done.stderr
    assert str(tmp_path / "hf" / "hub") in done.stdout
