"""The user's own completion statistics (protocol `get_telemetry` / `reset_telemetry`).

Every suggestion shown, accepted (whole, by word, by line) or dismissed, with its latency, its kind (where
the cursor was: `protocol.SuggestionKind`) and its model, is kept in SQLite in the user's data folder
(`telemetry_path`), pruned to the last `KEEP_DAYS` days and `MAX_ROWS` events, and never sent anywhere:
only this server's settings panel reads it.

One writer thread owns the connection: `record` only queues (the event loop never waits on the disk) and
the queries queue behind the records, so a report sees every event recorded before it. A file that is not
a database, or is damaged, is moved aside (`.corrupt`) and a fresh one started; one that cannot be written
leaves the statistics empty with the reason in `error`; completion goes on either way.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from ghostbook import protocol as p
from ghostbook.completion.stats import percentile

log = logging.getLogger(__name__)

KEEP_DAYS = 30
MAX_ROWS = 200_000
PRUNE_EVERY = 1000  # inserts between two prunes (and one at every opening)
KINDS = ("new_line", "end_of_line", "mid_line", "unknown")  # the protocol's kinds; unknown: a client without
SCHEMA = """
CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, ts REAL NOT NULL, event TEXT NOT NULL, accept TEXT,
                                   kind TEXT NOT NULL, model TEXT NOT NULL, latency_ms REAL);
CREATE INDEX IF NOT EXISTS events_ts ON events (ts);
"""
Row = tuple[float, str, str | None, str, str, float | None]  # ts, event, accept, kind, model, latency_ms
T = TypeVar("T")
_Job = tuple[Callable[[sqlite3.Connection], Any], Future[Any] | None]


def telemetry_path() -> Path | None:
    """$GHOSTBOOK_TELEMETRY (a file, or "off" to keep nothing), else
    $XDG_DATA_HOME/ghostbook/telemetry.sqlite (~/.local/share/ghostbook/telemetry.sqlite)."""
    chosen = os.environ.get("GHOSTBOOK_TELEMETRY", "").strip()
    if chosen.lower() == "off":
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ghostbook" / "telemetry.sqlite"


@dataclass
class Tally:
    """One group's counts. `accepted`: taken wholly or in part; `whole`/`word`/`line` by the key that first
    took some of it. Latencies are the client's (end of debounce → ghost text visible) of `shown` events."""

    shown: int = 0
    accepted: int = 0
    whole: int = 0
    word: int = 0
    line: int = 0
    dismissed: int = 0
    latencies: list[float] = field(default_factory=list)

    def add(self, event: str, accept: str | None, latency_ms: float | None) -> None:
        if event == "shown":
            self.shown += 1
            if latency_ms is not None:
                self.latencies.append(latency_ms)
        elif event in ("accepted", "partial"):
            self.accepted += 1
            if accept in ("whole", "word", "line"):
                setattr(self, accept, getattr(self, accept) + 1)
        elif event == "dismissed":
            self.dismissed += 1

    def to_json(self) -> dict[str, Any]:
        rate = round(min(1.0, self.accepted / self.shown), 3) if self.shown else None
        return {"shown": self.shown, "accepted": self.accepted, "whole": self.whole, "word": self.word,
                "line": self.line, "dismissed": self.dismissed, "acceptance_rate": rate,
                "p50_ms": percentile(self.latencies, 50), "p95_ms": percentile(self.latencies, 95)}


def summarize(rows: Iterable[Row], first: date, days: int) -> dict[str, Any]:
    """Per-day, per-kind, per-model and overall tallies of `rows` for the `days` days from `first`."""
    by_day = {first + timedelta(days=i): Tally() for i in range(days)}
    by_kind: dict[str, Tally] = {}
    by_model: dict[str, Tally] = {}
    total = Tally()
    for ts, event, accept, kind, model, latency in rows:
        day = by_day.get(datetime.fromtimestamp(ts).date())
        for tally in (day, by_kind.setdefault(kind, Tally()), by_model.setdefault(model, Tally()), total):
            if tally is not None:
                tally.add(event, accept, latency)
    return {
        "days": [{"day": day.isoformat(), "ts": _midnight(day), **tally.to_json()} for day, tally in by_day.items()],
        "by_kind": [{"kind": kind, **by_kind[kind].to_json()}
                    for kind in sorted(by_kind, key=lambda k: KINDS.index(k) if k in KINDS else len(KINDS))],
        "by_model": [{"model": model, **tally.to_json()}
                     for model, tally in sorted(by_model.items(), key=lambda item: (-item[1].shown, item[0]))],
        "total": total.to_json(),
    }


