"""A completion model without FIM tokens (a base or chat model, here the real SmolLM2-135M-Instruct)
completes from the text above the cursor: the `plain` family, the code below left out of the prompt."""

from __future__ import annotations

from pathlib import Path

from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.loader import ModelRegistry
from ghostbook.models.templates import PLAIN

from tests.completion.conftest import FakeCell, Outbox
from tests.completion.test_service import Namespace, suggest


async def test_a_gguf_without_fim_tokens_completes_from_the_text_above(smollm2: Path, tmp_path: Path) -> None:
    cells = [FakeCell("a", "code", "import numpy as "), FakeCell("b", "code", "BELOW_THE_CURSOR = 1")]
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"model": str(smollm2)})
    registry = ModelRegistry()
    outbox = Outbox()
    service = CompletionService(lambda: cells, outbox.send, outbox.broadcast, Namespace(), registry, store)
    try:
        await service.suggest("t1", suggest("r1", "a", len(cells[0].source), "forced"))
        backend = registry.backend
        assert isinstance(backend, LlamaCppBackend) and backend.info.family == PLAIN
        prompt = b"".join(map(backend.piece, backend.last_prompt)).decode()
        assert prompt.endswith("import numpy as") and "BELOW_THE_CURSOR" not in prompt
        # nor does the code below take room in the context: all of it is the code above's
        context = service._context(backend, cells, 0, len(cells[0].source), store.current)
        assert context.suffix == "" and "BELOW_THE_CURSOR" in context.below
        assert outbox.of("suggestion", "r1")[-1]["text"] == "np"
        cells[0].source = "def add(a, b):\n    return "
        await service.suggest("t1", suggest("r2", "a", len(cells[0].source), "forced"))
        assert outbox.of("suggestion", "r2")[-1]["text"] == "a + b"  # nothing in the notebook to copy
    finally:
        await registry.close()
