"""Bookkeeping of in-flight requests: which iopub/shell messages belong to which execution, and
when an execution is over (execute_reply AND iopub idle both seen)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from jupyter_client.jsonutil import json_default

from .errors import KernelNotRunning
from .events import ExecutionFinished, ExecutionStarted, KernelEvent, Output

OUTPUT_TYPES = frozenset({"stream", "display_data", "execute_result", "error", "clear_output", "update_display_data"})
FINISHED_STATUSES = frozenset({"ok", "error", "aborted"})


@dataclass
class _Run:
    """One execute_request. Silent runs collect their streams and resolve `future` instead of
    emitting events."""

    silent: bool = False
    reply: dict[str, Any] | None = None
    idle: bool = False
    future: asyncio.Future[dict[str, Any]] | None = None
    streams: dict[str, list[str]] = field(default_factory=lambda: {"stdout": [], "stderr": []})
    timing: dict[str, str] = field(default_factory=dict)  # JupyterLab's `execution` metadata keys


def message_date(msg: dict[str, Any]) -> str:
    """A message's header date as JupyterLab stores it (ISO 8601, UTC as `Z`); now when it has none
    (dates are optional before protocol 5.1, and JupyterLab estimates them the same way)."""
    date = msg.get("header", {}).get("date")
    if isinstance(date, datetime):
        return str(json_default(date))
    return date if isinstance(date, str) and date else now_iso()


def now_iso() -> str:
    return str(json_default(datetime.now(UTC)))


class RunTracker:
    """Routes kernel messages to executions and reply waiters; emits execution events."""

    def __init__(self, emit: Callable[[KernelEvent], None]) -> None:
        self._emit = emit
        self._runs: dict[str, _Run] = {}
        self._waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def add(self, msg_id: str) -> None:
        """Track an execution sent by `KernelAdapter.execute`."""
        self._runs[msg_id] = _Run()

    @property
    def pending(self) -> list[str]:
        """msg_ids of executions not finished yet, in the order they were sent."""
        return [k for k, r in self._runs.items() if not r.silent]

    async def wait_silent(self, msg_id: str, limit: float) -> dict[str, Any]:
        """Track a silent execution and wait for its reply content (+ stdout/stderr)."""
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._runs[msg_id] = _Run(silent=True, future=fut)
        try:
            return await asyncio.wait_for(fut, limit)
        finally:
            self._runs.pop(msg_id, None)

    async def wait_reply(self, msg_id: str, limit: float) -> dict[str, Any]:
        """Wait for the shell reply to request `msg_id` and return its content."""
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters[msg_id] = fut
        try:
            return await asyncio.wait_for(fut, limit)
        finally:
            self._waiters.pop(msg_id, None)

    def on_shell(self, msg: dict[str, Any]) -> None:
        """A shell-channel reply arrived."""
        parent = msg["parent_header"].get("msg_id")
        waiter = self._waiters.pop(parent, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(msg["content"])
        run = self._runs.get(parent)
        if run is not None and msg["msg_type"] == "execute_reply":
            run.reply = msg["content"]
            started = (msg.get("metadata") or {}).get("started")  # ipykernel's, not in the protocol
            if started:
                run.timing["shell.execute_reply.started"] = started if isinstance(started, str) else str(
                    json_default(started))
            run.timing["shell.execute_reply"] = message_date(msg)
            if run.idle:
                self._finish(parent, run)

    def on_iopub(self, msg: dict[str, Any]) -> None:
        """An iopub message arrived: its execution's events, or an `Output` of no tracked execution."""
        parent = msg["parent_header"].get("msg_id")
        run = self._runs.get(parent)
        if run is None:
            # Not a cell's: e.g. printed by a widget's callback, which a comm message ran. Reported all the
            # same: an Output widget may be capturing it, and a display update may name a shown output.
            if msg["msg_type"] in OUTPUT_TYPES:
                self._emit(Output(parent or "", msg["msg_type"], msg["content"]))
            return
        msg_type = msg["msg_type"]
        content = msg["content"]
        if msg_type == "status":
            state = content.get("execution_state")
            if state in ("busy", "idle") and not run.silent:
                run.timing[f"iopub.status.{state}"] = message_date(msg)
            if state == "idle":
                run.idle = True
                if run.reply is not None:
                    self._finish(parent, run)
        elif run.silent:
            if msg_type == "stream":
                run.streams.setdefault(content.get("name", "stdout"), []).append(content.get("text", ""))
        elif msg_type in OUTPUT_TYPES:
            self._emit(Output(parent, msg_type, content))
        elif msg_type == "execute_input":
            run.timing["iopub.execute_input"] = message_date(msg)
            self._emit(ExecutionStarted(parent, content.get("execution_count")))

    def fail_all(self, reason: str) -> None:
        """The kernel died or restarted: finish every pending execution as `dead`."""
        runs, self._runs = self._runs, {}
        waiters, self._waiters = self._waiters, {}
        for msg_id, run in runs.items():
            if run.future is not None:
                if not run.future.done():
                    run.future.set_exception(KernelNotRunning(reason))
            else:
                timing = {**run.timing, "execution_failed": now_iso()} if run.timing else {}
                self._emit(ExecutionFinished(msg_id, "dead", reason=reason, timing=timing))
        for fut in waiters.values():
            if not fut.done():
                fut.set_exception(KernelNotRunning(reason))

    def _finish(self, msg_id: str, run: _Run) -> None:
        del self._runs[msg_id]
        reply = run.reply or {}
        if run.future is not None:
            if not run.future.done():
                result = dict(reply)
                result["stdout"] = "".join(run.streams.get("stdout", []))
                result["stderr"] = "".join(run.streams.get("stderr", []))
                run.future.set_result(result)
            return
        status = reply.get("status")
        self._emit(
            ExecutionFinished(
                msg_id,
                status if status in FINISHED_STATUSES else "error",
                reply.get("execution_count"),
                list(reply.get("payload") or []),
                timing=dict(run.timing),
            )
        )
