"""The context length a GGUF model was trained with, read from its header before llama.cpp loads it.

llama.cpp warns ("possible training context overflow") when a context is made longer than the model's
`<arch>.context_length`; the backend asks for at most that much from the start instead of loading a
longer context and shrinking it. Only the header's key-value pairs are read, up to that key (it comes
before the tokenizer's long arrays in files llama.cpp's converters write).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


def trained_context(path: Path) -> int | None:
    """`<arch>.context_length` of the GGUF file at `path`; None if the header does not say (or is not
    one this reader knows: GGUF v2 and v3, little-endian)."""
    try:
        with open(path, "rb") as handle:
            if handle.read(4) != b"GGUF" or _int(handle, "I") not in (2, 3):
                return None
            _int(handle, "Q")  # tensors
            for _ in range(min(_int(handle, "Q"), 1 << 16)):
                key = _string(handle)
                kind = _int(handle, "I")
                if key.endswith(b".context_length") and kind in _SCALARS:
                    value = _read(handle, _SCALARS[kind])
                    return int(value) if isinstance(value, int) and value > 0 else None
                _skip(handle, kind)
    except (OSError, struct.error, ValueError):
        return None
    return None


def _read(handle: BinaryIO, fmt: str) -> int | float | bool:
    size = struct.calcsize("<" + fmt)
    data = handle.read(size)
    if len(data) != size:
        raise ValueError("truncated GGUF header")
    value: int | float | bool = struct.unpack("<" + fmt, data)[0]
    return value


def _int(handle: BinaryIO, fmt: str) -> int:
    return int(_read(handle, fmt))


def _string(handle: BinaryIO) -> bytes:
    size = _int(handle, "Q")
    data = handle.read(size)
    if len(data) != size:
        raise ValueError("truncated GGUF header")
    return data


def _skip(handle: BinaryIO, kind: int) -> None:
    if kind in _SCALARS:
        handle.seek(struct.calcsize("<" + _SCALARS[kind]), 1)
    elif kind == _STRING:
        handle.seek(_int(handle, "Q"), 1)
    elif kind == _ARRAY:
        item, count = _int(handle, "I"), _int(handle, "Q")
        if item in _SCALARS:
            handle.seek(struct.calcsize("<" + _SCALARS[item]) * count, 1)
        else:
            for _ in range(count):
                _skip(handle, item)
    else:
        raise ValueError(f"unknown GGUF value type {kind}")
