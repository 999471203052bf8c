"""The user's own completion statistics: SQLite on disk, aggregated per day, kind and model; pruned,
reset, and never in the way of completion when the file is damaged or cannot be written."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from ghostbook import protocol as p
from ghostbook.completion import telemetry
from ghostbook.completion.telemetry import TelemetryStore, telemetry_path

from tests.completion.conftest import ScriptedBackend, wire_dict
from tests.completion.test_service import make_service
from tests.conftest import RunningServer, start_server, stop_server
from tests.web.wsclient import NotebookClient

DAY = 86400.0


class Clock:
    """Noon today, moved by hand."""

    def __init__(self) -> None:
        self.now = datetime.combine(datetime.now().date(), datetime.min.time()).timestamp() + DAY / 2

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Iterator[TelemetryStore]:
    made = TelemetryStore(tmp_path / "data" / "telemetry.sqlite", clock=clock)
    yield made
    made.close()


def count_rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM events").fetchone()[0])


async def test_records_and_reports_per_day_kind_and_model(store: TelemetryStore, clock: Clock) -> None:
    clock.now -= 2 * DAY  # two days ago: 2 shown, 1 taken by Tab
    store.record("shown", "new_line", "tiny", latency_ms=100)
    store.record("accepted", "new_line", "tiny", accept="whole")
    store.record("shown", "mid_line", "tiny", latency_ms=300)
    store.record("dismissed", "mid_line", "tiny")
    clock.now += 2 * DAY  # today: 4 shown by two models, a word, a line, a dismissal
    for latency in (10, 20, 30):
        store.record("shown", "end_of_line", "big", latency_ms=latency)
    store.record("partial", "end_of_line", "big", accept="word")
    store.record("accepted", "end_of_line", "big", accept="line")
    store.record("shown", None, "tiny", latency_ms=40)  # an older client: no kind
    store.record("dismissed", None, "tiny")

    report = await store.report(days=3)
    assert report["enabled"] and report["error"] is None and report["models"] == ["big", "tiny"]
    days = report["days"]
    assert [d["day"] for d in days] == [(datetime.now().date() - timedelta(days=k)).isoformat() for k in (2, 1, 0)]
    assert days[0]["ts"] == datetime.combine(datetime.now().date() - timedelta(days=2), datetime.min.time()).timestamp()
    assert (days[0]["shown"], days[0]["accepted"], days[0]["acceptance_rate"]) == (2, 1, 0.5)
    assert (days[0]["p50_ms"], days[0]["p95_ms"]) == (100, 300)
    assert days[1]["shown"] == 0 and days[1]["acceptance_rate"] is None and days[1]["p50_ms"] is None
    assert (days[2]["shown"], days[2]["accepted"], days[2]["word"], days[2]["line"], days[2]["dismissed"]) == (
        4, 2, 1, 1, 1)
    assert (days[2]["p50_ms"], days[2]["p95_ms"]) == (20, 40)
    total = report["total"]
    assert (total["shown"], total["accepted"], total["whole"], total["word"], total["line"]) == (6, 3, 1, 1, 1)
    assert [k["kind"] for k in report["by_kind"]] == ["new_line", "end_of_line", "mid_line", "unknown"]
    assert {k["kind"]: k["acceptance_rate"] for k in report["by_kind"]} == {
        "new_line": 1.0, "end_of_line": round(2 / 3, 3), "mid_line": 0.0, "unknown": 0.0}
    assert [(m["model"], m["shown"], m["accepted"]) for m in report["by_model"]] == [("big", 3, 2), ("tiny", 3, 1)]

    only = await store.report(days=3, kind="end_of_line")
    assert only["total"]["shown"] == 3 and [m["model"] for m in only["by_model"]] == ["big"]
    assert only["models"] == ["big", "tiny"] and only["filter"] == {"days": 3, "kind": "end_of_line", "model": None}
    tiny = await store.report(days=1, model="tiny")
    assert tiny["total"]["shown"] == 1 and len(tiny["days"]) == 1  # today only


async def test_prunes_old_events_and_caps_the_rows(tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:
    path = tmp_path / "t.sqlite"
    first = TelemetryStore(path, clock=clock)
    clock.now -= 40 * DAY
    first.record("shown", "new_line", "m", latency_ms=5)
    clock.now += 40 * DAY
    first.record("shown", "new_line", "m", latency_ms=6)
    first.close()
    assert count_rows(path) == 2
    second = TelemetryStore(path, clock=clock)  # opening prunes what is older than keep_days
    assert (await second.report(days=30))["total"]["shown"] == 1
    second.close()
    assert count_rows(path) == 1

    monkeypatch.setattr(telemetry, "PRUNE_EVERY", 10)
    capped = TelemetryStore(path, max_rows=25, clock=clock)
    for _ in range(49):
        capped.record("shown", "mid_line", "m", latency_ms=1)
    capped.close()
    assert count_rows(path) == 25 + 9  # pruned at the 40th insert; 9 since


async def test_reset_forgets_everything(store: TelemetryStore) -> None:
    store.record("shown", "new_line", "m", latency_ms=5)
    store.record("accepted", "new_line", "m", accept="whole")
    assert (await store.report())["total"]["accepted"] == 1
    reply = wire_dict(await store.answer(p.ResetTelemetry(type="reset_telemetry", ref="x")))
    assert reply["type"] == "telemetry" and reply["ref"] == "x" and reply["total"]["shown"] == 0
    assert len(reply["days"]) == 14 and reply["models"] == []
    assert store.path is not None and count_rows(store.path) == 0
    store.record("shown", "new_line", "m", latency_ms=5)  # and goes on recording
    assert (await store.report())["total"]["shown"] == 1


async def test_a_damaged_file_is_moved_aside(tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "telemetry.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    store = TelemetryStore(path, clock=clock)
    store.record("shown", "new_line", "m", latency_ms=5)
    report = await store.report()
    store.close()
    assert report["error"] is None and report["total"]["shown"] == 1
    assert (tmp_path / "telemetry.sqlite.corrupt").read_bytes().startswith(b"this is not")
    assert "damaged" in caplog.text and count_rows(path) == 1


async def test_an_unwritable_folder_says_why_and_nothing_breaks(tmp_path: Path, clock: Clock,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "file").write_text("a file where the folder should be")
    store = TelemetryStore(tmp_path / "file" / "telemetry.sqlite", clock=clock)
    for _ in range(3):
        store.record("shown", "new_line", "m", latency_ms=5)  # never raises
    report = await store.report()
    await store.reset()
    store.close()
    assert report["enabled"] and report["total"]["shown"] == 0 and len(report["days"]) == 14
    assert report["error"] is not None and "cannot use" in report["error"] and str(tmp_path / "file") in report["error"]
    assert caplog.text.count("cannot use") == 1  # logged once, not at every event


async def test_off_keeps_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GHOSTBOOK_TELEMETRY", "off")
    assert telemetry_path() is None
    store = TelemetryStore(None)
    store.record("shown", "new_line", "m", latency_ms=5)
    report = await store.report()
    assert not report["enabled"] and report["total"]["shown"] == 0 and report["path"] is None
    monkeypatch.setenv("GHOSTBOOK_TELEMETRY", "")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert telemetry_path() == tmp_path / "ghostbook" / "telemetry.sqlite"
    monkeypatch.setenv("GHOSTBOOK_TELEMETRY", str(tmp_path / "mine.db"))
    assert telemetry_path() == tmp_path / "mine.db"


async def test_the_service_records_feedback_with_its_model(tmp_path: Path) -> None:
    service, out, _ = make_service(tmp_path, ScriptedBackend("x"))
    service.telemetry = TelemetryStore(tmp_path / "telemetry.sqlite")
    await service.suggest("t1", p.Suggest(type="suggest", ref="r1", cell_id="b", cursor=8))
    for event, extra in (("shown", {"latency_ms": 42.0}), ("accepted", {"accept": "line"})):
        await service.handle("t1", p.SuggestFeedback.model_validate(
            {"type": "suggest_feedback", "ref": "r1", "event": event, "kind": "end_of_line", **extra}))
    await service.handle("t1", p.GetTelemetry(type="get_telemetry", ref="g1", days=7))
    reply = out.of("telemetry", "g1")[0]
    service.telemetry.close()
    assert len(reply["days"]) == 7 and reply["days"][-1]["line"] == 1 and reply["total"]["p50_ms"] == 42.0
    assert reply["by_kind"][0]["kind"] == "end_of_line"
    assert reply["by_model"][0]["model"] == "m.gguf"  # the loaded model's name
    assert out.of("completion_stats")[-1]["stats"]["accepted"] == 1  # the live stats as before
    await service.close()


def test_telemetry_messages_through_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config"
    (config / "ghostbook").mkdir(parents=True)
    (config / "ghostbook" / "settings.json").write_text(json.dumps({"completion": {"enabled": False}}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("GHOSTBOOK_TELEMETRY", str(tmp_path / "data" / "telemetry.sqlite"))
    root = tmp_path / "notebooks"
    root.mkdir()
    server: RunningServer = start_server(root)
    try:
        response = httpx.post(server.base + "/api/contents", json={"dir": "", "name": "t.ipynb"},
                              headers={"Authorization": f"token {server.token}"})
        asyncio.run(_scenario(server, str(response.json()["path"])))
    finally:
        stop_server(server)
    assert count_rows(tmp_path / "data" / "telemetry.sqlite") == 0  # reset, and nothing since


async def _scenario(server: RunningServer, path: str) -> None:
    client = await NotebookClient.connect(server, path)
    await client.expect("snapshot")
    for message in ({"event": "shown", "latency_ms": 80, "kind": "new_line"},
                    {"event": "partial", "kind": "new_line", "accept": "word"},
                    {"event": "shown", "latency_ms": 120, "kind": "mid_line"},
                    {"event": "dismissed", "kind": "mid_line"}):
        await client.send({"type": "suggest_feedback", "ref": "r1", **message})
    await client.send({"type": "get_telemetry", "ref": "g1"})
    reply = await client.expect("telemetry", where=lambda m: m["ref"] == "g1")
    assert reply["enabled"] and reply["error"] is None and len(reply["days"]) == 14
    assert (reply["total"]["shown"], reply["total"]["accepted"], reply["total"]["word"]) == (2, 1, 1)
    assert reply["models"] == ["default"] and reply["days"][-1]["acceptance_rate"] == 0.5
    for bad in ({"days": 0}, {"days": 31}, {"kind": "sideways"}, {"model": ""}):
        await client.send({"type": "get_telemetry", "ref": "bad", **bad})
        assert (await client.expect("error", where=lambda m: m["ref"] == "bad"))["message"].startswith("invalid")
    await client.send({"type": "suggest_feedback", "ref": "r2", "event": "accepted", "accept": "sideways"})
    await client.expect("error", where=lambda m: m["ref"] == "r2")
    await client.send({"type": "reset_telemetry", "ref": "z"})
    reset = await client.expect("telemetry", where=lambda m: m["ref"] == "z")
    assert reset["total"]["shown"] == 0 and reset["models"] == []
    await client.close()
