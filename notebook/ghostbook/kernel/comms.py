"""Comm messages (the Jupyter comm protocol: comm_open, comm_msg, comm_close), shared by both adapters.

From the kernel: iopub comm_* messages become `CommMessage` events. To the kernel: the adapters send
comm messages on the shell channel under the msg_id the page chose (a widget frontend matches the
kernel's `echo_update` to its own update by that id) and remember it until the kernel's idle status
for it arrives, reported as `CommDone` (a widget frontend holds its next update until then).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .events import COMM_TYPES, CommDone, CommMessage, KernelEvent

COMM_SEND_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})
MAX_PENDING = 10_000  # msg_ids awaiting their idle status; the oldest are forgotten past this


class CommTracker:
    """Turns iopub comm traffic into events and reports when a comm message we sent was handled."""

    def __init__(self, emit: Callable[[KernelEvent], None]) -> None:
        self._emit = emit
        self._sent: OrderedDict[str, None] = OrderedDict()

    def sent(self, msg_id: str) -> None:
        """A comm message `msg_id` went to the kernel."""
        self._sent[msg_id] = None
        while len(self._sent) > MAX_PENDING:
            self._sent.popitem(last=False)

    def on_iopub(self, msg: dict[str, Any]) -> bool:
        """Handle an iopub message if it is comm traffic; True when it was a comm message (nothing else
        needs it). An idle status for a comm message we sent is reported but not consumed."""
        msg_type = msg.get("msg_type", "")
        parent = str((msg.get("parent_header") or {}).get("msg_id") or "")
        if msg_type in COMM_TYPES:
            content = msg.get("content") or {}
            if not isinstance(content.get("comm_id"), str):
                return True  # malformed: nobody could route it
            buffers = tuple(bytes(buf) for buf in msg.get("buffers") or ())
            self._emit(CommMessage(parent, msg_type, dict(content), dict(msg.get("metadata") or {}), buffers))
            return True
        if (msg_type == "status" and parent in self._sent
                and (msg.get("content") or {}).get("execution_state") == "idle"):
            del self._sent[parent]
            self._emit(CommDone(parent))
        return False

    def clear(self) -> None:
        """The kernel restarted or went away: no idle status will come for what was sent before."""
        self._sent.clear()


def check_comm(msg_type: str, content: dict[str, Any]) -> None:
    """Refuse what is not a comm message the kernel could route (ValueError)."""
    if msg_type not in COMM_SEND_TYPES:
        raise ValueError(f"not a comm message type: {msg_type!r}")
    if not isinstance(content.get("comm_id"), str):
        raise ValueError("a comm message needs a comm_id")
    if msg_type == "comm_open" and not isinstance(content.get("target_name"), str):
        raise ValueError("comm_open needs a target_name")
