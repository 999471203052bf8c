"""A failed model switch keeps the previous model serving (issue 30, item 5b): a hub model that cannot
be downloaded (404, HTTP 500, the connection dropping halfway, every retry) leaves the shipped model
answering requests through the real completion service, the setting back on it and a status that says
what failed and what serves on; while a new model downloads, the old one answers at once, and it is
replaced only once the new one is ready. The edit model's registry behaves the same."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ghostbook import protocol as p
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.editing.service import EditService
from ghostbook.models import loader
from ghostbook.models.backend import ModelStatus
from ghostbook.models.catalog import default_model_path
from ghostbook.models.loader import ModelRegistry, chat_server, edit_factory

from tests.completion.conftest import FakeCell, Outbox, wire_dict
from tests.models.hub_standin import HubStandIn

REPO = "acme/fim-GGUF"
GOOD, SERVER_ERROR, DROPPED = "good-q8_0.gguf", "five-hundred.gguf", "dropped.gguf"
SOURCE = "import numpy as np\nx = np."  # the shipped model suggests something here


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubStandIn]:
    shipped = default_model_path()
    assert shipped is not None
    files = {GOOD: shipped, SERVER_ERROR: shipped, DROPPED: shipped}
    stand_in = HubStandIn({REPO: files}, fail={SERVER_ERROR: 500, DROPPED: "drop"}).start()
    monkeypatch.setenv("HF_ENDPOINT", stand_in.url)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    for name in ("HF_HUB_CACHE", "HF_TOKEN", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    yield stand_in
    stand_in.stop()


async def settled(registry: ModelRegistry, timeout: float = 60) -> ModelStatus:
    """The status once the load in flight has ended (ready, a fallback, or an error)."""
    deadline = time.monotonic() + timeout
    while registry.status.state in ("downloading", "loading"):
        assert time.monotonic() < deadline, registry.status
        await asyncio.sleep(0.05)
    return registry.status


@pytest.mark.parametrize(("file", "reason"), [
    ("missing.gguf", "has no file missing.gguf (404)"),
    (SERVER_ERROR, "(HTTP 500)"),
    (DROPPED, "downloading"),
])
async def test_a_failed_download_keeps_the_model_serving(hub: HubStandIn, file: str, reason: str) -> None:
    registry = ModelRegistry()
    shipped = await registry.ensure("default")
    assert shipped is not None
    chosen = f"hf:{REPO}/{file}"
    registry.start(chosen)
    assert registry.status.serving == "default"  # while the new one is fetched, the old one answers
    assert await registry.for_request(chosen) is shipped
    status = await settled(registry)
    assert (status.state, status.name, status.serving) == ("ready", "default", "default")
    message = status.message or ""
    assert message.startswith(f"Could not load {REPO}/{file}: ") and reason in message, message
    assert message.endswith(". Still using the built-in model; pick another model or retry."), message
    assert registry.fell_back == (chosen, "default") and registry.setting == "default"
    assert registry.backend is shipped and await registry.for_request("default") is shipped
    assert await registry.ensure("default") is shipped and registry.status is status  # nothing loads again
    await registry.close()


async def test_the_service_answers_from_the_old_model_until_the_new_one_is_ready(hub: HubStandIn,
                                                                                tmp_path: Path) -> None:
    cells = [FakeCell("a", "code", SOURCE)]
    out = Outbox()
    store = SettingsStore(tmp_path / "settings.json")
    registry = ModelRegistry()
    service = CompletionService(lambda: cells, out.send, out.broadcast, None, registry, store)

    async def ask(ref: str) -> dict[str, object]:
        await service.suggest("t1", p.Suggest(type="suggest", ref=ref, cell_id="a", cursor=len(SOURCE),
                                              trigger="forced"))
        assert not out.of("suggestion_error", ref), out.of("suggestion_error", ref)
        return out.of("suggestion", ref)[-1]

    first = await ask("r1")
    assert first["done"] and str(first["text"]).strip()
    shipped = registry.backend

    # a model that cannot be downloaded: the setting goes back to the model serving, every tab is told
    await service.handle("t1", p.UpdateSettings(type="update_settings", ref="s1",
                                                settings={"model": f"hf:{REPO}/{SERVER_ERROR}"}))
    status = await settled(registry)
    assert store.current.model == "default"
    assert json.loads((tmp_path / "settings.json").read_text())["completion"]["model"] == "default"
    told = [m for m in out.broadcasts if m["type"] == "settings"]
    assert told and told[-1]["settings"]["model"] == "default"
    assert told[-1]["model"]["message"] == status.message and "HTTP 500" in (status.message or "")
    again = await ask("r2")
    assert again["text"] == first["text"] and registry.backend is shipped

    # a model that downloads slowly: the old one answers meanwhile, at once; the new one replaces it
    hub.bytes_per_s = 1.5e6  # ~3 s for the shipped 4.6 MB
    downloading = asyncio.Event()
    registry.subscribe(lambda status: downloading.set() if status.bytes_done else None)
    await service.handle("t1", p.UpdateSettings(type="update_settings", ref="s2",
                                                settings={"model": f"hf:{REPO}/{GOOD}"}))
    await asyncio.wait_for(downloading.wait(), 10)
    start = time.monotonic()
    meanwhile = await ask("r3")
    assert time.monotonic() - start < 2 and registry.status.state == "downloading"
    assert meanwhile["text"] == first["text"] and registry.backend is shipped
    status = await settled(registry)
    assert (status.state, status.serving, status.message) == ("ready", f"hf:{REPO}/{GOOD}", None)
    assert registry.backend is not shipped and store.current.model == f"hf:{REPO}/{GOOD}"
    assert shipped is not None and shipped._llm is None  # type: ignore[attr-defined]  # unloaded once replaced
    assert (await ask("r4"))["text"] == first["text"]  # the same weights under another name
    await service.close()
    await registry.close()


async def test_a_failed_edit_model_keeps_the_edit_model_serving(tmp_path: Path) -> None:
    shipped = default_model_path()
    assert shipped is not None
    out = Outbox()
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"edit_model": str(shipped)})
    registry = ModelRegistry(edit_factory, remote=chat_server)
    editing = EditService(lambda: [], out.send, out.broadcast, registry=registry, store=store)
    await editing.settings_changed()
    assert (await settled(registry)).state == "ready"
    serving = registry.backend
    missing = str(tmp_path / "missing.gguf")
    store.update({"edit_model": missing})
    await editing.settings_changed()
    status = await settled(registry)
    assert (status.state, status.serving, registry.backend) == ("ready", str(shipped), serving)
    assert (status.message or "").startswith(f"Could not load {missing}: model file not found")
    assert store.current.edit_model == str(shipped)  # the setting follows the model serving
    assert out.broadcasts[-1] == wire_dict(editing.status_message())
    assert out.broadcasts[-1]["model"]["message"] == status.message
    await editing.close()
    await registry.close()


async def test_a_model_that_fits_only_without_the_one_serving_gets_its_memory(
        tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading beside the model serving must not refuse a model that fits where the old one stood: that
    one stops serving first. One that does not fit even then is refused, and the old one serves on."""
    shipped = default_model_path()
    assert shipped is not None
    registry = ModelRegistry()
    old = await registry.ensure(str(shipped))
    assert old is not None
    needed = loader.ram_needed_mb(tiny_gguf)
    monkeypatch.setattr(loader, "available_ram_mb", lambda: needed / 2)  # it fits only with the old one's RAM
    monkeypatch.setattr(loader, "_ram_held", lambda backend: needed)
    new = await registry.ensure(str(tiny_gguf))
    assert new is not None and new is not old and old._llm is None  # type: ignore[attr-defined]
    assert registry.status.message is None and registry.fell_back is None
    monkeypatch.setattr(loader, "_ram_held", lambda backend: 1.0)  # nor with it: refused, the model serves on
    registry.start(str(shipped))
    status = await settled(registry)
    assert (status.state, status.serving, registry.backend) == ("ready", str(tiny_gguf), new)
    assert "of RAM but only" in (status.message or "") and "Still using" in (status.message or "")
    await registry.close()