def _midnight(day: date) -> float:
    return datetime.combine(day, datetime.min.time()).timestamp()


class _Corrupt(sqlite3.DatabaseError):
    """PRAGMA quick_check found damage."""


def _is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    return isinstance(exc, _Corrupt) or getattr(exc, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB")


class TelemetryStore:
    """The statistics file at `path` (None: off, nothing kept). Thread-safe; the async methods never block
    the event loop."""

    def __init__(self, path: Path | None, keep_days: int = KEEP_DAYS, max_rows: int = MAX_ROWS,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.keep_days = keep_days
        self.max_rows = max_rows
        self.error: str | None = None  # why the file cannot be used just now (None: all well)
        self._clock = clock
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._inserts = 0

    # ---- the event loop's side ------------------------------------------------------------------

    def record(self, event: str, kind: str | None, model: str, accept: str | None = None,
               latency_ms: float | None = None) -> None:
        """Queue one event (never blocks, never raises)."""
        if self.path is not None:
            row: Row = (self._clock(), event, accept, kind or "unknown", model[:200] or "unknown", latency_ms)
            self._submit((lambda db: self._insert(db, row), None))

    def feedback(self, message: p.SuggestFeedback, model: str) -> None:
        self.record(message.event, message.kind, model, message.accept, message.latency_ms)

    async def report(self, days: int = 14, kind: str | None = None, model: str | None = None) -> dict[str, Any]:
        """The last `days` days (today included), of `kind` / `model` only if given."""
        first = datetime.fromtimestamp(self._clock()).date() - timedelta(days=days - 1)
        head = {"enabled": self.path is not None, "path": str(self.path) if self.path else None,
                "keep_days": self.keep_days, "filter": {"days": days, "kind": kind, "model": model}}
        rows: Sequence[Row] = []
        models: list[str] = []
        if self.path is not None:
            try:
                rows, models = await self._call(lambda db: self._select(db, _midnight(first), kind, model))
            except (sqlite3.Error, OSError):
                pass  # self.error says why
        return {**head, "error": self.error, "models": models, **summarize(rows, first, days)}

    async def reset(self) -> None:
        """Forget every event (and wipe the file's free pages)."""
        if self.path is not None:
            try:
                await self._call(self._clear)
            except (sqlite3.Error, OSError):
                pass

    async def answer(self, message: p.GetTelemetry | p.ResetTelemetry) -> p.TelemetryMessage:
        """The `telemetry` reply to `message` (a reset answers with the default report)."""
        if isinstance(message, p.ResetTelemetry):
            await self.reset()
            return telemetry_message(message.ref, await self.report())
        return telemetry_message(message.ref, await self.report(message.days, message.kind, message.model))

    def close(self, timeout: float = 5) -> None:
        """Write what is queued, close the file and stop the writer thread."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(None)
            thread.join(timeout)

    # ---- the writer thread ----------------------------------------------------------------------

    def _submit(self, job: _Job) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="ghostbook-telemetry", daemon=True)
                self._thread.start()
            self._jobs.put(job)

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        future: Future[T] = Future()
        self._submit((fn, future))
        return await asyncio.wrap_future(future)

    def _work(self) -> None:
        while True:
            batch = [self._jobs.get()]
            while len(batch) < 500:  # what queued meanwhile goes in the same transaction
                try:
                    batch.append(self._jobs.get_nowait())
                except queue.Empty:
                    break
            for job in batch:
                if job is None:
                    self._commit()
                    self._drop()
                    return
                self._run(*job)
            self._commit()

    def _run(self, fn: Callable[[sqlite3.Connection], Any], future: Future[Any] | None) -> None:
        if future is not None and not future.set_running_or_notify_cancel():
            return
        try:
            result = fn(self._connection())
        except (sqlite3.Error, OSError) as exc:
            self._failed(exc)
            if future is not None:
                future.set_exception(exc)
        except Exception as exc:  # a bug: the caller hears of it, the thread goes on
            log.exception("completion statistics failed")
            if future is not None:
                future.set_exception(exc)
        else:
            if future is not None:
                future.set_result(result)

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
            self.error = None
        return self._db

    def _open(self, retry: bool = True) -> sqlite3.Connection:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():  # the user's own: readable by them alone
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        try:
            return self._prepare(sqlite3.connect(self.path, timeout=5))
        except sqlite3.DatabaseError as exc:
            if not retry or not _is_corrupt(exc):
                raise
            aside = self.path.with_name(self.path.name + ".corrupt")
            log.warning("completion statistics: %s is damaged (%s); moved to %s, starting afresh",
                        self.path, exc, aside)
            os.replace(self.path, aside)
            Path(f"{self.path}-journal").unlink(missing_ok=True)
            return self._open(retry=False)

    def _prepare(self, db: sqlite3.Connection) -> sqlite3.Connection:
        try:
            check = db.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise _Corrupt(f"quick_check: {check[0] if check else 'no answer'}")
            db.executescript(SCHEMA)
            self._prune(db)
            db.commit()
        except BaseException:
            db.close()
            raise
        return db

    def _failed(self, exc: BaseException) -> None:
        message = f"cannot use {self.path}: {exc}"
        if message != self.error:
            log.warning("completion statistics: %s", message)
        self.error = message
        self._drop()

    def _drop(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            try:
                db.close()
            except sqlite3.Error:
                pass

    def _commit(self) -> None:
        if self._db is not None:
            try:
                self._db.commit()
            except sqlite3.Error as exc:
                self._failed(exc)

    def _insert(self, db: sqlite3.Connection, row: Row) -> None:
        db.execute("INSERT INTO events (ts, event, accept, kind, model, latency_ms) VALUES (?, ?, ?, ?, ?, ?)", row)
        self._inserts += 1
        if self._inserts % PRUNE_EVERY == 0:
            self._prune(db)

    def _prune(self, db: sqlite3.Connection) -> None:
        db.execute("DELETE FROM events WHERE ts < ?", (self._clock() - self.keep_days * 86400,))
        db.execute("DELETE FROM events WHERE id <= (SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ?)",
                   (self.max_rows,))

    def _select(self, db: sqlite3.Connection, since: float, kind: str | None,
                model: str | None) -> tuple[list[Row], list[str]]:
        where, args = "ts >= ?", list[Any]([since])
        for column, value in (("kind", kind), ("model", model)):
            if value is not None:
                where += f" AND {column} = ?"
                args.append(value)
        rows = db.execute(f"SELECT ts, event, accept, kind, model, latency_ms FROM events WHERE {where}",
                          args).fetchall()
        models = [m for (m,) in db.execute("SELECT DISTINCT model FROM events WHERE ts >= ? ORDER BY model",
                                           (since,))]
        return rows, models

    def _clear(self, db: sqlite3.Connection) -> None:
        db.execute("DELETE FROM events")
        db.commit()
        db.execute("VACUUM")


_shared: TelemetryStore | None = None


def shared_telemetry() -> TelemetryStore:
    """The server-wide store (one file for every session), flushed at exit."""
    global _shared
    if _shared is None:
        _shared = TelemetryStore(telemetry_path())
        atexit.register(_shared.close)
    return _shared


def telemetry_message(ref: str | None, report: dict[str, Any]) -> p.TelemetryMessage:
    """A `report` as the `telemetry` message."""
    return p.TelemetryMessage.model_construct(
        ref=ref, enabled=report["enabled"], path=report["path"], error=report["error"], keep_days=report["keep_days"],
        filter=p.TelemetryFilter.model_construct(**report["filter"]), models=report["models"],
        days=[p.DayTally.model_construct(**day) for day in report["days"]],
        total=p.Tally.model_construct(**report["total"]),
        by_kind=[p.KindTally.model_construct(**row) for row in report["by_kind"]],
        by_model=[p.ModelTally.model_construct(**row) for row in report["by_model"]])
