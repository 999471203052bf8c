"""The transformers backend's `device` setting (auto/cpu/cuda) and the in-process options the settings
carry to the model registry (device, speculative)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from ghostbook.completion.settings import CompletionSettings, SettingsError, validate
from ghostbook.models.backend import ModelLoadError
from ghostbook.models.loader import ModelRegistry
from ghostbook.models.transformers_backend import TransformersBackend, pick_device

no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")


@no_gpu
def test_cuda_without_a_gpu_is_a_clear_error(tiny_gguf: Path) -> None:
    with pytest.raises(ModelLoadError, match="cuda but torch sees no GPU.*choose auto or cpu"):
        pick_device("cuda")
    b = TransformersBackend(tiny_gguf.parent / "hf", device="cuda")
    with pytest.raises(ModelLoadError, match="sees no GPU"):
        b.load()


@no_gpu
def test_auto_runs_on_the_cpu_in_float32(tiny_gguf: Path) -> None:
    assert pick_device(None) == pick_device("auto") == "cpu"
    b = TransformersBackend(tiny_gguf.parent / "hf", threads=1)
    b.load()
    assert b.info.extra == {"device": "cpu", "dtype": "float32"}
    b.unload()


def test_unknown_device_is_refused() -> None:
    with pytest.raises(ModelLoadError, match="device must be one of auto, cpu, cuda"):
        pick_device("tpu")
    with pytest.raises(SettingsError, match="device must be 'auto', 'cpu' or 'cuda'"):
        validate(CompletionSettings(), {"device": "gpu"})
    with pytest.raises(SettingsError, match="speculative must be true or false"):
        validate(CompletionSettings(), {"speculative": "yes"})
    changed = validate(CompletionSettings(), {"device": "cpu", "speculative": False, "draft_model": " /m "})
    assert (changed.device, changed.speculative, changed.draft_model) == ("cpu", False, "/m")
    with pytest.raises(SettingsError, match="draft_model must be a folder path or empty"):
        validate(CompletionSettings(), {"draft_model": 3})


def test_registry_passes_the_options_to_the_backend(tiny_gguf: Path) -> None:
    registry = ModelRegistry()
    b = TransformersBackend(tiny_gguf.parent / "hf")
    registry.backend, registry.setting = b, str(tiny_gguf.parent / "hf")
    registry.configure_local("auto", True)
    assert b.speculative is True and registry.setting is not None
    registry.configure_local("auto", False)
    assert b.speculative is False
    registry.configure_local("cpu", False)  # another device: the model is loaded again
    assert registry.setting is None and registry.local_options == ("cpu", False, "")
    registry.setting = str(tiny_gguf.parent / "hf")
    registry.configure_local("cpu", False, str(tiny_gguf.parent / "hf"))  # a draft model: loaded again
    assert registry.setting is None


async def test_registry_loads_the_draft_model(tiny_gguf: Path, tmp_path: Path) -> None:
    """The settings' draft model reaches the transformers backend; a bad one is a clear error."""
    hf = str(tiny_gguf.parent / "hf")
    registry = ModelRegistry()
    registry.configure_local("cpu", True, hf)
    backend = await registry.ensure(hf)
    assert isinstance(backend, TransformersBackend) and backend.draft is not None and backend.speculative
    registry.configure_local("cpu", True, str(tmp_path))
    assert await registry.ensure(hf) is None
    # the model that serves keeps serving (`ModelRegistry`), and the message says why the new one did not
    assert registry.status.message is not None
    assert "draft model: not a transformers model folder" in registry.status.message
