"""FIM completion over any `Backend`, decoded as the editor decodes (token healing, beam, rules)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from ghostbook.completion.further_lines import FurtherLines
from ghostbook.completion.healing import TokenIndex as HealingIndex
from ghostbook.completion.healing import indentation_to_heal, should_heal
from ghostbook.completion.indentation import indent_rule
from ghostbook.completion.neighbours import repeated_lines
from ghostbook.completion.reading import ReadCheck, Reader
from ghostbook.completion.syntax_fit import SyntaxFit
from ghostbook.models.backend import GenParams, GenStats, TokenOut
from ghostbook.models.streaming import decode
from ghostbook.training.fim import fit, psm, spm


class Backend(Protocol):
    """The few operations evaluation needs from a model runtime."""

    name: str
    n_ctx: int
    eot: int
    fim_prefix: int
    fim_suffix: int
    fim_middle: int

    def encode(self, text: str) -> list[int]: ...
    def token_bytes(self, token: int) -> bytes: ...
    def start(self, prompt: list[int]) -> np.ndarray: ...
    def step(self, token: int) -> np.ndarray: ...
    def reader(self) -> Reader: ...


@dataclass(frozen=True)
class Completion:
    text: str
    tokens: list[int]
    prompt_tokens: int


class TokenIndex:
    """Byte strings of every token, for the healing constraint."""

    def __init__(self, backend: Backend, vocab_size: int) -> None:
        self.pieces = [backend.token_bytes(i) for i in range(vocab_size)]
        self.special = {backend.eot, backend.fim_prefix, backend.fim_suffix, backend.fim_middle}
        self.healing = HealingIndex(self.pieces, self.special)


def heal(prompt_ids: list[int], index: TokenIndex) -> tuple[list[int], bytes]:
    """Drop the prompt's last token; return the shortened ids and the removed bytes."""
    if not prompt_ids or prompt_ids[-1] in index.special:
        return prompt_ids, b""
    return prompt_ids[:-1], index.pieces[prompt_ids[-1]]


def build_prompt(backend: Backend, prefix_ids: list[int], suffix_ids: list[int], max_new: int,
                 layout: str = "psm") -> list[int]:
    p, s = fit(prefix_ids, suffix_ids, backend.n_ctx - max_new - 4)
    fn = spm if layout == "spm" else psm
    return fn(backend.fim_prefix, backend.fim_suffix, backend.fim_middle, p, s)


def complete(backend: Backend, index: TokenIndex, prefix: str, suffix: str, max_new: int = 48,
             single_line: bool = True, healing: bool = True, layout: str = "psm", beam: int = 1,
             syntax: bool = True, reading: bool = True) -> Completion:
    """The middle for (prefix, suffix), decoded as the editor decodes (`models.streaming.decode`): with
    `beam` > 1 the first line is the likeliest a beam that wide finds (`beam_line`) and, unless
    `single_line`, each further line or the end too (`beam_lines`); with `beam` 1 all greedy.
    Single-line stops at the first newline of the middle. With `healing`, the editor's rules decide what
    to heal: the whole indentation when the cursor's line is only that (`indentation_to_heal`), else the
    last token where `should_heal` says so. With `syntax`, the beam's lines must fit the code around them
    where one can (`completion.syntax_fit`), and with `reading` its best lines are ranked by the read
    check (`completion.reading`), as in the editor."""
    indentation = indentation_to_heal(prefix) if healing else ""
    prefix_ids = backend.encode(prefix[: len(prefix) - len(indentation)])
    removed = indentation.encode()
    if healing and not indentation and should_heal(prefix):
        prefix_ids, removed = heal(prefix_ids, index)
    prompt = build_prompt(backend, prefix_ids, backend.encode(suffix), max_new, layout)
    params = GenParams(max_new, frozenset({backend.eot}), removed)
    if beam > 1:
        params = replace(
            params, beam=beam, blank_line=not prefix.rsplit("\n", 1)[-1].strip(),
            avoid=repeated_lines(prefix, suffix), indent=indent_rule(prefix),
            syntax=SyntaxFit(prefix, suffix) if syntax else None,
            reading=ReadCheck.around(prefix, suffix, removed) if reading else None,
            lines=None if single_line else FurtherLines.around(prefix, suffix, prefix, suffix, removed, syntax,
                                                                reading))
    state: list[np.ndarray | None] = [None]
    out: list[int] = []
    pieces: list[bytes] = []

    def seek(tokens: Sequence[int]) -> np.ndarray:
        state[0] = found = backend.start(prompt + list(tokens))
        return found

    def logits() -> np.ndarray:
        last = state[0]
        return last if last is not None else seek([])

    def step(token: int) -> None:
        state[0] = backend.step(token)

    def emit(token: TokenOut) -> None:
        out.append(token.id)
        pieces.append(token.piece)

    def line_done() -> bool:  # single-line: the middle's first newline ends it
        return single_line and b"\n" in b"".join(pieces)[len(removed):]

    decode(seek, logits, step, params, index.healing, index.special, line_done, emit, GenStats(),
           backend.reader() if beam > 1 and reading else None)
    data = b"".join(pieces)
    text = data[len(removed):].decode("utf-8", "replace") if data.startswith(removed) else data.decode(
        "utf-8", "replace")
    if single_line:
        text = text.split("\n", 1)[0]
    return Completion(text, out, len(prompt))
