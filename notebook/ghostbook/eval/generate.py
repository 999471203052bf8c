"""FIM completion through the editor's own path: the model runs on the editor's backends
(`models.loader.open_backend`), the prompt and decode plan come from `completion.prompt.make_prompt`,
the decoding is `ghostbook.decoding`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ghostbook.completion.context import Context
from ghostbook.completion.prompt import make_prompt
from ghostbook.models.backend import Backend, TokenOut
from ghostbook.models.templates import Layout


@dataclass(frozen=True)
class Completion:
    text: str
    tokens: list[int]
    prompt_tokens: int


def load_backend(path: Path, threads: int = 1, n_ctx: int = 512) -> Backend:
    """A `.gguf` file on llama.cpp, a model folder on transformers, loaded (the editor's backends)."""
    from ghostbook.models.loader import open_backend

    return open_backend(Path(path), threads=threads, n_ctx=n_ctx)


def complete(backend: Backend, prefix: str, suffix: str, max_new: int = 48, single_line: bool = True,
             healing: bool = True, layout: Layout = "psm", beam: int = 1, syntax: bool = True,
             reading: bool = True, copies: bool = True) -> Completion:
    """The middle for (prefix, suffix) (a one-cell notebook), decoded as the editor decodes: with `beam`
    > 1 the first line is the likeliest a beam that wide finds under the editor's rules (`syntax`: it
    must fit the code around it where one can; `reading`: its best lines are ranked by the read check)
    and, unless `single_line`, each further line or the end too; with `beam` 1 all greedy. Single-line
    stops at the first newline of the middle. With `healing`, the editor's rules decide what to heal;
    `copies`: candidates copied from the text around the cursor compete with the beam's line."""
    prompt = make_prompt(backend, Context(prefix, suffix, prefix, suffix), max_new, beam, reading, layout=layout,
                         healing=healing, syntax=syntax, multi_line=not single_line, copies=copies)
    removed = prompt.plan.heal
    out: list[int] = []
    pieces: list[bytes] = []

    def emit(token: TokenOut) -> None:
        out.append(token.id)
        pieces.append(token.piece)

    def line_done() -> bool:  # single-line: the middle's first newline ends it
        return single_line and b"\n" in b"".join(pieces)[len(removed):]

    backend.generate(prompt.ids, prompt.plan, line_done, emit)
    data = b"".join(pieces)
    text = data[len(removed):].decode("utf-8", "replace") if data.startswith(removed) else data.decode(
        "utf-8", "replace")
    if single_line:
        text = text.split("\n", 1)[0]
    return Completion(text, out, len(prompt.ids))
