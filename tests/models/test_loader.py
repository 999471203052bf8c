"""Model registry and catalog: statuses as data for missing, corrupt and good files."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghostbook.models import catalog
from ghostbook.models.backend import ModelStatus
from ghostbook.models.loader import ModelRegistry


async def test_loads_once_and_reports_progress(tiny_gguf: Path) -> None:
    registry = ModelRegistry()
    seen: list[ModelStatus] = []
    registry.subscribe(seen.append)
    backend = await registry.ensure(str(tiny_gguf))
    assert backend is not None and backend.info.family == "ghostbook"
    states = [s.state for s in seen]
    assert states[-1] == "ready" and set(states[:-1]) == {"loading"}
    progress = [s.progress for s in seen if s.path and s.progress is not None]
    assert progress == sorted(progress) and progress[0] == 0.0  # llama.cpp's own load progress, in order
    count = len(seen)
    assert await registry.ensure(str(tiny_gguf)) is backend  # no second load
    assert len(seen) == count
    await registry.close()


@pytest.mark.parametrize(("content", "message"), [(None, "model file not found"), (b"garbage!", "not a GGUF"),
                                                  (b"GGUF\x03\x00\x00\x00broken", "corrupt")])
async def test_bad_files_give_error_status(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "m.gguf"
    if content is not None:
        path.write_bytes(content)
    registry = ModelRegistry()
    assert await registry.ensure(str(path)) is None
    assert registry.status.state == "error" and message in (registry.status.message or "")
    assert registry.status.to_json()["path"] in (None, str(path))


async def test_a_folder_loads_with_transformers(tiny_gguf: Path) -> None:
    registry = ModelRegistry()
    backend = await registry.ensure(str(tiny_gguf.parent / "hf"))
    assert backend is not None and type(backend).__name__ == "TransformersBackend"
    assert backend.info.family == "ghostbook"
    await registry.close()


async def test_switching_models_replaces_the_backend(tiny_gguf: Path, tmp_path: Path) -> None:
    registry = ModelRegistry()
    assert await registry.ensure(str(tmp_path / "missing.gguf")) is None
    backend = await registry.ensure(str(tiny_gguf))
    assert backend is not None and registry.status.state == "ready"
    await registry.close()
    assert registry.status.state == "off"


async def test_default_model_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(catalog, "DEFAULT_DIR", tmp_path / "default")
    registry = ModelRegistry()
    assert await registry.ensure("default") is None
    assert "default model not built yet" in (registry.status.message or "")


def test_default_model_found_when_shipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(catalog, "DEFAULT_DIR", tmp_path)
    (tmp_path / "ghostbook-fim-f16.gguf").write_bytes(b"GGUF")
    entry, path = catalog.resolve("default")
    assert entry is not None and entry.family == "ghostbook" and path.name == "ghostbook-fim-f16.gguf"
    (tmp_path / catalog.DEFAULT_GGUF_NAME).write_bytes(b"GGUF")
    assert catalog.resolve("default")[1].name == catalog.DEFAULT_GGUF_NAME  # Q8_0 preferred


def test_default_follows_fim_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(catalog, "DEFAULT_DIR", tmp_path)
    (tmp_path / "custom.gguf").write_bytes(b"GGUF")
    (tmp_path / catalog.DEFAULT_GGUF_NAME).write_bytes(b"GGUF")
    (tmp_path / "fim.json").write_text('{"template": "psm", "gguf": "custom.gguf"}')
    entry, path = catalog.resolve("default")
    assert entry is not None and entry.layout == "psm" and path.name == "custom.gguf"
    (tmp_path / "fim.json").write_text("not json")
    entry, path = catalog.resolve("default")
    assert entry is not None and entry.layout is None and path.name == catalog.DEFAULT_GGUF_NAME


@pytest.mark.parametrize(("tokens", "name", "family"), [
    ({"<|fim_prefix|>", "<fim_prefix>"}, "", "qwen2.5-coder"),
    ({"<fim_prefix>", "<file_sep>"}, "starcoder2", "starcoder"),
    ({"<fim_prefix>", "<filename>"}, "", "starcoder"),
    ({"<fim_prefix>"}, "", "ghostbook"),
    ({"<fim_prefix>"}, "ghostbook-fim", "ghostbook"),
    ({"<fim-prefix>"}, "", "santacoder"),
    ({"<｜fim▁begin｜>"}, "", "deepseek-coder"),
    ({"<PRE>"}, "", "codellama"),
    ({"<mask_1>"}, "", "codegen2"),
    ({"hello"}, "", None),
])
def test_detect_family(tokens: set[str], name: str, family: str | None) -> None:
    assert catalog.detect_family(lambda t: 1 if t in tokens else None, name) == family


def test_catalog_entries_name_known_templates() -> None:
    for entry in catalog.CATALOG.values():
        assert entry.special_tokens  # raises for an unknown family
        assert entry.context_length > 0 and entry.licence
