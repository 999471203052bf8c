"""The final rules against a real llama-cpp-python server (issue 30, item 6): the issue's two contexts,
`fig, ax = plt.` and `df.` in a notebook with pandas, sent through the completion service with an
`openai:` model (the API's suffix field, and the family's FIM template as prompt text). Whatever the
shipped model writes there, the suggestion shown never starts a new statement on the cursor's line
and breaks no rule; where the server's own text did, it is dropped. (`tests/completion/test_final_filter.py`
has the issue's exact texts from a server whose output is fixed.)"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from ghostbook import protocol as p
from ghostbook.completion.confidence import ConfidenceModel
from ghostbook.completion.garbage import garbage_reason
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.decoding.statements import NewStatement
from ghostbook.models.backend import TokenOut
from ghostbook.models.loader import ModelRegistry
from ghostbook.models.remote import RemoteBackend

from tests.completion.conftest import FakeCell, Outbox

from .conftest import KEY

NOTEBOOKS = {
    "plt": [FakeCell("a", "code", "import numpy as np\nx = np.linspace(0, 10, 100)\ny = np.sin(x)"),
            FakeCell("b", "code", "import matplotlib.pyplot as plt\nfig, ax = plt.")],
    "df": [FakeCell("a", "code", "import pandas as pd"),
           FakeCell("b", "code", "df = pd.read_csv('sales.csv')\ndf.head()"),
           FakeCell("c", "code", "df.")],
}


@pytest.mark.parametrize("fim", ["suffix", "ghostbook"])
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
async def test_a_real_servers_suggestion_starts_no_statement_mid_line(
        llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, notebook: str, fim: str) -> None:
    monkeypatch.setenv("GHOSTBOOK_API_KEY", KEY)
    raw: list[bytes] = []
    stream_text = RemoteBackend.stream_text

    async def recorded(self: RemoteBackend, *args: object, **kwargs: object) -> AsyncGenerator[TokenOut, None]:
        async for token in stream_text(self, *args, **kwargs):  # type: ignore[arg-type]
            raw.append(token.piece)
            yield token

    monkeypatch.setattr(RemoteBackend, "stream_text", recorded)
    cells = NOTEBOOKS[notebook]
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"model": f"openai:{llama_server}", "remote_fim": fim, "max_new_tokens": 24})
    out = Outbox()
    registry = ModelRegistry()
    service = CompletionService(lambda: cells, out.send, out.broadcast, None, registry, store)
    before = cells[-1].source
    await service.suggest("t1", p.Suggest(type="suggest", ref="r1", cell_id=cells[-1].id, cursor=len(before),
                                          trigger="forced"))
    assert not out.of("suggestion_error", "r1"), out.of("suggestion_error", "r1")
    done = out.of("suggestion", "r1")[-1]
    text, wrote = str(done["text"]), b"".join(raw).decode("utf-8", "replace")
    print(f"\n{notebook} ({fim}): the server wrote {wrote!r}, shown {text!r}")
    assert done["done"] and raw  # the server answered
    assert not NewStatement(before).starts_statement(text)
    assert garbage_reason(text, cell_before=before) is None
    if NewStatement(before).starts_statement(wrote):
        assert text == ""
    await service.close()
    await registry.close()


async def test_a_servers_automatic_suggestion_is_not_held_back_by_the_in_process_confidence(
        llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The confidence gate judges lines of the editor's own search; a server's text is not one: with a
    gate that would hold back every in-process suggestion, the server's shows after a pause as it does
    on Ctrl+Space."""
    monkeypatch.setenv("GHOSTBOOK_API_KEY", KEY)
    cells = NOTEBOOKS["plt"]
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"model": f"openai:{llama_server}", "remote_fim": "ghostbook", "max_new_tokens": 24})
    out = Outbox()
    registry = ModelRegistry()
    service = CompletionService(lambda: cells, out.send, out.broadcast, None, registry, store)
    service.confidence = ConfidenceModel({"bias": -30.0}, {"balanced": 0.5, "often": 0.5, "rarely": 0.5})
    cursor = len(cells[-1].source)
    for ref, trigger in (("forced", "forced"), ("auto", "auto")):
        await service.suggest("t1", p.Suggest(type="suggest", ref=ref, cell_id=cells[-1].id, cursor=cursor,
                                              trigger=trigger))  # type: ignore[arg-type]
    forced, auto = out.of("suggestion", "forced")[-1]["text"], out.of("suggestion", "auto")[-1]["text"]
    assert forced and auto == forced, (forced, auto)
    await service.close()
    await registry.close()
