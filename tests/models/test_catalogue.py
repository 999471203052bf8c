"""The catalogue's instruct (edit) models beside the completion models: each line's role, size, RAM,
licence, and the `catalogue` message's field for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghostbook.models import catalogue, specs
from ghostbook.models.backend import ModelLoadError
from ghostbook.models.templates import TEMPLATES

QWEN_INSTRUCT = {  # (params, quant) -> size in MB of Qwen's own GGUF file
    ("0.5B", "Q8_0"): 676, ("0.5B", "Q4_K_M"): 491, ("1.5B", "Q8_0"): 1895, ("1.5B", "Q4_K_M"): 1117,
    ("3B", "Q8_0"): 3616, ("3B", "Q4_K_M"): 2105, ("7B", "Q8_0"): 8099, ("7B", "Q4_K_M"): 4683,
}


def chat_offers() -> dict[str, catalogue.Offer]:
    return {o.name: o for o in catalogue.HUB if o.role == "chat"}


def test_qwen_coder_instruct_models_in_both_quantisations() -> None:
    found = chat_offers()
    for (params, quant), size in QWEN_INSTRUCT.items():
        offer = found[f"Qwen2.5-Coder {params} Instruct {quant}"]
        repo = f"Qwen/Qwen2.5-Coder-{params}-Instruct-GGUF"
        file = f"qwen2.5-coder-{params.lower()}-instruct-{quant.lower()}.gguf"
        assert offer.spec == f"hf:{repo}/{file}" and offer.size_mb == size and offer.params == params
        parsed = specs.parse(offer.spec)  # a valid hf: spec, found again by the loader
        assert (parsed.kind, parsed.repo, parsed.filename) == ("hf_file", repo, file)
        assert catalogue.hub_offer(repo, file) == offer
        assert offer.licence == ("Qwen Research License (non-commercial)" if params == "3B" else "Apache-2.0")
        assert offer.backends == "llama.cpp" and not offer.gated and offer.family == "qwen2.5-coder"


def test_every_line_has_a_role_and_the_sizes_ram_and_licence_the_panel_shows() -> None:
    chat = [o for o in catalogue.HUB if o.role == "chat"]
    fim = [o for o in catalogue.HUB if o.role == "fim"]
    assert len(chat) >= 8 and len(fim) >= 16 and len(chat) + len(fim) == len(catalogue.HUB)
    assert len({o.spec for o in catalogue.HUB}) == len(catalogue.HUB)
    for offer in catalogue.HUB:
        assert offer.licence and offer.params and offer.family in TEMPLATES
        assert 300 < offer.size_mb < offer.ram_mb < offer.size_mb * 1.3 + 300  # weights + KV cache + buffers
        assert offer.serves(offer.role) and not offer.serves("chat" if offer.role == "fim" else "fim")  # type: ignore[arg-type]
    by_size = sorted(chat, key=lambda o: o.size_mb)
    assert by_size[0].name == "Qwen2.5-Coder 0.5B Instruct Q4_K_M"  # the smallest edit model: fits anywhere
    assert "Qwen3 4B Instruct 2507 Q4_K_M" in chat_offers()


def test_ram_check_refuses_the_largest_edit_model_on_a_small_machine() -> None:
    big = chat_offers()["Qwen2.5-Coder 7B Instruct Q8_0"]
    with pytest.raises(ModelLoadError, match=r"needs about 9\.6 GB of RAM but only 4\.0 GB is free"):
        catalogue.check_ram(big.name, big.ram_mb, available_mb=4000)
    small = chat_offers()["Qwen2.5-Coder 1.5B Instruct Q4_K_M"]
    catalogue.check_ram(small.name, small.ram_mb, available_mb=4000)


def test_catalogue_message_carries_the_role(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GHOSTBOOK_MODELS_DIR", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    (tmp_path / "mine.gguf").write_bytes(b"GGUF" + bytes(1000))
    offers = {o.spec: o.to_json() for o in catalogue.offers()}
    assert offers["default"]["role"] == "fim"
    assert offers["hf:Qwen/Qwen2.5-Coder-1.5B-GGUF/qwen2.5-coder-1.5b-q8_0.gguf"]["role"] == "fim"
    edit = offers["hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"]
    assert (edit["role"], edit["downloaded"], edit["source"]) == ("chat", False, "hub") and "tok/s" in edit["speed"]
    local = offers[str(tmp_path / "mine.gguf")]
    assert local["role"] == "both" and local["source"] == "local"  # a local file is offered for either setting
