"""Choosing a hub model in the settings panel: the catalogue lists models with what a user needs to
choose; an `hf:` model downloads from a loopback stand-in for the hub (HF_ENDPOINT, throttled) with a
moving progress bar and a cancel button, loads, and gives ghost text; a missing repo is a clear error; a
catalogue model that cannot be downloaded leaves the built-in model serving, outlined, and says so."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from ghostbook.models.catalog import default_model_path
from playwright.sync_api import Page, expect

from tests.models.hub_standin import HubStandIn

from .conftest import _free_port
from .ghost_helpers import LINES, find_suggestion, open_settings, wait_ghost_done
from .helpers import Server, cells, launch_server, open_notebook, stop_server, type_in_cell, wait_idle, write_notebook

REPO, FILE = "acme/ghostbook-fim-GGUF", "ghostbook-fim-q8_0.gguf"
SHOTS = os.environ.get("GHOSTBOOK_E2E_SHOTS")  # a folder: screenshots of the catalogue, progress, ghost text


def shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


@pytest.fixture
def hub() -> Iterator[HubStandIn]:
    shipped = default_model_path()
    assert shipped is not None
    stand_in = HubStandIn({REPO: {FILE: shipped}}, bytes_per_s=1.2e6).start()  # ~4 s for the 4.6 MB
    yield stand_in
    stand_in.stop()


@pytest.fixture
def server(hub: HubStandIn) -> Iterator[Server]:
    """Ghostbook with the hub stand-in as HF_ENDPOINT and an empty HF cache of its own."""
    base = Path(tempfile.mkdtemp(prefix="ghostbook-e2e-"))
    root = base / "notebooks"
    root.mkdir()
    (base / "config" / "ghostbook").mkdir(parents=True)
    settings = {"completion": {"enabled": True, "model": "default", "max_new_tokens": 16, "debounce_ms": 150}}
    (base / "config" / "ghostbook" / "settings.json").write_text(json.dumps(settings))
    port = _free_port()
    env = {"XDG_CONFIG_HOME": str(base / "config"), "HF_ENDPOINT": hub.url, "HF_HOME": str(base / "hf"),
           "GHOSTBOOK_MODELS_DIR": str(base / "models"), "HF_HUB_OFFLINE": "0"}
    process = launch_server(root, port, base / "server.log", env)
    srv = Server(f"http://127.0.0.1:{port}", root, process)
    try:
        yield srv
    finally:
        stop_server(srv.process)
        shutil.rmtree(base, ignore_errors=True)


def open_cells(server: Server, page: Page) -> None:
    write_notebook(server.root / "m.ipynb", [("code", "import math"), ("code", "")])
    open_notebook(page, server.url("/notebooks/m.ipynb"))
    wait_idle(page)


def test_catalogue_then_download_with_progress_then_ghost_text(server: Server, page: Page, hub: HubStandIn) -> None:
    open_cells(server, page)
    panel = open_settings(page)
    expect(panel.get_by_test_id("model-status")).to_have_text(re.compile(r"^ready"), timeout=30_000)
    rows = panel.get_by_test_id("catalogue-row")
    expect(rows.first).to_be_visible()
    qwen = panel.locator('[data-spec="hf:Qwen/Qwen2.5-Coder-1.5B-GGUF/qwen2.5-coder-1.5b-q8_0.gguf"]')
    expect(qwen).to_contain_text("qwen2.5-coder · 1.5B parameters")
    expect(qwen).to_contain_text("Apache-2.0")
    expect(qwen).to_contain_text("tok/s")
    expect(panel.locator('[data-spec="default"]').get_by_test_id("catalogue-downloaded")).to_be_visible()
    assert rows.count() >= 17
    qwen.scroll_into_view_if_needed()
    shot(page, "catalogue")

    panel.get_by_test_id("setting-model").fill(f"hf:{REPO}/{FILE}")
    panel.get_by_test_id("settings-save").click()
    status, progress = panel.get_by_test_id("model-status"), panel.get_by_test_id("model-progress")
    expect(status).to_have_text(re.compile(r"^downloading .* of 4\.6 MB"), timeout=15_000)
    expect(panel.get_by_test_id("cancel-download")).to_be_visible()
    seen: list[float] = []
    for _ in range(40):
        value = float(progress.evaluate("(bar) => bar.dataset.state === 'downloading' ? bar.value : -1"))
        if value >= 0:
            seen.append(value)
            if len({round(v, 2) for v in seen if 0 < v < 1}) >= 3:
                break
        page.wait_for_timeout(150)
    assert len({round(v, 2) for v in seen if 0 < v < 1}) >= 3, seen  # the bar moved
    assert seen == sorted(seen)
    shot(page, "progress")
    expect(status).to_have_text(re.compile(r"^ready: acme/ghostbook-fim-GGUF"), timeout=30_000)
    expect(panel.get_by_test_id("cancel-download")).to_be_hidden()
    assert any("resolve/main/" + FILE in r for r in hub.requests)

    page.get_by_test_id("close-settings").click()
    cell = cells(page).nth(1)
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    line, text = find_suggestion(page, cell, LINES)
    assert text.strip()
    shot(page, "ghost-text")
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_cancel_and_missing_repo_are_clear_errors(server: Server, page: Page, hub: HubStandIn) -> None:
    hub.bytes_per_s = 3e5
    open_cells(server, page)
    panel = open_settings(page)
    status = panel.get_by_test_id("model-status")
    expect(status).to_have_text(re.compile(r"^ready"), timeout=30_000)
    panel.get_by_test_id("setting-model").fill(f"hf:{REPO}/{FILE}")
    panel.get_by_test_id("settings-save").click()
    expect(panel.get_by_test_id("cancel-download")).to_be_visible(timeout=15_000)
    panel.get_by_test_id("cancel-download").click()
    expect(status).to_have_text(re.compile(r"^ready: default — Could not load .*: download cancelled: choose the model "
                                           r"again.*\. Still using the built-in model"), timeout=10_000)
    panel.get_by_test_id("setting-model").fill("hf:acme/no-such-model/model.gguf")
    panel.get_by_test_id("settings-save").click()
    expect(status).to_have_text(re.compile(r"no repo acme/no-such-model on the hub, or it is private"),
                                timeout=15_000)
    panel.get_by_test_id("setting-model").fill("ollama:qwen")
    panel.get_by_test_id("settings-save").click()
    expect(panel.get_by_test_id("settings-error")).to_contain_text("unknown model form 'ollama'")
    shot(page, "errors")


QWEN_REPO, QWEN_FILE = "Qwen/Qwen2.5-Coder-0.5B-GGUF", "qwen2.5-coder-0.5b-q8_0.gguf"


def test_a_failed_pick_keeps_the_built_in_model_serving(server: Server, page: Page, hub: HubStandIn) -> None:
    """Issue 30, 5b: the hub answers HTTP 500 for a catalogue model's file. The error names it and the
    model serving on; the setting and the catalogue's outline stay on the built-in model; Ctrl+Space
    still gives ghost text."""
    shipped = default_model_path()
    assert shipped is not None
    hub.files[QWEN_REPO] = {QWEN_FILE: shipped}
    hub.fail[QWEN_FILE] = 500
    write_notebook(server.root / "m.ipynb", [("code", "import numpy as np"), ("code", "")])
    open_notebook(page, server.url("/notebooks/m.ipynb"))
    wait_idle(page)
    panel = open_settings(page)
    status = panel.get_by_test_id("model-status")
    expect(status).to_have_text(re.compile(r"^ready: default$"), timeout=30_000)
    spec = f"hf:{QWEN_REPO}/{QWEN_FILE}"
    qwen, builtin = panel.locator(f'[data-spec="{spec}"]'), panel.locator('[data-spec="default"]')
    expect(builtin).to_have_class(re.compile(r"\bcurrent\b"))
    qwen.scroll_into_view_if_needed()
    qwen.get_by_test_id("catalogue-use").click()
    expect(status).to_have_text(re.compile(
        rf"^ready: default — Could not load {QWEN_REPO}/{QWEN_FILE}: downloading .* failed \(HTTP 500\).*\. "
        r"Still using the built-in model; pick another model or retry\.$"), timeout=30_000)
    expect(status).to_have_attribute("data-failed", "")
    expect(panel.get_by_test_id("setting-model")).to_have_value("default")
    expect(builtin).to_have_class(re.compile(r"\bcurrent\b"))
    expect(qwen).not_to_have_class(re.compile(r"\bcurrent\b"))
    assert any(f"GET /{QWEN_REPO}/resolve/main/{QWEN_FILE}" in r for r in hub.requests)
    qwen.scroll_into_view_if_needed()
    shot(page, "failed-pick")
    page.get_by_test_id("close-settings").click()
    cell = cells(page).nth(1)
    type_in_cell(page, cell, "x = np.")
    page.keyboard.press("Control+Space")
    assert wait_ghost_done(page).strip()
    shot(page, "failed-pick-ghost-text")
    settings = json.loads((server.root.parent / "config" / "ghostbook" / "settings.json").read_text())
    assert settings["completion"]["model"] == "default"
    assert page.js_errors == []  # type: ignore[attr-defined]
