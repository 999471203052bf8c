"""A cell's outputs as the kernel streams them: coalescing, clearing, display updates and caps.

Streams are coalesced per name (stdout/stderr) and capped: the first `head_chars` characters and the
last `tail_chars` are kept, with a line saying how much was dropped in between, so that printing a
million lines keeps memory, the browser and the saved file small. The text is what a terminal would
show (session/terminal.py): a progress bar redrawn with `\\r` stays one line, in the browser and in the
saved file alike, as in Jupyter.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from ghostbook.session.terminal import TerminalLine, terminal_text

HEAD_CHARS = 20_000
TAIL_CHARS = 20_000
MAX_OUTPUTS = 200  # outputs per cell (streams and rich); older ones beyond this are dropped from the middle


@dataclass
class StreamText:
    """Capped text of one stream output: head, dropped count, rolling tail."""

    name: str
    head: str = ""
    tail: str = ""
    dropped_chars: int = 0
    dropped_lines: int = 0
    head_chars: int = HEAD_CHARS
    tail_chars: int = TAIL_CHARS
    line: TerminalLine = field(default_factory=TerminalLine)  # the unfinished last line, still redrawn
    keep_dropped: bool = False
    full_id: str | None = None  # set at the first drop when keep_dropped: the whole text's name
    pending: list[str] = field(default_factory=list)  # dropped text not yet taken (take_dropped)

    def append(self, text: str) -> None:
        done = self.line.write(text)
        if done:
            self._append_done(done)

    def _append_done(self, text: str) -> None:
        if len(self.head) < self.head_chars and not self.tail and not self.dropped_chars:
            room = self.head_chars - len(self.head)
            self.head += text[:room]
            text = text[room:]
            if not text:
                return
            # Cut the head at a line end so the marker starts on its own line.
            cut = self.head.rfind("\n") + 1
            if cut > 0:
                text = self.head[cut:] + text
                self.head = self.head[:cut]
        self.tail += text
        if len(self.tail) > 2 * self.tail_chars:
            self._drop(len(self.tail) - self.tail_chars)

    def _drop(self, count: int) -> None:
        # Drop whole lines where possible so the tail starts at a line start.
        newline = self.tail.find("\n", count)
        if newline != -1 and newline - count < 1000:
            count = newline + 1
        removed = self.tail[:count]
        self.tail = self.tail[count:]
        if self.keep_dropped:
            if self.full_id is None:
                self.full_id = uuid.uuid4().hex
                self.pending.append(self.head)
            self.pending.append(removed)
        self.dropped_chars += len(removed)
        self.dropped_lines += removed.count("\n")

    def text(self) -> str:
        if len(self.tail) > self.tail_chars:
            self._drop(len(self.tail) - self.tail_chars)
        if not self.dropped_chars:
            return self.head + self.tail + self.line.text()
        marker = (f"[… {self.dropped_lines:,} lines ({self.dropped_chars:,} characters) of output "
                  f"dropped …]\n")
        return self.head + marker + self.tail + self.line.text()

    def to_json(self) -> dict[str, Any]:
        return {"output_type": "stream", "name": self.name, "text": self.text()}

    def take_dropped(self) -> str:
        """The dropped text not taken yet (the head comes first, with the first drop)."""
        text, self.pending = "".join(self.pending), []
        return text

    def line_count(self) -> int:
        """Lines of the whole text (the dropped ones too)."""
        rest = self.rest()
        unfinished = 1 if rest and not rest.endswith("\n") else 0
        return self.head.count("\n") + self.dropped_lines + rest.count("\n") + unfinished

    def rest(self) -> str:
        """What follows the dropped text: the tail and the unfinished line (the whole text's end)."""
        return self.tail + self.line.text()


@dataclass
class RichOutput:
    """Any non-stream output, kept as its nbformat dict; `display_id` only lives in memory."""

    output: dict[str, Any]
    display_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.output


@dataclass
class CellOutputs:
    items: list[StreamText | RichOutput] = field(default_factory=list)
    clear_on_next: bool = False  # clear_output(wait=True) was called
    dropped_outputs: int = 0
    version: int = 0  # counts the changes: outputs sent at one version need not be sent again

    @classmethod
    def from_json(cls, outputs: list[dict[str, Any]]) -> CellOutputs:
        items: list[StreamText | RichOutput] = []
        for output in outputs:
            if output.get("output_type") == "stream":
                text = output.get("text", "")
                stream = StreamText(str(output.get("name", "stdout")))
                stream.head = terminal_text("".join(text) if isinstance(text, list) else str(text))
                items.append(stream)
            else:
                items.append(RichOutput(dict(output)))
        return cls(items)

    def to_json(self) -> list[dict[str, Any]]:
        return [item.to_json() for item in self.items]

    def to_wire(self) -> list[dict[str, Any]]:
        """As saved, plus `full_text` {id, lines} on a stream whose whole text the server keeps."""
        return [item.to_json() if not isinstance(item, StreamText) or item.full_id is None
                else {**item.to_json(), "full_text": {"id": item.full_id, "lines": item.line_count()}}
                for item in self.items]

    def clear(self, wait: bool = False) -> None:
        if wait:
            self.clear_on_next = True
        else:
            self.version += bool(self.items)
            self.items.clear()
            self.clear_on_next = False
            self.dropped_outputs = 0

    def add(self, msg_type: str, content: dict[str, Any], keep_dropped: bool = False) -> None:
        """Add one iopub output message (stream, display_data, execute_result, error); `keep_dropped`:
        a new stream keeps what it drops for take_dropped."""
        if self.clear_on_next:
            self.clear()
        self.version += 1
        if msg_type == "stream":
            name = str(content.get("name", "stdout"))
            last = self.items[-1] if self.items else None
            if isinstance(last, StreamText) and last.name == name:
                last.append(str(content.get("text", "")))
                return
            stream = StreamText(name, keep_dropped=keep_dropped)
            stream.append(str(content.get("text", "")))
            self._append(stream)
            return
        self._append(RichOutput(*_rich_output(msg_type, content)))

    def _append(self, item: StreamText | RichOutput) -> None:
        """Add a new item; past MAX_OUTPUTS (streams count too) one from the middle is dropped."""
        self.items.append(item)
        if len(self.items) > MAX_OUTPUTS:
            del self.items[MAX_OUTPUTS // 2]
            self.dropped_outputs += 1

    def update_display(self, display_id: str, content: dict[str, Any]) -> bool:
        """Replace the data of every output shown with `display_id`; True if any was found."""
        found = False
        for item in self.items:
            if isinstance(item, RichOutput) and item.display_id == display_id:
                item.output["data"] = nbformat_data(content.get("data", {}))
                item.output["metadata"] = content.get("metadata", {})
                found = True
        self.version += found
        return found


JSON_MIME = re.compile(r"^application/(.*\+)?json$")


def nbformat_data(data: dict[str, Any]) -> dict[str, Any]:
    """A mime bundle as nbformat allows it: any JSON under `application/json` and `application/…+json`,
    text elsewhere. A value of another type (altair 6 sends its spec as an object under
    `application/vnd.vegalite.v6.json`) becomes JSON text, or the saved notebook would not open again."""
    if all(JSON_MIME.match(mime) or _is_text(value) for mime, value in data.items()):
        return data
    return {mime: value if JSON_MIME.match(mime) or _is_text(value) else json.dumps(value)
            for mime, value in data.items()}


def _is_text(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _rich_output(msg_type: str, content: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    display_id = (content.get("transient") or {}).get("display_id")
    if msg_type == "error":
        output = {"output_type": "error", "ename": content.get("ename", ""),
                  "evalue": content.get("evalue", ""), "traceback": list(content.get("traceback", []))}
    elif msg_type == "execute_result":
        output = {"output_type": "execute_result", "data": nbformat_data(content.get("data", {})),
                  "metadata": content.get("metadata", {}),
                  "execution_count": content.get("execution_count")}
    else:
        output = {"output_type": "display_data", "data": nbformat_data(content.get("data", {})),
                  "metadata": content.get("metadata", {})}
    return output, display_id
