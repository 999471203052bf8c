"""The completion settings panel: values persist on the server per user, the model's status shows,
and a broken model file gives a clear error while the notebook keeps working: the model before it
serves on, or with none, completion says it has no model."""

from __future__ import annotations

import json
import re

import pytest
from ghostbook.models.catalog import default_model_path
from playwright.sync_api import Page, expect

from .ghost_helpers import PROMPT, ghost, ghost_model, open_settings, wait_ghost_done  # noqa: F401
from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, output, wait_idle, write_notebook


@pytest.fixture
def completion_settings(ghost_model: str) -> dict[str, object]:  # noqa: F811
    return {"model": ghost_model, "max_new_tokens": 16}


def settings_file(server: Server) -> dict[str, object]:
    return json.loads((server.root.parent / "config" / "ghostbook" / "settings.json").read_text())["completion"]


def open_cells(server: Server, page: Page) -> None:
    write_notebook(server.root / "s.ipynb", [("code", "print(6 * 7)"), ("code", "")])
    open_notebook(page, server.url("/notebooks/s.ipynb"))
    wait_idle(page)


def test_settings_persist_per_user(server: Server, page: Page, ghost_model: str) -> None:  # noqa: F811
    open_cells(server, page)
    panel = open_settings(page)
    expect(panel.get_by_test_id("model-status")).to_have_text(re.compile(r"^ready"), timeout=30_000)
    expect(panel.get_by_test_id("setting-enabled")).to_be_checked()
    expect(panel.get_by_test_id("setting-debounce")).to_have_value("500")
    expect(panel.get_by_test_id("setting-beam-width")).to_have_value("8")
    expect(panel.get_by_test_id("setting-read-check")).not_to_be_checked()
    expect(panel.get_by_test_id("setting-search-ms")).to_have_value("15")
    expect(panel.get_by_test_id("setting-model")).to_have_value(ghost_model)
    panel.get_by_test_id("setting-debounce").fill("800")
    panel.get_by_test_id("setting-debounce-mode").select_option("adaptive")
    panel.get_by_test_id("setting-max-tokens").fill("24")
    panel.get_by_test_id("setting-context-tokens").fill("512")
    panel.get_by_test_id("setting-beam-width").fill("2")
    panel.get_by_test_id("setting-read-check").check()
    panel.get_by_test_id("setting-search-ms").fill("0")
    panel.get_by_test_id("settings-save").click()
    for _ in range(50):
        if settings_file(server).get("debounce_ms") == 800:
            break
        page.wait_for_timeout(100)
    saved = settings_file(server)
    assert saved["debounce_ms"] == 800 and saved["debounce_mode"] == "adaptive"
    assert saved["max_new_tokens"] == 24 and saved["context_tokens"] == 512 and saved["model"] == ghost_model
    assert saved["beam_width"] == 2 and saved["read_check"] is True and saved["search_ms"] == 0

    # a fresh page (another tab, later) reads them back from the server
    page.reload()
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    panel = open_settings(page)
    expect(panel.get_by_test_id("setting-debounce")).to_have_value("800")
    expect(panel.get_by_test_id("setting-debounce-mode")).to_have_value("adaptive")
    expect(panel.get_by_test_id("setting-max-tokens")).to_have_value("24")
    expect(panel.get_by_test_id("setting-beam-width")).to_have_value("2")
    expect(panel.get_by_test_id("setting-read-check")).to_be_checked()
    expect(panel.get_by_test_id("setting-search-ms")).to_have_value("0")

    # a value the server refuses shows its message, and nothing changes
    panel.get_by_test_id("setting-debounce").fill("99999")
    panel.get_by_test_id("settings-save").click()
    expect(panel.get_by_test_id("settings-error")).to_contain_text("debounce_ms")
    assert settings_file(server)["debounce_ms"] == 800


