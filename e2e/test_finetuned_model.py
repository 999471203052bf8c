"""A model made by `ghostbook train finetune` (a real, short run on house-style notebooks) is offered in
the settings' catalogue as "finetuned: NAME"; "Use" loads it and it gives ghost text."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.training.house_notebooks import write_house_notebooks

from .conftest import _free_port
from .ghost_helpers import LINES, find_suggestion, open_settings
from .helpers import Server, cells, launch_server, open_notebook, stop_server, wait_idle, write_notebook

SHOTS = os.environ.get("GHOSTBOOK_E2E_SHOTS")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    base = Path(tempfile.mkdtemp(prefix="ghostbook-e2e-"))
    monkeypatch.setenv("GHOSTBOOK_MODELS_DIR", str(base / "models"))
    write_house_notebooks(base / "house", 12)
    subprocess.run([sys.executable, "-m", "ghostbook", "train", "finetune", str(base / "house"), "--steps", "4",
                    "--batch-size", "2", "--threads", "1", "--out", "house", "--quiet"], check=True, timeout=300)
    root = base / "notebooks"
    root.mkdir()
    (base / "config" / "ghostbook").mkdir(parents=True)
    settings = {"completion": {"enabled": True, "model": "default", "max_new_tokens": 16, "debounce_ms": 150}}
    (base / "config" / "ghostbook" / "settings.json").write_text(json.dumps(settings))
    port = _free_port()
    env = {"XDG_CONFIG_HOME": str(base / "config"), "GHOSTBOOK_MODELS_DIR": str(base / "models")}
    process = launch_server(root, port, base / "server.log", env)
    try:
        yield Server(f"http://127.0.0.1:{port}", root, process)
    finally:
        stop_server(process)
        shutil.rmtree(base, ignore_errors=True)


def test_finetuned_model_is_offered_and_completes(server: Server, page: Page) -> None:
    write_notebook(server.root / "m.ipynb", [("code", "import math"), ("code", "")])
    open_notebook(page, server.url("/notebooks/m.ipynb"))
    wait_idle(page)
    panel = open_settings(page)
    status = panel.get_by_test_id("model-status")
    expect(status).to_have_text(re.compile(r"^ready"), timeout=30_000)
    row = panel.get_by_test_id("catalogue-row").filter(has_text="finetuned: house")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("ghostbook · 3.4M parameters")
    expect(row.get_by_test_id("catalogue-downloaded")).to_be_visible()
    row.scroll_into_view_if_needed()
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "finetuned-catalogue.png"))
    row.get_by_test_id("catalogue-use").click()
    expect(status).to_have_text(re.compile(r"^ready: finetuned: house"), timeout=30_000)
    page.get_by_test_id("close-settings").click()
    cell = cells(page).nth(1)
    cell.get_by_test_id("cell-editor").locator(".cm-content").click()
    _, text = find_suggestion(page, cell, LINES)
    assert text.strip()
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "finetuned-ghost.png"))
    assert page.js_errors == []  # type: ignore[attr-defined]
