"""Events a kernel adapter reports to its owner (the session). Plain data, no jupyter_client types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

KernelState = Literal["starting", "idle", "busy", "restarting", "dead"]


@dataclass(frozen=True)
class StatusChanged:
    """The kernel's state changed. `reason` explains a death (exit code, signal) or a failed start."""

    state: KernelState
    reason: str | None = None


@dataclass(frozen=True)
class ExecutionStarted:
    """The kernel began running request `msg_id` (iopub execute_input)."""

    msg_id: str
    execution_count: int | None


@dataclass(frozen=True)
class Output:
    """An iopub message produced by request `msg_id`.

    `msg_type` is one of stream, display_data, execute_result, error, clear_output,
    update_display_data; `content` is the message content as jupyter_client gives it.
    """

    msg_id: str
    msg_type: str
    content: dict[str, Any]


@dataclass(frozen=True)
class ExecutionFinished:
    """Request `msg_id` is over: its execute_reply arrived AND the kernel went idle for it, so no
    more output for it will follow. status: ok | error | aborted | dead (the kernel died or restarted
    before replying; `reason` then says which: "The kernel died: killed by signal 9 (SIGKILL)...",
    "The kernel was restarted", ...).

    `timing`: ISO timestamps of the run under JupyterLab's `execution` metadata keys (its
    `packages/cells/src/widget.ts` CodeCell.execute, `recordTiming`): `iopub.status.busy`,
    `iopub.execute_input` and `iopub.status.idle` are the header dates of those iopub messages,
    `shell.execute_reply` the execute_reply's header date and `shell.execute_reply.started` its
    metadata's `started` (ipykernel's); `execution_failed` when the run ended without a reply."""

    msg_id: str
    status: Literal["ok", "error", "aborted", "dead"]
    execution_count: int | None = None
    payload: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None
    timing: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StdinRequested:
    """Request `msg_id` called input(); answer with KernelAdapter.send_stdin."""

    msg_id: str
    prompt: str
    password: bool


COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})


@dataclass(frozen=True)
class CommMessage:
    """A comm message from the kernel (iopub comm_open, comm_msg or comm_close: ipywidgets and other
    frontend extensions). `msg_id` is its parent request's (the comm message or execution that caused
    it, "" if none); `content` holds comm_id, data (and target_name for comm_open); `buffers` are its
    binary buffers, in order."""

    msg_id: str
    msg_type: Literal["comm_open", "comm_msg", "comm_close"]
    content: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    buffers: tuple[bytes, ...] = ()


@dataclass(frozen=True)
class CommDone:
    """The kernel finished handling comm message `msg_id` that we sent (its iopub status went idle):
    a widget frontend sends its next update only then (ipywidgets' throttle)."""

    msg_id: str


KernelEvent = StatusChanged | ExecutionStarted | Output | ExecutionFinished | StdinRequested | CommMessage | CommDone
