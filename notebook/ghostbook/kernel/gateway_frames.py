"""Binary websocket frames of a Jupyter server's kernel channels: a message with buffers (widgets: images,
arrays, uploads) travels as one binary frame, as jupyter_server's `serialize_binary_message` writes it.

Layout: a big-endian uint32 count N of the parts (the message JSON, then each buffer), N uint32 offsets
of those parts from the frame's start, then the parts themselves.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from typing import Any

from jupyter_client.jsonutil import json_default

MAX_PARTS = 1024


class FrameError(ValueError):
    """A binary frame that does not follow the layout."""


def pack(msg: dict[str, Any], buffers: Sequence[bytes]) -> bytes:
    """One binary frame for `msg` (a JSON-able message, without buffers) and its `buffers`."""
    parts = [json.dumps(msg, default=json_default).encode("utf-8"), *(bytes(b) for b in buffers)]
    offsets = [4 * (len(parts) + 1)]
    for part in parts[:-1]:
        offsets.append(offsets[-1] + len(part))
    return struct.pack(f"!{len(parts) + 1}I", len(parts), *offsets) + b"".join(parts)


def unpack(frame: bytes) -> dict[str, Any]:
    """The message of a binary frame, its buffers under "buffers" (FrameError when malformed)."""
    if len(frame) < 4:
        raise FrameError("binary frame too short")
    (count,) = struct.unpack("!I", frame[:4])
    if not 1 <= count <= MAX_PARTS or len(frame) < 4 * (count + 1):
        raise FrameError(f"binary frame with {count} parts")
    offsets = [*struct.unpack(f"!{count}I", frame[4:4 * (count + 1)]), len(frame)]
    if any(a > b for a, b in zip(offsets, offsets[1:], strict=False)) or offsets[0] < 4 * (count + 1):
        raise FrameError("binary frame offsets out of order")
    parts = [frame[start:stop] for start, stop in zip(offsets, offsets[1:], strict=False)]
    try:
        msg = json.loads(parts[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FrameError(f"binary frame message is not JSON: {exc}") from None
    if not isinstance(msg, dict):
        raise FrameError("binary frame message is not an object")
    msg["buffers"] = parts[1:]
    return msg
