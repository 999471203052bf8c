"""Appearance settings (theme, editor font size): validated, kept in the settings file beside the
completion section, served and changed over /api/appearance, written onto <html> by the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ghostbook.completion.settings import SettingsStore
from ghostbook.web import appearance
from ghostbook.web.appearance import Appearance, AppearanceError, AppearanceStore, html_attributes, validate
from starlette.applications import Starlette
from starlette.testclient import TestClient


def test_validate_accepts_the_settings_and_rejects_bad_values() -> None:
    assert validate(Appearance(), {"theme": "dark", "editor_font_size": 18}) == Appearance("dark", 18)
    for bad in [{"theme": "blue"}, {"theme": None}, {"editor_font_size": 9}, {"editor_font_size": 25},
                {"editor_font_size": 14.5}, {"editor_font_size": True}, {"editor_font_size": "14"}, {"font": 1}]:
        with pytest.raises(AppearanceError):
            validate(Appearance(), bad)


def test_the_store_persists_beside_the_completion_settings(tmp_path: Path) -> None:
    path = tmp_path / "ghostbook" / "settings.json"
    SettingsStore(path).update({"debounce_ms": 250})
    store = AppearanceStore(path)
    assert store.current == Appearance()  # the defaults: System, 14 px
    store.update({"theme": "light", "editor_font_size": 20})
    raw = json.loads(path.read_text())
    assert raw["appearance"] == {"theme": "light", "editor_font_size": 20}
    assert raw["completion"]["debounce_ms"] == 250  # the other section is kept
    assert AppearanceStore(path).current == Appearance("light", 20)
    assert SettingsStore(path).current.debounce_ms == 250
    with pytest.raises(AppearanceError):
        store.update({"theme": "sepia"})
    assert AppearanceStore(path).current == Appearance("light", 20)  # a bad value changes nothing


def test_a_broken_section_gives_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"appearance": {"theme": "neon"}}))
    assert AppearanceStore(path).current == Appearance()
    path.write_text("{not json")
    assert AppearanceStore(path).current == Appearance()


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    app = Starlette(routes=appearance.routes)
    app.state.appearance = AppearanceStore(tmp_path / "settings.json")
    return TestClient(app)


def test_the_api_reads_and_changes_the_appearance(client: TestClient, tmp_path: Path) -> None:
    assert client.get("/api/appearance").json() == {"theme": "system", "editor_font_size": 14}
    changed = client.patch("/api/appearance", json={"theme": "dark"})
    assert changed.status_code == 200 and changed.json() == {"theme": "dark", "editor_font_size": 14}
    assert client.patch("/api/appearance", json={"editor_font_size": 22}).json()["editor_font_size"] == 22
    saved = json.loads((tmp_path / "settings.json").read_text())["appearance"]
    assert saved == {"theme": "dark", "editor_font_size": 22}
    assert client.get("/api/appearance").json() == {"theme": "dark", "editor_font_size": 22}


@pytest.mark.parametrize("body", [{"theme": "blue"}, {"editor_font_size": 100}, {"colour": "red"}, [1, 2]])
def test_the_api_rejects_bad_values_with_a_message(client: TestClient, body: object) -> None:
    response = client.patch("/api/appearance", json=body)
    assert response.status_code == 400 and response.json()["error"]
    assert client.get("/api/appearance").json() == {"theme": "system", "editor_font_size": 14}


def test_the_api_wants_json(client: TestClient) -> None:
    response = client.patch("/api/appearance", content="theme=dark", headers={"Content-Type": "text/plain"})
    assert response.status_code == 400 and "JSON" in response.json()["error"]
    broken = client.patch("/api/appearance", content="{", headers={"Content-Type": "application/json"})
    assert broken.status_code == 400


def test_the_page_gets_the_appearance_before_its_scripts_run() -> None:
    assert html_attributes(Appearance("dark", 18)) == 'data-theme="dark" style="--editor-font-size: 18px"'
