"""The confidence of automatic ghost text (`completion.confidence`) and the gate on it in the service:
an automatic suggestion shows only at the "Suggest" setting's threshold, streams nothing before its
first line is judged, and Ctrl+Space always shows; a forced request that found nothing searches again."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ghostbook.completion.confidence import ConfidenceModel, Evidence, confidence_model, cursor_kind
from ghostbook.completion.settings import SettingsError, SettingsStore

from tests.completion.conftest import FakeCell, ScriptedBackend
from tests.completion.test_service import make_service, suggest


def test_cursor_kinds_name_the_benchmark_kinds() -> None:
    assert cursor_kind("") == "cell"
    assert cursor_kind("x = 1\n    ") == "line"
    assert cursor_kind("df.") == "after ."
    assert cursor_kind("plot(") == "after ("
    assert cursor_kind("x = ") == "after ="
    assert cursor_kind("if x == ") == "mid"
    assert cursor_kind("f(a, ") == "after ,"
    assert cursor_kind("from os import ") == "after import"


def test_a_copy_the_notebook_holds_is_more_likely_than_a_line_the_beam_ran_out_of_time_on() -> None:
    model = confidence_model()  # the shipped one
    notebook = "import pandas as pd\ndf = pd.read_csv('a.csv')\ndf.head()\n"
    copy = Evidence("head()", "copy", "df.", "", notebook, 0, agreed=True, margin=float("inf"), offered=1)
    cut = Evidence("groupby('a').sum().reset_index()", "cut", "df.", "", notebook)
    assert model.probability(copy) > model.probability(cut)
    assert model.probability(Evidence("", "copy", "df.", "")) == 0.0


def test_the_shipped_model_has_a_threshold_per_setting_in_order() -> None:
    model = confidence_model()
    assert set(model.weights) >= {"bias", "origin=copy", "origin=cut", "kind=line"}
    assert 0 < model.threshold("often") < model.threshold("balanced") < model.threshold("confident") < 1


def test_a_broken_model_file_holds_nothing_back(tmp_path: Path) -> None:
    path = tmp_path / "confidence.json"
    path.write_text('{"weights": {"bias": "not a number"}}')
    assert ConfidenceModel.load(path) == ConfidenceModel()
    path.write_text("[1, 2")
    assert ConfidenceModel.load(path) == ConfidenceModel()
    assert ConfidenceModel().probability(Evidence("x", "beam", "", "")) == 1.0
    assert ConfidenceModel.from_json(json.loads(json.dumps(confidence_model().to_json()))) == confidence_model()


def test_suggest_setting_is_validated(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "s.json")
    assert store.current.suggest == "balanced"
    store.update({"suggest": "confident"})
    assert SettingsStore(tmp_path / "s.json").current.suggest == "confident"
    try:
        store.update({"suggest": "always"})
    except SettingsError as exc:
        assert "suggest" in str(exc)
    else:
        raise AssertionError("an unknown Suggest value was taken")


async def test_an_unconfident_automatic_suggestion_never_shows_but_ctrl_space_does(tmp_path: Path) -> None:
    backend = ScriptedBackend("a = 1\nb = 2\nc = 3")
    cells = [FakeCell("a", "code", "x = 0\n")]
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    service.confidence = ConfidenceModel({"bias": -3.0}, {"often": 0.01, "balanced": 0.5, "confident": 0.9},
                                         fitted_on=service.store.current.model)
    await service.suggest("t1", suggest("r1", "a", 6, "auto"))
    assert [m["text"] for m in out.of("suggestion", "r1")] == [""]  # nothing streamed, then nothing
    await service.suggest("t1", suggest("r2", "a", 6, "forced"))  # the cache's text, asked for
    assert out.of("suggestion", "r2")[-1]["text"] == "a = 1\nb = 2\nc = 3"
    service.store.update({"suggest": "often"})
    service.cache.clear()
    await service.suggest("t1", suggest("r3", "a", 6, "auto"))
    texts = [m["text"] for m in out.of("suggestion", "r3")]
    assert texts[-1] == "a = 1\nb = 2\nc = 3" and texts[0] == "a = 1"  # shown, streamed line by line
    assert abs(out.of("suggestion", "r3")[-1]["confidence"] - 0.047) < 0.001


async def test_ctrl_space_searches_again_where_the_first_search_found_nothing(tmp_path: Path) -> None:
    class FirstTryEmpty(ScriptedBackend):
        async def stream(self, prompt_ids, params, cancel):  # type: ignore[no-untyped-def,override]
            if params.search_ms:  # the time-budgeted search finds nothing that fits
                self.params.append(params)
                return
            async for token in super().stream(prompt_ids, params, cancel):
                yield token

    backend = FirstTryEmpty("value = 1")
    cells = [FakeCell("a", "code", "for i in range(3):\n    ")]
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r1", "a", len(cells[0].source), "auto"))
    assert out.of("suggestion", "r1")[-1]["text"] == "" and len(backend.params) == 1  # unasked: no second try
    await service.suggest("t1", suggest("r2", "a", len(cells[0].source), "forced"))
    assert out.of("suggestion", "r2")[-1]["text"] == "value = 1"
    assert [p.search_ms for p in backend.params[1:]] == [15, 0] and service.last_searched_again


async def test_another_models_suggestions_are_not_judged_by_the_built_in_models_confidence(tmp_path: Path) -> None:
    backend = ScriptedBackend("a = 1")
    service, out, _ = make_service(tmp_path, backend, cells=[FakeCell("a", "code", "x = 0\n")])
    service.confidence = ConfidenceModel({"bias": -9.0}, {"balanced": 0.5})  # fitted on "default"
    assert not service.confidence.judges(service.store.current.model)
    await service.suggest("t1", suggest("r1", "a", 6, "auto"))
    assert out.of("suggestion", "r1")[-1]["text"] == "a = 1"


async def test_where_the_model_writes_nothing_that_fits_ctrl_space_offers_the_notebooks_line(tmp_path: Path) -> None:
    class Silent(ScriptedBackend):
        async def stream(self, prompt_ids, params, cancel):  # type: ignore[no-untyped-def,override]
            self.params.append(params)
            return
            yield

    backend = Silent("")
    cells = [FakeCell("a", "code", "import pandas as pd\ndf = pd.read_csv('a.csv')\ndf.describe()"),
             FakeCell("b", "code", "df.")]
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r1", "b", 3, "forced"))
    assert len(backend.params) == 3  # the budgeted search, then greedy, and greedy again (within 40 ms)
    assert out.of("suggestion", "r1")[-1]["text"] == "describe()"


class ByPlan(ScriptedBackend):
    """Writes `first` for the time-budgeted search and `script` for any other, counting each stream's
    tokens (`written`)."""

    def __init__(self, first: str, script: str) -> None:
        super().__init__(script)
        self.first = first.encode()
        self.written: list[int] = []

    async def stream(self, prompt_ids, params, cancel):  # type: ignore[no-untyped-def,override]
        script, self.script = self.script, (self.first if params.search_ms else self.script)
        self.written.append(0)
        try:
            async for token in super().stream(prompt_ids, params, cancel):
                self.written[-1] += 1
                yield token
        finally:
            self.script = script


async def test_a_first_line_copying_a_nearby_one_stops_the_model_and_ctrl_space_searches_again(
        tmp_path: Path) -> None:
    """`print(x)` is the line below: no text after it can make the suggestion stand, so the model stops at
    that line's end (not at the token limit), and the forced request's second search (at the top level
    greedy, not starting as the first search did) answers."""
    backend = ByPlan("print(x)\n" + "y = 1\n" * 40, "y = 2")
    cells = [FakeCell("a", "code", "x = 1\n\nprint(x)")]
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r1", "a", len("x = 1\n"), "forced"))
    assert out.of("suggestion", "r1")[-1]["text"] == "y = 2" and service.last_searched_again
    assert backend.written[0] < len("print(x)\n") + 8  # stopped at once, not after 64 tokens
    again = backend.params[1]
    assert (again.search_ms, again.beam, again.first_not) == (0, 1, frozenset(b"p"))


async def test_a_whole_first_statement_the_rules_drop_stops_the_model_and_greedy_starts_elsewhere(
        tmp_path: Path) -> None:
    """`)` in an empty cell closes nothing: no line after it can save it, so the model stops at its line's
    end. Greedy then does not start with the first token that found nothing, and where that finds
    nothing either (the request still young), greedy again starts with neither; an old request does
    not try again."""
    backend = ByPlan(")\n" + "y = 1\n" * 40, "(\n" + "z = 1\n" * 40)
    service, out, _ = make_service(tmp_path, backend, cells=[FakeCell("a", "code", "")])
    await service.suggest("t1", suggest("r1", "a", 0, "forced"))
    assert backend.written[0] <= len(")\n") + 1  # stopped at its line's end, not after 64 tokens
    assert [p.first_not for p in backend.params[1:]] == [frozenset(b")"), frozenset(b")(")]
    assert service.last_searched_again
    service.again, backend.params = (service.again[0], dataclasses.replace(service.again[1], within_ms=0.001)), []
    await service.suggest("t1", suggest("r2", "a", 0, "forced"))
    assert [p.first_not for p in backend.params[1:]] == [frozenset(b")")]


BODY = "def f(rows):\n    total = sum(rows)\n    "  # the cursor on the body's next line


class BeamFirst(ByPlan):
    """`ByPlan` whose time-budgeted line is the beam's own (`Trace.origin`), as the model's search marks it."""

    async def stream(self, prompt_ids, params, cancel):  # type: ignore[no-untyped-def,override]
        if params.search_ms:
            params.trace.origin = "beam"
        async for token in super().stream(prompt_ids, params, cancel):
            yield token


async def test_in_a_function_body_ctrl_space_searches_again_with_the_whole_search(tmp_path: Path) -> None:
    backend = ByPlan("", "return total")
    cells = [FakeCell("a", "code", BODY + "\n\nprint(f([1, 2]))")]  # code below for the read check to read
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r1", "a", len(BODY), "forced"))
    assert out.of("suggestion", "r1")[-1]["text"] == "return total"
    again = backend.params[1]
    assert (again.search_ms, again.beam, again.rules.reading is not None) == (0, 8, True)


async def test_a_function_bodys_own_line_is_held_only_where_code_follows_the_cursor(tmp_path: Path) -> None:
    """With code after the cursor, the budgeted search's own line in a function's body is held and the
    whole search (its read check reads that code) answers; at the end of a notebook being written
    nothing follows, so the first line shows at once and nothing searches again."""
    below = BeamFirst("return rows", "return total")
    service, out, _ = make_service(tmp_path / "below", below, cells=[FakeCell("a", "code", BODY + "\n\nf([1])")])
    await service.suggest("t1", suggest("r1", "a", len(BODY), "forced"))
    assert out.of("suggestion", "r1")[-1]["text"] == "return total" and service.last_searched_again
    assert [p.search_ms for p in below.params] == [15, 0]

    writing = BeamFirst("return rows", "return total")
    service, out, _ = make_service(tmp_path / "writing", writing, cells=[FakeCell("a", "code", BODY)])
    await service.suggest("t1", suggest("r1", "a", len(BODY), "forced"))
    texts = [m["text"] for m in out.of("suggestion", "r1")]
    assert texts[-1] == "return rows" and not service.last_searched_again and len(writing.params) == 1
