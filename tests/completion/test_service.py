"""CompletionService end to end: a scripted backend for exact text, the tiny GGUF for the real path."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ghostbook import protocol as p
from ghostbook.completion.confidence import ConfidenceModel
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore
from ghostbook.decoding.empty_calls import EmptyCalls
from ghostbook.decoding.fragments import Fragments, NoImport
from ghostbook.decoding.indentation import AllStarts, IndentRule
from ghostbook.decoding.lines import AllFit
from ghostbook.decoding.syntax_fit import SyntaxFit
from ghostbook.models.loader import ModelRegistry

from tests.completion.conftest import FakeCell, Outbox, ScriptedBackend


class Namespace:
    def namespace_lines(self) -> list[str]:
        return ["df: DataFrame shape=(3, 2) columns=[a: int64, b: object]"]

    async def settled(self) -> None: ...

    async def attributes(self, owner: str) -> tuple[str, ...] | None:
        return None

    async def files(self) -> tuple[str, ...] | None:
        return None


def make_service(tmp_path: Path, backend: object | None = None, model: str = "default",
                 cells: list[FakeCell] | None = None) -> tuple[CompletionService, Outbox, list[FakeCell]]:
    """A service over `cells`; with `backend` the registry serves that backend for any setting."""
    cells = cells if cells is not None else [FakeCell("a", "code", "import pandas as pd"),
                                             FakeCell("b", "code", "total = ")]
    outbox = Outbox()
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"model": model})
    registry = ModelRegistry(lambda path, family, name: backend) if backend is not None else ModelRegistry()
    if backend is not None:
        (tmp_path / "m.gguf").write_bytes(b"GGUF")
        store.update({"model": str(tmp_path / "m.gguf")})
    service = CompletionService(lambda: cells, outbox.send, outbox.broadcast, Namespace(), registry, store)
    if backend is not None:  # scripted text has no provenance to judge: no confidence threshold (test_confidence)
        service.confidence = ConfidenceModel()
    return service, outbox, cells


async def test_streams_whole_lines_and_never_takes_one_back(tmp_path: Path) -> None:
    """Each streamed text passed the final filters as a suggestion of its own and extends the last one;
    where the rules cut what came after (here a line that breaks the cell), what was shown stays."""
    cells = [FakeCell("a", "code", "def f(rows):\n    ")]
    backend = ScriptedBackend("total = 0\n    for row in rows:\n        total += row\n    return total)")
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r1", "a", len(cells[0].source), "forced"))
    texts = [m["text"] for m in out.of("suggestion", "r1")]
    # `for row in rows:` with no body yet would not pass as a suggestion: it shows with its body
    assert texts[:2] == ["total = 0", "total = 0\n    for row in rows:\n        total += row"]
    assert all(b.startswith(a) for a, b in zip(texts, texts[1:], strict=False)), texts
    assert texts[-1] == texts[-2]  # `return total)` breaks the cell: the final keeps what was shown


def suggest(ref: str, cell: str, cursor: int, trigger: str = "auto") -> p.Suggest:
    return p.Suggest(type="suggest", ref=ref, cell_id=cell, cursor=cursor, trigger=trigger)  # type: ignore[arg-type]


async def test_streams_then_done_and_prompt_has_context(tmp_path: Path) -> None:
    backend = ScriptedBackend("compute(df)\n\nprint(total)")
    service, out, cells = make_service(tmp_path, backend)
    await service.suggest("t1", suggest("r1", "b", 8))
    msgs = out.of("suggestion", "r1")
    assert 0 <= msgs[-1].pop("confidence") <= 1  # that the user types it (`completion.confidence`)
    assert msgs[-1] == {"type": "suggestion", "ref": "r1", "cell_id": "b", "cursor": 8, "text": "compute(df)",
                        "done": True, "source": "model"}
    # streamed at the first line's end (only text the final filters pass), then done with the same text
    assert [(m["text"], m["done"]) for m in msgs[:-1]] == [("compute(df)", False)]
    # the default model's SPM layout: <fim_suffix> S <fim_prefix> P <fim_middle>, special tokens as ids
    ids = backend.prompts[0]
    assert ids[0] == 258 and ids[-1] == 259 and ids.count(257) == 1
    prefix = bytes(ids[ids.index(257) + 1 : -1]).decode()
    assert prefix.startswith("# Variables in the kernel:\n#   df: DataFrame")
    assert prefix.endswith("import pandas as pd\n\ntotal =")  # healed: the trailing space is regenerated
    assert out.of("completion_stats")[-1]["stats"]["model_calls"] == 1


async def test_beam_width_setting_reaches_the_backend(tmp_path: Path) -> None:
    backend = ScriptedBackend("1")
    cells = [FakeCell("a", "code", "if x:\n    x = 1\n    "), FakeCell("b", "code", "total = ")]
    service, _, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r0", "b", 8))
    assert (backend.params[0].beam, backend.params[0].search_ms, backend.params[0].rules.reading) == (8, 15, None)
    backend.params.clear()  # the defaults: beam 8 in 15 ms, no read check; now with it
    await service.handle("c1", p.UpdateSettings(type="update_settings", ref="s", settings={"read_check": True}))
    service.cache.clear()
    await service.suggest("t1", suggest("r1", "b", 8))
    await service.suggest("t1", suggest("r2", "a", 20, "forced"))
    assert [(q.beam, q.blank_line) for q in backend.params] == [(8, False), (8, True)]  # the default, 8
    # the lines above (#15: within 3 lines, at any indentation), after the cursor's indentation
    assert {b"x = 1", b"if x:", b"    if x:"} <= backend.params[1].rules.avoid
    # and the kernel's namespace summary, which a new line never copies
    summary = {a for a in backend.params[1].rules.avoid if a.startswith(b"#   ")}
    assert summary == {b"#   df: DataFrame shape=(3, 2) columns=[a: int64, b: object]"}
    assert not {a.strip() for a in backend.params[1].rules.avoid} - {b"x = 1", b"if x:"} - summary
    # where the line may start: mid-line right at the cursor (#15: no extra space, no new line after `= `);
    # in the indentation, read from the cell's own code (blocks 0 and 4, cursor at column 4)
    assert backend.params[0].rules.indent == IndentRule(8, None, frozenset({8}), newline=False, mid_line=True)
    # (right below `x = 1`, with no import begun there: `decoding.fragments.NoImport`)
    starts = backend.params[1].rules.indent
    assert isinstance(starts, AllStarts) and starts.rules[0] == IndentRule(4, None, frozenset({0, 4}), newline=False)
    assert isinstance(starts.rules[1], NoImport)
    # the first line should fit the cursor's cell (not the cells around it)
    rule = backend.params[1].rules.syntax  # on a new line, with the fragments rule (`decoding.fragments`)
    assert isinstance(rule, AllFit) and isinstance(rule.rules[0], SyntaxFit)
    assert any(isinstance(r, EmptyCalls) for r in rule.rules)  # nor `print()` (`decoding.empty_calls`)
    fit = rule.rules[0]
    assert (fit.before, fit.after) == ("if x:\n    x = 1\n    ", "")
    assert rule.fits(b"y = 2") and not rule.fits(b"else:") and not rule.fits(b"zz")
    # the best lines are read in the notebook's text: above the cursor (its indentation is healed) and the
    # next lines after it
    reading = backend.params[1].rules.reading
    assert reading is not None and reading.before.endswith("if x:\n    x = 1\n")
    assert "total = " in reading.after
    # the lines after the first are found line by line, their rules made from the text without the healed
    # indentation (the suggestion spells it)
    lines = backend.params[1].lines
    assert lines is not None and lines.cell_prefix == "if x:\n    x = 1\n" and lines.read_check
    rules = lines.after(b"    y = 2")
    assert isinstance(rules.syntax, AllFit) and isinstance(syntax := rules.syntax.rules[0], SyntaxFit)
    assert syntax.before == "if x:\n    x = 1\n    y = 2\n" and isinstance(rules.syntax.rules[1], Fragments)
    assert b"    y = 2" in rules.avoid and rules.reading is not None and rules.reading.before.endswith("    y = 2")
    await service.handle("c1", p.UpdateSettings(type="update_settings", ref="s", settings={"beam_width": 1}))
    await service.suggest("t1", suggest("r3", "b", 7, "forced"))
    last = backend.params[-1]
    assert last.beam == 1 and last.rules.syntax is None and last.rules.reading is None
    assert backend.params[-1].lines is None  # greedy writes every line
    # the read check can be turned off, keeping the beam
    await service.handle("c1", p.UpdateSettings(type="update_settings", ref="s",
                                                settings={"beam_width": 4, "read_check": False}))
    service.cache.clear()
    await service.suggest("t1", suggest("r4", "b", 7, "forced"))
    last = backend.params[-1]
    assert last.beam == 4 and last.rules.syntax is not None and last.rules.reading is None
    further = backend.params[-1].lines
    assert further is not None and not further.read_check and further.after(b"1").reading is None


async def test_lines_are_sought_one_by_one_only_where_a_suggestion_may_have_several(tmp_path: Path) -> None:
    backend = ScriptedBackend("1")
    cells = [FakeCell("a", "code", "f(x, y)\nz = ")]
    service, _, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r1", "a", 2))  # "f(" | "x, y)": code goes on after the cursor
    await service.suggest("t1", suggest("r2", "a", 6, "forced"))  # "f(x, y" | ")": only closers
    await service.suggest("t1", suggest("r3", "a", 12, "forced"))  # the cell's end
    assert [q.lines is not None for q in backend.params] == [False, True, True]
    assert all(q.beam == 8 for q in backend.params)


async def test_catalog_layout_overrides_the_family_default(tmp_path: Path) -> None:
    import dataclasses

    backend = ScriptedBackend("1")
    backend.info = dataclasses.replace(backend.info, extra={"layout": "psm"})
    service, _, _ = make_service(tmp_path, backend)
    await service.suggest("t1", suggest("r1", "b", 8))
    assert backend.prompts[0][0] == 257 and backend.prompts[0][-1] == 259  # <fim_prefix> P <fim_suffix> S <fim_middle>
    assert backend.prompts[0][-2] == 258  # the cursor ends the last cell: an empty suffix


async def test_weak_model_gets_no_auto_requests_in_comments(tmp_path: Path) -> None:
    import dataclasses

    backend = ScriptedBackend("more words")
    backend.info = dataclasses.replace(backend.info, extra={"code_only": True})
    cells = [FakeCell("a", "code", "x = 1  # the answer is ")]
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r1", "a", 23))
    assert out.of("suggestion", "r1")[-1]["text"] == "" and backend.prompts == []
    await service.suggest("t1", suggest("r2", "a", 23, "forced"))
    assert out.of("suggestion", "r2")[-1]["text"] == "more words"


async def test_healing_backs_up_and_strips(tmp_path: Path) -> None:
    backend = ScriptedBackend("sum(xs)")
    service, out, _ = make_service(tmp_path, backend)
    await service.suggest("t1", suggest("r1", "b", 8))  # "total = " ends in a space: healed
    assert backend.prompts[0][-2] == ord("=")  # the trailing space left the prompt ...
    assert out.of("suggestion", "r1")[-1]["text"] == "sum(xs)"  # ... and is not doubled in the text


async def test_indentation_leaves_the_prompt_and_is_spelled_first(tmp_path: Path) -> None:
    """After auto-indentation the prompt stops at the line's start (a cut FIM training makes) and the
    model must write the indentation first; the user sees only what follows the cursor."""
    backend = ScriptedBackend("return x")
    service, out, _ = make_service(tmp_path, backend, cells=[FakeCell("a", "code", "def f(x):\n    ")])
    await service.suggest("t1", suggest("r1", "a", 14))
    prefix = bytes(backend.prompts[0][backend.prompts[0].index(257) + 1 : -1])
    assert prefix.endswith(b"def f(x):\n") and backend.params[0].heal == b"    "
    assert out.of("suggestion", "r1")[-1]["text"] == "return x"


async def test_typed_through_and_exact_hits_need_no_model_call(tmp_path: Path) -> None:
    backend = ScriptedBackend("compute(df)")
    service, out, cells = make_service(tmp_path, backend)
    await service.suggest("t1", suggest("r1", "b", 8))
    cells[1].source = "total = comp"
    await service.suggest("t1", suggest("r2", "b", 12))
    assert out.of("suggestion", "r2") == [{"type": "suggestion", "ref": "r2", "cell_id": "b", "cursor": 12,
                                           "text": "ute(df)", "done": True, "source": "typed_through",
                                           "confidence": 1.0}]  # the user typed what it foresaw
    cells[1].source = "total = "
    await service.suggest("t1", suggest("r3", "b", 8))
    assert out.of("suggestion", "r3")[-1]["source"] == "cache"
    stats = service.stats.to_json()
    assert (stats["requests"], stats["model_calls"], stats["cache_hits"]) == (3, 1, 2)


async def test_gate_answers_empty_without_model(tmp_path: Path) -> None:
    backend = ScriptedBackend("x")
    cells = [FakeCell("e", "code", ""), FakeCell("m", "markdown", "# hi")]
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    await service.suggest("t1", suggest("r1", "e", 0))
    await service.suggest("t1", suggest("r2", "m", 4, "forced"))
    assert [m["text"] for m in out.of("suggestion")] == ["", ""] and backend.prompts == []
    await service.suggest("t1", suggest("r3", "e", 0, "forced"))  # Ctrl+Space overrides the gate
    assert len(backend.prompts) == 1


async def test_newer_request_cancels_older_and_stale_replies_are_dropped(tmp_path: Path) -> None:
    backend = ScriptedBackend("a_long_identifier_name_here", delay=0.01)
    service, out, _ = make_service(tmp_path, backend)
    first = service.suggest("t1", suggest("r1", "b", 8))
    await asyncio.sleep(0.05)
    second = service.suggest("t1", suggest("r2", "b", 8))
    other = service.suggest("t2", suggest("r3", "b", 8))  # another tab is not cancelled
    with pytest.raises(asyncio.CancelledError):
        await first
    await second
    await other
    assert not any(m["done"] for m in out.of("suggestion", "r1"))
    assert out.of("suggestion", "r2")[-1]["done"] and out.of("suggestion", "r3")[-1]["done"]


async def test_suggest_cancel_stops_generation(tmp_path: Path) -> None:
    backend = ScriptedBackend("x" * 60, delay=0.01)
    service, out, _ = make_service(tmp_path, backend)
    task = service.suggest("t1", suggest("r1", "b", 8))
    await asyncio.sleep(0.05)
    await service.handle("t1", p.SuggestCancel(type="suggest_cancel", ref="r1"))
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.05)
    assert backend.last_stats.generated < 60
    assert not any(m["done"] for m in out.of("suggestion", "r1"))


async def test_model_error_is_a_suggestion_error(tmp_path: Path) -> None:
    service, out, _ = make_service(tmp_path, model=str(tmp_path / "nope.gguf"))
    await service.suggest("t1", suggest("r1", "b", 8, "forced"))
    assert out.of("suggestion_error", "r1")[0]["message"].startswith("model file not found")
    assert out.broadcasts[-1]["type"] == "model_status" and out.broadcasts[-1]["model"]["state"] == "error"


async def test_settings_get_update_and_feedback_stats(tmp_path: Path) -> None:
    service, out, _ = make_service(tmp_path, ScriptedBackend("x"))
    await service.handle("t1", p.GetSettings(type="get_settings", ref="s1"))
    reply = out.of("settings", "s1")[0]
    assert reply["settings"]["debounce_ms"] == 500 and reply["model"]["state"] in ("loading", "ready")
    await service.handle("t1", p.UpdateSettings(type="update_settings", ref="s2", settings={"debounce_ms": 200}))
    assert out.of("settings", "s2")[0]["settings"]["debounce_ms"] == 200
    await service.handle("t1", p.UpdateSettings(type="update_settings", ref="s3", settings={"debounce_ms": "x"}))
    assert out.of("error", "s3")[0]["message"].startswith("invalid settings")
    await service.handle("t1", p.UpdateSettings(type="update_settings", ref="s4", settings={"enabled": False}))
    assert out.of("settings", "s4")[0]["model"]["state"] == "off"
    await service.suggest("t1", suggest("r1", "b", 8))
    assert out.of("suggestion_error", "r1")[0]["message"] == "completion is turned off"
    for event, latency in (("shown", 40.0), ("shown", 80.0), ("accepted", None), ("dismissed", None)):
        await service.handle("t1", p.SuggestFeedback(type="suggest_feedback", ref="r1", event=event,
                                                     latency_ms=latency))  # type: ignore[arg-type]
    stats = out.of("completion_stats")[-1]["stats"]
    assert (stats["shown"], stats["accepted"], stats["acceptance_rate"], stats["p50_ms"], stats["p95_ms"]) == (
        2, 1, 0.5, 40.0, 80.0)


async def test_real_tiny_model_streams_through_the_service(tmp_path: Path, tiny_gguf: Path) -> None:
    cells = [FakeCell("a", "code", "def add(a, b):\n    return a + b"), FakeCell("b", "code", "x = add(")]
    service, out, _ = make_service(tmp_path, model=str(tiny_gguf), cells=cells)
    await service.suggest("t1", suggest("r1", "b", 8, "forced"))
    msgs = out.of("suggestion", "r1")
    assert msgs and msgs[-1]["done"] and msgs[-1]["source"] == "model"
    assert service.last_gen is not None and service.last_gen.prompt_tokens > 10
    assert service.registry.status.state == "ready"
    cells[1].source = "x = add(1"
    await service.suggest("t1", suggest("r2", "b", 9, "forced"))
    assert service.last_gen.reused_tokens > 10  # the shared prompt prefix stayed in the KV cache
    await service.close()
    await service.registry.close()


def test_percentile_nearest_rank() -> None:
    from ghostbook.completion.stats import percentile

    assert percentile([], 50) is None
    assert percentile([40.0, 80.0], 50) == 40.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0


async def test_prompt_always_fits_the_model(tmp_path: Path) -> None:
    import dataclasses

    class Inflating(ScriptedBackend):
        """Joined text costs more than its pieces counted apart (as BPE merges across boundaries may)."""

        def tokenize(self, text: str) -> list[int]:
            return list(text.encode()) + [32] * (20 * text.count("\n\nv"))

    backend = Inflating("1")
    backend.info = dataclasses.replace(backend.info, n_ctx=300)
    cells = [FakeCell(f"c{i}", "code", f"v{i} = {i}") for i in range(200)] + [FakeCell("z", "code", "w = ")]
    service, out, _ = make_service(tmp_path, backend, cells=cells)
    service.store.update({"max_new_tokens": 64, "context_tokens": 4096})
    await service.suggest("t1", suggest("r1", "z", 4))
    assert out.of("suggestion", "r1")[-1]["done"]
    assert len(backend.prompts[0]) + 64 <= 300


async def test_prewarm_makes_the_first_request_warm(tmp_path: Path, tiny_gguf: Path) -> None:
    cells = [FakeCell("a", "code", "def add(a, b):\n    return a + b"), FakeCell("b", "code", "x = add(1, 2)\n")]
    service, out, _ = make_service(tmp_path, model=str(tiny_gguf), cells=cells)
    backend = await service.registry.ensure(str(tiny_gguf))
    assert backend is not None
    backend.forget()  # type: ignore[attr-defined]
    await service.prewarm("b")
    assert service.prewarms == 1 and out.sent == []  # nothing is sent for a prewarm
    cells[1].source += "y"
    await service.suggest("t1", suggest("r1", "b", len(cells[1].source), "forced"))
    gen = service.last_gen
    assert gen is not None and gen.reused_tokens >= gen.prompt_tokens - 4
    await service.registry.close()


async def test_a_request_cancels_a_prewarm(tmp_path: Path) -> None:
    backend = ScriptedBackend("abc", delay=0.2)
    service, out, _ = make_service(tmp_path, backend)
    await service.registry.ensure(service.store.current.model)
    other = CompletionService(lambda: [FakeCell("z", "code", "y = ")], out.send, out.broadcast, None,
                              service.registry, service.store)  # another notebook's session, same model
    prewarm = asyncio.create_task(service.prewarm("b"))
    await asyncio.sleep(0.05)
    request = other.suggest("t2", suggest("r1", "z", 4))
    await prewarm
    await request
    assert service.prewarms == 0 and out.of("suggestion", "r1")[-1]["done"]
    assert not service.registry.prewarms
