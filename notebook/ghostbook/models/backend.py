"""The small interface every completion backend implements (DESIGN §3).

A backend is loaded once (blocking; the loader runs it in a worker thread), then streams the tokens
of a prompt given as token ids. Errors and progress travel as data (`ModelStatus`), never as crashes
of the server.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from ghostbook.completion.further_lines import FurtherLines
    from ghostbook.completion.indentation import IndentRule
    from ghostbook.completion.reading import ReadCheck
    from ghostbook.completion.syntax_fit import SyntaxFit

State = Literal["off", "loading", "ready", "error"]


@dataclass(frozen=True)
class ModelStatus:
    """What the settings panel shows about the model (protocol `ModelStatus`)."""

    state: State
    name: str = ""
    path: str | None = None
    progress: float | None = None
    message: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "name": self.name, "path": self.path, "progress": self.progress,
                "message": self.message}


@dataclass(frozen=True)
class GenParams:
    """Generation settings. `heal`: bytes the output must start with (token healing). `beam` > 1: the
    first line is the likeliest a beam that wide finds, the rest greedy (`beam.beam_line`);
    `blank_line`: the cursor's line is still blank, so an empty first line says nothing; `avoid`: first
    lines the beam may not choose (`completion.neighbours.repeated_lines`); `indent`: where the beam's
    first line may be indented (`completion.indentation.indent_rule`); `syntax`: the cell around the
    cursor, which the beam's first line should fit (`completion.syntax_fit`); `reading`: the text the
    beam's best lines are read in to rank them (`completion.reading`; backends that can read); `lines`:
    with a beam, the lines after the first are found one by one, each by a beam under these rules made
    where it stands (`completion.further_lines`), until the end wins; without, greedy writes them."""

    max_new_tokens: int = 64
    stop_ids: frozenset[int] = frozenset()
    heal: bytes = b""
    beam: int = 1
    blank_line: bool = False
    avoid: frozenset[bytes] = frozenset()
    indent: IndentRule | None = None
    syntax: SyntaxFit | None = None
    reading: ReadCheck | None = None
    lines: FurtherLines | None = None


@dataclass(frozen=True)
class TokenOut:
    id: int
    piece: bytes


@dataclass
class GenStats:
    """Counts and timings of one `stream` call (prompt tokens reused from the KV cache vs evaluated)."""

    prompt_tokens: int = 0
    reused_tokens: int = 0
    generated: int = 0
    prompt_ms: float = 0.0
    total_ms: float = 0.0
    cancelled: bool = False


@dataclass(frozen=True)
class BackendInfo:
    name: str
    path: str
    family: str
    n_ctx: int
    n_vocab: int
    extra: dict[str, Any] = field(default_factory=dict)


class Backend(Protocol):
    info: BackendInfo
    last_stats: GenStats

    def load(self) -> None:
        """Blocking: read the model. Raises ModelLoadError with a message for the user."""

    def unload(self) -> None: ...

    def tokenize(self, text: str) -> list[int]: ...

    def lookup(self, token_text: str) -> int | None:
        """The id of a vocabulary entry by its exact text (special tokens), or None."""

    def piece(self, token: int) -> bytes: ...

    def stream(self, prompt_ids: Sequence[int], params: GenParams,
               cancel: threading.Event) -> AsyncGenerator[TokenOut, None]:
        """Generate greedily in a worker thread; stops between tokens once `cancel` is set."""


class ModelLoadError(RuntimeError):
    """A model could not be loaded; the message is meant for the user."""