def test_corrupt_model_gives_an_error_and_the_model_before_serves_on(server: Server, page: Page,
                                                                    ghost_model: str) -> None:  # noqa: F811
    open_cells(server, page)
    bad = server.root.parent / "corrupt.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    panel = open_settings(page)
    expect(panel.get_by_test_id("model-status")).to_have_text(re.compile(r"^ready"), timeout=30_000)
    panel.get_by_test_id("setting-model").fill(str(bad))
    panel.get_by_test_id("settings-save").click()
    status = panel.get_by_test_id("model-status")
    expect(status).to_have_attribute("data-failed", "", timeout=30_000)
    expect(status).to_contain_text(f"Could not load {bad.name}")
    expect(status).to_contain_text("corrupt")
    expect(status).to_contain_text("; pick another model or retry.")
    expect(panel.get_by_test_id("setting-model")).to_have_value(ghost_model)  # the setting names what serves
    assert settings_file(server)["model"] == ghost_model
    expect(page.get_by_test_id("open-settings")).to_have_attribute("data-model-state", "ready")
    page.get_by_test_id("close-settings").click()

    second = cells(page).nth(1)
    second.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type(PROMPT)
    page.keyboard.press("Control+Space")
    assert wait_ghost_done(page)
    cells(page).nth(0).get_by_test_id("run-cell").click()
    expect(output(cells(page).nth(0))).to_contain_text("42", timeout=KERNEL_TIMEOUT)


@pytest.mark.parametrize("completion_settings", [{"model": "/nowhere/corrupt.gguf", "max_new_tokens": 16}])
def test_no_model_at_all_gives_an_error_and_cells_still_run(server: Server, page: Page,
                                                           ghost_model: str) -> None:  # noqa: F811
    open_cells(server, page)
    panel = open_settings(page)
    status = panel.get_by_test_id("model-status")
    expect(status).to_have_attribute("data-state", "error", timeout=30_000)
    expect(status).to_contain_text("model file not found")
    expect(page.get_by_test_id("open-settings")).to_have_attribute("data-model-state", "error")
    page.get_by_test_id("close-settings").click()

    # no ghost text, even when asked; the notebook runs cells as ever
    second = cells(page).nth(1)
    second.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type(PROMPT)
    page.keyboard.press("Control+Space")
    page.wait_for_timeout(1200)
    expect(ghost(page)).to_have_count(0)
    cells(page).nth(0).get_by_test_id("run-cell").click()
    expect(output(cells(page).nth(0))).to_contain_text("42", timeout=KERNEL_TIMEOUT)

    # a good model again: completion comes back
    panel = open_settings(page)
    panel.get_by_test_id("setting-model").fill(ghost_model)
    panel.get_by_test_id("settings-save").click()
    expect(panel.get_by_test_id("model-status")).to_have_text(re.compile(r"^ready"), timeout=30_000)
    page.get_by_test_id("close-settings").click()
    second.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.press("Control+End")
    editor = second.locator(".cm-editor")
    last = editor.get_attribute("data-ghost-last") or ""
    page.keyboard.type(" 1 +")
    expect(editor).to_have_attribute("data-ghost-last", re.compile(r" (shown|empty)$"), timeout=30_000)
    assert editor.get_attribute("data-ghost-last") != last


def test_completion_off_means_no_ghost_text(server: Server, page: Page) -> None:
    open_cells(server, page)
    panel = open_settings(page)
    expect(panel.get_by_test_id("model-status")).to_have_text(re.compile(r"^ready"), timeout=30_000)
    panel.get_by_test_id("setting-enabled").uncheck()
    panel.get_by_test_id("settings-save").click()
    expect(panel.get_by_test_id("model-status")).to_have_attribute("data-state", "off")
    assert settings_file(server)["enabled"] is False
    page.get_by_test_id("close-settings").click()
    cells(page).nth(1).get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type(PROMPT)
    page.wait_for_timeout(1500)
    expect(ghost(page)).to_have_count(0)
    requests = open_settings(page).get_by_test_id("completion-stats").get_attribute("data-requests")
    assert requests in (None, "0")


def test_a_failed_edit_model_keeps_the_one_before(server: Server, page: Page) -> None:
    """The edit model's registry as the completion model's: a file that cannot load leaves the edit
    model before serving, its status says both, and the field goes back to it."""
    shipped = default_model_path()
    assert shipped is not None
    open_cells(server, page)
    panel = open_settings(page)
    field, status = panel.get_by_test_id("edit-model-input"), panel.get_by_test_id("edit-model-status")
    field.fill(str(shipped))
    panel.get_by_test_id("settings-save").click()
    expect(status).to_have_text(f"Edit model: ready: {shipped.name}", timeout=30_000)
    missing = server.root.parent / "gone.gguf"
    field.fill(str(missing))
    panel.get_by_test_id("settings-save").click()
    expect(status).to_have_text(f"Edit model: ready: {shipped.name} — Could not load {missing}: model file not "
                                f"found: {missing}. Still using {shipped.name}; pick another model or retry.",
                                timeout=30_000)
    expect(field).to_have_value(str(shipped))
    assert settings_file(server)["edit_model"] == str(shipped)
