"""A cell's error output as plain text: what the Fix flow reads (`ErrorInfo`) and what the edit prompt
shows the model (`traceback_text`, ANSI colours stripped, long tracebacks cut in the middle)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# IPython colours its tracebacks with CSI sequences (`\x1b[0;31m`); OSC and lone escapes are dropped too
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# a traceback longer than this (characters) keeps its head and its tail
MAX_TRACEBACK = 3000


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


@dataclass(frozen=True)
class ErrorInfo:
    """An nbformat/Jupyter `error` output: the exception's class name, its message (`str(exc)`) and the
    traceback lines as the kernel sent them (with ANSI colours)."""

    ename: str
    evalue: str
    traceback: list[str] = field(default_factory=list)

    @classmethod
    def from_output(cls, output: Mapping[str, Any]) -> ErrorInfo:
        """From an error output (`{"output_type": "error", "ename", "evalue", "traceback"}`) or an
        iopub `error` message's content (the same keys)."""
        lines = output.get("traceback") or []
        return cls(str(output.get("ename", "")), str(output.get("evalue", "")),
                   [str(line) for line in lines] if isinstance(lines, list) else [])

    def text(self) -> str:
        """The whole traceback as plain text (the `ename: evalue` line where the kernel sent none)."""
        return traceback_text(self.traceback, limit=None) or f"{self.ename}: {self.evalue}"


def traceback_text(lines: Sequence[str], limit: int | None = MAX_TRACEBACK) -> str:
    """Traceback lines (each may hold several lines) as one plain text, without ANSI colours and
    trailing spaces; longer than `limit` characters, the middle gives way (`cut_middle`)."""
    text = "\n".join(line.rstrip() for line in strip_ansi("\n".join(lines)).split("\n")).strip("\n")
    return text if limit is None else cut_middle(text, limit)


def cut_middle(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters at line ends: a quarter from its head (where the cell's
    own line is), the rest from its tail (the library frames nearest the error, and the error)."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    head: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > limit // 4:
            break
        head.append(line)
        used += len(line) + 1
    tail: list[str] = []
    used = 0
    for line in reversed(lines[len(head):]):
        if used + len(line) + 1 > limit - limit // 4 and tail:
            break
        tail.append(line)
        used += len(line) + 1
    tail.reverse()
    if len(tail) > 0 and used > limit - limit // 4:  # one line longer than the room: its end
        tail[0] = "..." + tail[0][len(tail[0]) - (limit - limit // 4) :]
    left = len(lines) - len(head) - len(tail)
    return "\n".join([*head, f"[... {left} lines left out ...]", *tail]) if left else "\n".join(head + tail)
