"""Operations that come from the kernel or the runtime (client operations are the protocol's
message classes). Together they are everything that can change a session's state."""

from __future__ import annotations

from dataclasses import dataclass

from ghostbook import protocol
from ghostbook.kernel.events import KernelEvent


@dataclass(frozen=True)
class FromClient:
    """A validated client message and the id of the client that sent it."""

    client_id: str
    message: protocol.ClientMessage


@dataclass(frozen=True)
class FromKernel:
    event: KernelEvent


@dataclass(frozen=True)
class ExecutionSent:
    """The runtime sent the ExecuteCode of `cell_id`; the kernel knows it as `msg_id`."""

    cell_id: str
    msg_id: str


@dataclass(frozen=True)
class ExecutionFailedToSend:
    """The kernel could not take the request (it is dead or not started)."""

    cell_id: str
    reason: str


@dataclass(frozen=True)
class KernelChosen:
    """A kernel started (name and display name for the snapshot); `by_user`: the user chose it.

    Only a kernel the user chose changes the document: the one started on opening a notebook
    just fills in the kernelspec in memory, so opening never rewrites the file.
    """

    name: str
    display_name: str
    by_user: bool = False
    can_install: bool = False  # packages can be installed into its interpreter (session/install.py)


Operation = FromClient | FromKernel | ExecutionSent | ExecutionFailedToSend | KernelChosen
