"""The settings panel's Device and Speculative decoding fields: saved per user; a transformers model
on `cuda` where torch sees no GPU says so in the model status (and auto loads it on the CPU)."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from playwright.sync_api import Page, expect

from tests.models.conftest import build_tiny_gguf

from .ghost_helpers import open_settings
from .helpers import Server, open_notebook, wait_idle, write_notebook

SHOTS = Path(tempfile.gettempdir()) / "ghostbook-e2e-shots"


@pytest.fixture(scope="module")
def hf_model() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="ghostbook-e2e-hf-"))
    try:
        build_tiny_gguf(folder)
        yield folder / "hf"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def completion_settings(hf_model: Path) -> dict[str, object]:
    return {"model": str(hf_model), "max_new_tokens": 8}


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
def test_device_and_speculative_settings(server: Server, page: Page, hf_model: Path) -> None:
    write_notebook(server.root / "d.ipynb", [("code", "x = 1")])
    open_notebook(page, server.url("/notebooks/d.ipynb"))
    wait_idle(page)
    panel = open_settings(page)
    status = panel.get_by_test_id("model-status")
    expect(status).to_have_text(re.compile(r"^ready"), timeout=60_000)
    expect(panel.get_by_test_id("setting-device")).to_have_value("auto")
    expect(panel.get_by_test_id("setting-speculative")).to_be_checked()

    panel.get_by_test_id("setting-device").select_option("cuda")
    panel.get_by_test_id("setting-speculative").uncheck()
    panel.get_by_test_id("settings-save").click()
    expect(status).to_contain_text("sees no GPU", timeout=30_000)
    SHOTS.mkdir(exist_ok=True)
    status.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "settings-device-cuda.png"))
    saved = json.loads((server.root.parent / "config" / "ghostbook" / "settings.json").read_text())["completion"]
    assert saved["device"] == "cuda" and saved["speculative"] is False

    panel.get_by_test_id("setting-device").select_option("auto")  # back on the CPU: ready again
    panel.get_by_test_id("settings-save").click()
    expect(status).to_have_text(re.compile(r"^ready"), timeout=60_000)
