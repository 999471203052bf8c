"""One final filter for every backend (issue 30, item 6): a remote server's suggestion and an in-process
model's pass the same garbage, syntax and line rules (`filters.FINAL`, whose `drop_garbage` keeps
`decoding.suggestion.SuggestionRules`). A loopback server whose `/v1/completions` streams a fixed text
(the issue's `fig, ax = plt.` -> `from matplotlib.tri._trifinder import TriFinder` and `df.` ->
`from __future__ import annotations`) stands in for a server that writes them: through the real
completion service with an `openai:` model the suggestion is dropped, as the same text from an
in-process backend is, by the same rule on the same text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from ghostbook import protocol as p
from ghostbook.completion import filters
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.decoding.suggestion import SuggestionRules
from ghostbook.models.backend import Backend
from ghostbook.models.loader import ModelRegistry
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.completion.conftest import FakeCell, Outbox, ScriptedBackend
from tests.loopback import Loopback

PLT = [FakeCell("a", "code", "import numpy as np\nimport matplotlib.pyplot as plt"),
       FakeCell("b", "code", "fig, ax = plt.")]
DF = [FakeCell("a", "code", "import pandas as pd"), FakeCell("b", "code", "df = pd.read_csv('sales.csv')\ndf.")]
ISSUE = [(PLT, "from matplotlib.tri._trifinder import TriFinder"), (DF, "from __future__ import annotations")]


class FixedServer:
    """An OpenAI-compatible server on loopback: `/v1/models`, and `/v1/completions` streaming `text`
    in small pieces whatever the prompt (it records each request's body)."""

    def __init__(self) -> None:
        self.text = ""
        self.bodies: list[dict[str, Any]] = []
        self.url = ""
        self._loopback = Loopback()

    async def models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "fixed", "object": "model"}]})

    async def completions(self, request: Request) -> Response:
        self.bodies.append(await request.json())
        pieces = [self.text[i:i + 3] for i in range(0, len(self.text), 3)]

        def events() -> Iterator[str]:
            for piece in pieces:
                yield f"data: {json.dumps({'choices': [{'text': piece, 'finish_reason': None}]})}\n\n"
            yield f"data: {json.dumps({'choices': [{'text': '', 'finish_reason': 'stop'}]})}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    def start(self) -> FixedServer:

        self.url = self._loopback.serve([Route("/v1/models", self.models),
                                         Route("/v1/completions", self.completions, methods=["POST"])])
        return self

    def stop(self) -> None:
        self._loopback.stop()


@pytest.fixture
def server() -> Iterator[FixedServer]:
    stand_in = FixedServer().start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(cell before the cursor, text) of every whole suggestion the final rules judge."""
    seen: list[tuple[str, str]] = []
    enforce = SuggestionRules.enforce

    def spy(self: SuggestionRules, text: str) -> str:
        before = next(rule.before for name, rule in self.rules if name == "starts a new statement")  # type: ignore[attr-defined]
        seen.append((before, text))
        return enforce(self, text)

    monkeypatch.setattr(SuggestionRules, "enforce", spy)
    return seen


async def suggest(cells: list[FakeCell], tmp_path: Path, settings: dict[str, object],
                  backend: object | None = None, cursor: int | None = None) -> str:
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"max_new_tokens": 64, **settings})
    registry = ModelRegistry(lambda path, family, name: cast(Backend, backend)) if backend is not None \
        else ModelRegistry()
    if backend is not None:
        (tmp_path / "m.gguf").write_bytes(b"GGUF")
        store.update({"model": str(tmp_path / "m.gguf")})
    out = Outbox()
    service = CompletionService(lambda: cells, out.send, out.broadcast, None, registry, store)
    cursor = len(cells[-1].source) if cursor is None else cursor
    await service.suggest("t1", p.Suggest(type="suggest", ref="r1", cell_id=cells[-1].id, cursor=cursor,
                                          trigger="forced"))
    assert not out.of("suggestion_error", "r1"), out.of("suggestion_error", "r1")
    done = out.of("suggestion", "r1")[-1]
    assert done["done"]
    await service.close()
    await registry.close()
    return str(done["text"])


@pytest.mark.parametrize(("cells", "text"), ISSUE, ids=["plt", "df"])
def test_the_issue_texts_fail_the_final_filter(cells: list[FakeCell], text: str) -> None:
    ctx = filters.FilterContext(cells[-1].source, "")
    assert filters.run(text, ctx) == ("", False)
    assert filters.run(" " + text, ctx)[0] == "" and filters.run("\n" + text, ctx)[0] == ""
    assert filters.run("head()", filters.FilterContext(DF[-1].source, "")) == ("head()", False)


@pytest.mark.parametrize(("cells", "text"), ISSUE, ids=["plt", "df"])
async def test_a_remote_servers_garbage_is_dropped_as_an_in_process_models_is(
        server: FixedServer, judged: list[tuple[str, str]], tmp_path: Path, cells: list[FakeCell],
        text: str) -> None:
    server.text = text
    remote = await suggest(cells, tmp_path / "remote", {"model": f"openai:{server.url}"})
    assert server.bodies and server.bodies[-1]["prompt"].endswith(cells[-1].source)  # the server was asked
    assert remote == ""
    assert (cells[-1].source, text) in judged  # the final rules judged the server's whole text
    judged.clear()
    # (no notebook candidates: else Ctrl+Space's last resort offers the notebook's own line instead)
    local = await suggest(cells, tmp_path / "local", {"beam_width": 1, "notebook_candidates": False},
                          ScriptedBackend(text))
    assert local == ""
    assert (cells[-1].source, text) in judged  # the same rules on the same text


async def test_a_remote_servers_good_text_passes(server: FixedServer, tmp_path: Path) -> None:
    server.text = "head()\n\nprint(df)"
    assert await suggest(DF, tmp_path, {"model": f"openai:{server.url}"}) == "head()"


# Issue 40, item 4: no line repeats the one before it. (cells, cursor, the model's text, what shows):
# a second line equal to the first up to spaces goes; a first line that completes the cursor's line,
# with the bracket the editor closed, into the line above is no suggestion.
REPEATS = [([FakeCell("a", "code", "price, qty = 2, 3\n")], None, "total = price*qty\ntotal = price * qty",
            "total = price*qty"),
           ([FakeCell("a", "code", "plt.plot(x, y)\nplt.plot()")], len("plt.plot(x, y)\nplt.plot("), "x, y", "")]


@pytest.mark.parametrize(("cells", "cursor", "text", "shown"), REPEATS, ids=["second-line", "line-above"])
async def test_no_line_repeats_the_one_before_it_on_any_backend(
        server: FixedServer, tmp_path: Path, cells: list[FakeCell], cursor: int | None, text: str,
        shown: str) -> None:
    server.text = text
    assert await suggest(cells, tmp_path / "remote", {"model": f"openai:{server.url}"}, cursor=cursor) == shown
    assert server.bodies  # the server was asked
    assert await suggest(cells, tmp_path / "local", {"beam_width": 1, "notebook_candidates": False},
                         ScriptedBackend(text), cursor=cursor) == shown
