"""Model specs (`models.specs`, the settings' `model`), and the registry taking an `hf:` spec through
downloading (bytes) -> loading (llama.cpp's own progress) -> ready, from a loopback stand-in for the
hub; a corrupt download and too little RAM end in a clear error."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from ghostbook.completion.settings import CompletionSettings, SettingsError, validate
from ghostbook.models import catalogue, specs
from ghostbook.models.backend import ModelLoadError, ModelStatus
from ghostbook.models.catalog import default_model_path
from ghostbook.models.loader import ModelRegistry
from ghostbook.models.templates import TEMPLATES

from .hub_standin import HubStandIn

REPO, FILE = "acme/ghost-fim-GGUF", "ghost-fim-q8_0.gguf"


@pytest.mark.parametrize(("text", "kind", "repo", "filename", "url"), [
    ("default", "default", "", "", ""),
    ("/models/x.gguf", "local", "", "/models/x.gguf", ""),
    ("C:\\models\\x.gguf", "local", "", "C:\\models\\x.gguf", ""),
    ("hf:Qwen/Qwen2.5-Coder-1.5B-GGUF/qwen2.5-coder-1.5b-q8_0.gguf", "hf_file", "Qwen/Qwen2.5-Coder-1.5B-GGUF",
     "qwen2.5-coder-1.5b-q8_0.gguf", ""),
    ("hf:bigcode/starcoder2-3b", "hf_repo", "bigcode/starcoder2-3b", "", ""),
    ("openai:http://127.0.0.1:8000/", "openai", "", "", "http://127.0.0.1:8000"),
    ("llamacpp:https://llm.example.org:8012", "llamacpp", "", "", "https://llm.example.org:8012"),
])
def test_spec_forms(text: str, kind: str, repo: str, filename: str, url: str) -> None:
    spec = specs.parse(text)
    assert (spec.kind, spec.repo, spec.filename, spec.url) == (kind, repo, filename, url)


@pytest.mark.parametrize(("text", "message"), [
    ("hf:Qwen", "expected hf:OWNER/REPO"),
    ("hf:Qwen/Coder/weights.bin", "must be a .gguf file"),
    ("openai:localhost:8000", "expected openai:http://HOST:PORT"),
    ("ollama:qwen", "unknown model form 'ollama'"),
])
def test_bad_specs_are_refused_by_the_settings_with_the_forms(text: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        validate(CompletionSettings(), {"model": text})


def test_remote_fim_and_api_key_settings() -> None:
    assert validate(CompletionSettings(), {"remote_fim": "qwen2.5-coder", "api_key": " k "}).api_key == "k"
    with pytest.raises(SettingsError, match="remote_fim must be 'suffix' or one of"):
        validate(CompletionSettings(), {"remote_fim": "gpt"})


def test_catalogue_lists_hub_models_builtin_and_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GHOSTBOOK_MODELS_DIR", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    (tmp_path / "my-finetune.gguf").write_bytes(b"GGUF" + bytes(1000))
    offers = {o.spec: o for o in catalogue.offers()}
    assert offers["default"].source == "builtin" and offers["default"].downloaded
    qwen = offers["hf:Qwen/Qwen2.5-Coder-1.5B-GGUF/qwen2.5-coder-1.5b-q8_0.gguf"]
    assert (qwen.family, qwen.params, qwen.licence, qwen.downloaded) == ("qwen2.5-coder", "1.5B", "Apache-2.0", False)
    assert qwen.ram_mb > qwen.size_mb and "tok/s" in qwen.to_json()["speed"]
    names = {o.name for o in offers.values()}
    for wanted in ("StarCoder2 7B Q4_K_M", "DeepSeek-Coder 6.7B base Q4_K_M", "CodeGemma 2B Q4_K_M",
                   "Qwen2.5-Coder 7B Q4_K_M", "Qwen2.5-Coder 0.5B Q8_0"):
        assert wanted in names
    assert offers[str(tmp_path / "my-finetune.gguf")].source == "local"
    for offer in offers.values():  # every family has its FIM template
        assert offer.family == "auto" or offer.family in TEMPLATES


def test_ram_check_refuses_with_a_clear_error() -> None:
    with pytest.raises(ModelLoadError, match="needs about 8.1 GB of RAM but only 2.0 GB is free"):
        catalogue.check_ram("Qwen2.5-Coder 7B Q8_0", 8100, available_mb=2000)
    catalogue.check_ram("small", 100, available_mb=2000)


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubStandIn]:
    shipped = default_model_path()
    assert shipped is not None
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"<html>not a model</html>" * 1000)
    stand_in = HubStandIn({REPO: {FILE: shipped, "broken.gguf": junk}}, bytes_per_s=4e6).start()
    monkeypatch.setenv("HF_ENDPOINT", stand_in.url)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    for name in ("HF_HUB_CACHE", "HF_TOKEN", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    yield stand_in
    stand_in.stop()


async def test_hf_spec_downloads_loads_with_progress_and_is_ready(hub: HubStandIn) -> None:
    registry = ModelRegistry()
    registry.progress_every_s = 0.0  # the shipped model loads in a blink: every step of it
    seen: list[ModelStatus] = []
    registry.subscribe(seen.append)
    setting = f"hf:{REPO}/{FILE}"
    backend = await registry.ensure(setting)
    assert backend is not None and registry.status.state == "ready"
    downloading = [s for s in seen if s.state == "downloading"]
    assert len({s.bytes_done for s in downloading}) >= 3 and downloading[-1].progress == 1.0
    assert downloading[-1].bytes_total == default_model_path().stat().st_size  # type: ignore[union-attr]
    loading = [s.progress for s in seen if s.state == "loading" and s.path]
    assert any(p is not None and 0 < p < 1 for p in loading)  # llama.cpp's own progress, not 0 -> 1
    states = [s.state for s in seen]
    assert states.index("downloading") < max(i for i, s in enumerate(states) if s == "loading") < states.index("ready")
    assert backend.tokenize("x = 1")
    await registry.close()
    hub.stop()  # chosen again: from the cache, no network
    registry = ModelRegistry()
    assert await registry.ensure(setting) is not None
    await registry.close()


async def test_corrupt_download_and_cancel_are_clear_errors(hub: HubStandIn) -> None:
    registry = ModelRegistry()
    assert await registry.ensure(f"hf:{REPO}/broken.gguf") is None
    assert registry.status.state == "error" and "the downloaded file is corrupt" in (registry.status.message or "")
    hub.bytes_per_s = 1e6
    registry.start(f"hf:{REPO}/{FILE}")
    downloading = asyncio.Event()
    registry.subscribe(lambda status: downloading.set() if status.bytes_done else None)
    await asyncio.wait_for(downloading.wait(), 10)
    registry.cancel_download()
    assert await registry.ensure(f"hf:{REPO}/{FILE}") is None
    assert registry.status.state == "error" and "download cancelled" in (registry.status.message or "")
    hub.bytes_per_s = None
    registry.start(f"hf:{REPO}/{FILE}", force=True)  # chosen again after the error
    assert await registry.ensure(f"hf:{REPO}/{FILE}") is not None
    await registry.close()


async def test_hf_repo_spec_downloads_a_transformers_snapshot(tiny_gguf: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tiny_gguf.parent / "hf"
    files = {f.name: f for f in folder.iterdir() if f.is_file()}
    stand_in = HubStandIn({"acme/tiny-fim": files}).start()
    monkeypatch.setenv("HF_ENDPOINT", stand_in.url)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    try:
        registry = ModelRegistry()
        registry.progress_every_s = 0.0
        seen: list[ModelStatus] = []
        registry.subscribe(seen.append)
        backend = await registry.ensure("hf:acme/tiny-fim")
        assert backend is not None, registry.status
        loading = [s.progress for s in seen if s.state == "loading" and s.path]
        assert any(p is not None and 0 < p < 1 for p in loading), loading  # transformers' weights loop
        assert type(backend).__name__ == "TransformersBackend" and backend.tokenize("x = 1")
        path = Path(registry.status.path or "")
        assert str(path).startswith(str(tmp_path / "hf" / "hub")) and (path / "config.json").is_file()
        assert any(r.startswith("GET /api/models/acme/tiny-fim") for r in stand_in.requests)
        await registry.close()
    finally:
        stand_in.stop()


async def test_a_model_bigger_than_free_ram_is_refused_before_loading(tmp_path: Path) -> None:
    big = tmp_path / "huge.gguf"  # sparse: 2 TB on paper, a few bytes on disk
    with open(big, "wb") as handle:
        handle.write(b"GGUF")
        handle.truncate(2 * 10**12)
    registry = ModelRegistry()
    assert await registry.ensure(str(big)) is None
    message = registry.status.message or ""
    assert registry.status.state == "error" and "huge.gguf needs about 2300.2 GB of RAM but only" in message
    assert "choose a smaller model" in message
