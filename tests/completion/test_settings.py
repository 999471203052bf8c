from __future__ import annotations

import json
from pathlib import Path

import pytest
from ghostbook.completion.settings import CompletionSettings, SettingsError, SettingsStore, settings_path, validate


def test_defaults() -> None:
    s = CompletionSettings()
    assert (s.enabled, s.debounce_ms, s.debounce_mode, s.context_tokens, s.model, s.beam_width, s.read_check,
            s.search_ms) == (True, 500, "fixed", 1024, "default", 8, False, 15)


@pytest.mark.parametrize("changes", [{"nope": 1}, {"enabled": "yes"}, {"debounce_ms": -1}, {"debounce_ms": True},
                                     {"debounce_mode": "sometimes"}, {"context_tokens": 10}, {"model": ""},
                                     {"max_new_tokens": 100000}, {"beam_width": 0}, {"beam_width": 9},
                                     {"beam_width": 2.5}, {"read_check": 1}, {"read_check": "no"}])
def test_invalid_changes_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(SettingsError):
        validate(CompletionSettings(), changes)


def test_persisted_under_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert settings_path() == tmp_path / "ghostbook" / "settings.json"
    store = SettingsStore()
    store.update({"debounce_ms": 250, "debounce_mode": "adaptive", "model": " /m/x.gguf "})
    raw = json.loads((tmp_path / "ghostbook" / "settings.json").read_text())
    assert raw["completion"]["debounce_ms"] == 250 and raw["completion"]["model"] == "/m/x.gguf"
    again = SettingsStore()
    assert again.current == store.current


def test_broken_file_gives_defaults_and_other_sections_survive(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    store = SettingsStore(path)
    assert store.current == CompletionSettings()
    path.write_text(json.dumps({"theme": "dark", "completion": {"enabled": False}}))
    store = SettingsStore(path)
    assert store.current.enabled is False
    store.update({"enabled": True})
    assert json.loads(path.read_text())["theme"] == "dark"


def test_the_edit_model_is_a_setting_of_its_own() -> None:
    settings = CompletionSettings()
    assert settings.edit_model == ""  # none chosen
    chosen = validate(settings, {"edit_model": " openai:http://127.0.0.1:8080 "})
    assert chosen.edit_model == "openai:http://127.0.0.1:8080" and chosen.model == "default"
    assert validate(chosen, {"edit_model": ""}).edit_model == ""
    with pytest.raises(SettingsError, match="chat or instruct"):
        validate(settings, {"edit_model": "default"})
    with pytest.raises(SettingsError, match="unknown model form"):
        validate(settings, {"edit_model": "ftp:x"})
