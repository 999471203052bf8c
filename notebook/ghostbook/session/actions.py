"""Side effects the reducer asks for, as data; the session runtime performs them in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ghostbook import protocol as p


@dataclass(frozen=True)
class Broadcast:
    """Send `message` to every client of the session (but `skip`, when given)."""

    message: p.ServerEvent
    skip: str | None = None


@dataclass(frozen=True)
class OutputsChanged:
    """A cell's outputs changed; the runtime sends them (throttled unless `urgent`)."""

    cell_id: str
    urgent: bool


@dataclass(frozen=True)
class ExecuteCode:
    """Send `code` to the kernel for cell `cell_id`; the runtime reports back with ExecutionSent."""

    cell_id: str
    code: str


@dataclass(frozen=True)
class InterruptKernel:
    pass


@dataclass(frozen=True)
class RestartKernel:
    pass


@dataclass(frozen=True)
class StartKernel:
    """Shut down the current kernel (if any) and start kernelspec `name`."""

    name: str


@dataclass(frozen=True)
class SendStdin:
    value: str


@dataclass(frozen=True)
class DocumentChanged:
    """The document differs from the file: schedule an autosave. `minor`: only widget state changed
    (saved on the slower schedule of kernel-made changes)."""

    minor: bool = False


@dataclass(frozen=True)
class SendComm:
    """Send a comm message (comm_open, comm_msg, comm_close) to the kernel under `msg_id`."""

    msg_type: str
    content: dict[str, Any]
    msg_id: str
    metadata: dict[str, Any]
    buffers: tuple[bytes, ...]


@dataclass(frozen=True)
class WidgetOutputsChanged:
    """An Output widget captured output; the runtime sends its outputs to the tabs (throttled unless
    `urgent`)."""

    model_id: str
    urgent: bool


Action = (Broadcast | OutputsChanged | ExecuteCode | InterruptKernel | RestartKernel | StartKernel
          | SendStdin | DocumentChanged | SendComm | WidgetOutputsChanged)
