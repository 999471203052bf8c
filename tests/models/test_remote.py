"""Remote servers end to end through the completion service: a real llama-cpp-python server
(`llama_cpp.server`, its OpenAI-compatible `/v1/completions`) on loopback with the shipped GGUF for
`openai:`, and a loopback `/infill` stand-in over the same model for `llamacpp:` (llama-cpp-python's
server has no /infill). The API key is required by the server, comes from GHOSTBOOK_API_KEY or the
settings, and never reaches the browser."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from ghostbook import protocol as p
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.models.catalog import default_model_path
from ghostbook.models.loader import ModelRegistry

from tests.completion.conftest import FakeCell, Outbox, wire_dict

from .conftest import KEY, free_port
from .infill_standin import InfillStandIn

CELLS = [FakeCell("a", "code", "import numpy as np\nvalues = np.arange(10)"), FakeCell("b", "code", "total = ")]


def make_service(tmp_path: Path, settings: dict[str, object]) -> tuple[CompletionService, Outbox]:
    store = SettingsStore(tmp_path / "settings.json")
    store.update(settings)
    outbox = Outbox()
    return CompletionService(lambda: CELLS, outbox.send, outbox.broadcast, None, ModelRegistry(),
                             store), outbox


async def ask(service: CompletionService, outbox: Outbox, ref: str = "r1") -> dict[str, object]:
    await service.suggest("t1", p.Suggest(type="suggest", ref=ref, cell_id="b", cursor=8, trigger="forced"))
    errors = outbox.of("suggestion_error", ref)
    assert not errors, errors
    return outbox.of("suggestion", ref)[-1]


async def test_openai_server_gives_ghost_text_through_the_family_template(
        llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GHOSTBOOK_API_KEY", KEY)
    service, outbox = make_service(tmp_path, {"model": f"openai:{llama_server}", "remote_fim": "ghostbook",
                                              "max_new_tokens": 16})
    last = await ask(service, outbox)
    assert last["done"] and isinstance(last["text"], str) and last["text"].strip(), last
    assert "<" not in str(last["text"])  # special tokens stopped, filters applied
    assert service.registry.status.state == "ready" and service.last_gen is not None
    assert service.last_gen.generated >= 1
    await service.close()
    await service.registry.close()


async def test_api_key_from_settings_is_used_and_never_sent_to_the_browser(
        llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GHOSTBOOK_API_KEY", raising=False)
    service, outbox = make_service(tmp_path, {"model": f"openai:{llama_server}", "remote_fim": "ghostbook",
                                              "api_key": KEY, "max_new_tokens": 8})
    assert (await ask(service, outbox))["done"]
    message = wire_dict(service.controls.settings_message("x"))
    assert message["settings"]["api_key"] == "********" and KEY not in str(message)
    await service.close()
    await service.registry.close()


async def test_wrong_key_and_unreachable_server_are_clear_errors(llama_server: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GHOSTBOOK_API_KEY", "wrong")
    registry = ModelRegistry()
    assert await registry.ensure(f"openai:{llama_server}") is None
    assert "refused the API key (HTTP 401): set GHOSTBOOK_API_KEY" in (registry.status.message or "")
    closed = f"http://127.0.0.1:{free_port()}"
    assert await registry.ensure(f"llamacpp:{closed}") is None
    assert f"cannot reach {closed}" in (registry.status.message or "")
    await registry.close()


async def test_llamacpp_infill_gets_the_other_cells_as_input_extra(tmp_path: Path) -> None:
    model = default_model_path()
    assert model is not None
    server = InfillStandIn(model).start()
    try:
        service, outbox = make_service(tmp_path, {"model": f"llamacpp:{server.url}", "max_new_tokens": 16})
        last = await ask(service, outbox)
        assert last["done"] and str(last["text"]).strip()
        body = server.bodies[-1]
        assert body["input_prefix"] == "total = " and body["stream"] is True and body["n_predict"] == 16
        assert [chunk["filename"] for chunk in body["input_extra"]] == ["cells above"]
        assert "values = np.arange(10)" in body["input_extra"][0]["text"]
        assert service.registry.backend is not None and service.registry.backend.info.n_ctx == 512  # from /props
        await service.close()
        await service.registry.close()
    finally:
        server.stop()


async def test_requests_cancelled_mid_stream_leave_the_server_usable(
        llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A newer request cancels the one streaming (as typing does): the backend hangs up, and the server
    answers the next request at once."""
    monkeypatch.setenv("GHOSTBOOK_API_KEY", KEY)
    service, outbox = make_service(tmp_path, {"model": f"openai:{llama_server}", "remote_fim": "ghostbook",
                                              "max_new_tokens": 200})
    await service.registry.ensure(service.store.current.model)
    for i in range(3):
        task = service.suggest("t1", p.Suggest(type="suggest", ref=f"c{i}", cell_id="b", cursor=8, trigger="forced"))
        for _ in range(500):  # until it streams
            if outbox.of("suggestion", f"c{i}"):
                break
            await asyncio.sleep(0.01)  # noqa: ASYNC110 - polls what the service sent
        task.cancel()
    started = time.monotonic()
    last = await asyncio.wait_for(ask(service, outbox, "final"), 30)
    assert last["done"] and time.monotonic() - started < 20
    await service.close()
    await service.registry.close()


def test_openai_prompt_forms_suffix_field_or_family_template() -> None:
    from ghostbook.models.remote import OpenAIBackend, TextRequest

    request = TextRequest("a\nx = ", "\nprint(x)", "x = ", "\nprint(x)", 24)
    path, body = OpenAIBackend("http://h:1", "n").payload(request)
    assert path == "/v1/completions" and (body["prompt"], body["suffix"]) == ("a\nx = ", "\nprint(x)")
    path, body = OpenAIBackend("http://h:1/v1", "n", family="qwen2.5-coder").payload(request)
    assert path == "/completions" and "suffix" not in body
    assert body["prompt"] == "<|fim_prefix|>a\nx = <|fim_suffix|>\nprint(x)<|fim_middle|>"
    assert len(body["stop"]) <= 4 and "<|endoftext|>" in body["stop"] and body["max_tokens"] == 24
