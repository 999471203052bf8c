"""Prompt context: the cell around the cursor, neighbouring cells and the kernel's namespace summary.

Layout (stable from request to request so llama.cpp can keep the shared prefix in its KV cache):

    prefix = namespace comment block + cells above (farthest first) + cell text before the cursor
    suffix = cell text after the cursor + cells below (nearest first)

Cells are joined by a blank line; markdown cells become `# ` comments; raw cells are left out.
Whole cells are taken nearest-first while they fit the token budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

CELL_SEPARATOR = "\n\n"
NAMESPACE_HEADER = "# Variables in the kernel:"


class ContextProvider(Protocol):
    """Extra context from outside the document (the kernel's live namespace), one line per name."""

    def namespace_lines(self) -> list[str]: ...

    async def settled(self) -> None:
        """Return once the summary owed since the last run ended is made (or after a short wait)."""

    async def attributes(self, owner: str) -> tuple[str, ...] | None:
        """The attribute names of the kernel's object `owner` (a dotted name); None: no such object, or
        the kernel cannot say."""

    async def files(self) -> tuple[str, ...] | None:
        """The files in the kernel's working folder, relative to it (`completion.file_paths`); None: the
        kernel cannot say."""


@dataclass(frozen=True)
class CellText:
    cell_type: str
    source: str


@dataclass(frozen=True)
class Context:
    """`prefix`/`suffix` go into the prompt; `cell_prefix`/`cell_suffix` are the current cell's parts;
    `above`/`below` the whole notebook's text above and below the cell (the namespace block first), for
    the candidates copied from it (`completion.candidates`; "": only what the prompt holds);
    `attributes`: where the cursor takes an attribute of a kernel object (`df.`), what it has (None:
    unknown); `files`: where the cursor is at a reading call's path (`pd.read_csv(`), the files the
    kernel's working folder has (None: unknown)."""

    prefix: str
    suffix: str
    cell_prefix: str
    cell_suffix: str
    above: str = ""
    below: str = ""
    attributes: tuple[str, ...] | None = None
    files: tuple[str, ...] | None = None


def as_code(cell: CellText) -> str:
    """A cell as Python text: markdown lines become comments, raw cells vanish."""
    if cell.cell_type == "code":
        return cell.source.strip("\n")
    if cell.cell_type == "markdown":
        return "\n".join(f"# {line}".rstrip() for line in cell.source.strip("\n").splitlines())
    return ""


def namespace_block(lines: Sequence[str]) -> str:
    if not lines:
        return ""
    return NAMESPACE_HEADER + "\n" + "\n".join(f"#   {line}" for line in lines) + CELL_SEPARATOR


def namespace_lines(prefix: str) -> tuple[str, ...]:
    """The lines of the namespace block that begins `prefix` (`#   df: DataFrame ...`), if any."""
    if not prefix.startswith(NAMESPACE_HEADER + "\n"):
        return ()
    block = prefix[len(NAMESPACE_HEADER) + 1 :].split(CELL_SEPARATOR, 1)[0]
    return tuple(line for line in block.split("\n") if line.startswith("#   "))


class ContextBuilder:
    """Assembles a `Context` within `budget` tokens counted by `count_tokens`."""

    def __init__(self, count_tokens: Callable[[str], int]) -> None:
        self._count = count_tokens
        self._memo: dict[str, int] = {}
        self._above: dict[str, int] = {}  # cell key -> how many cells above its last context held

    def tokens(self, text: str) -> int:
        n = self._memo.get(text)
        if n is None:
            if len(self._memo) > 4096:
                self._memo.clear()
            n = self._memo[text] = self._count(text) if text else 0
        return n

    def build(self, cells: Sequence[CellText], index: int, cursor: int, budget: int,
              namespace: Sequence[str] = (), suffix_share: float = 0.25, key: str | None = None,
              neighbours: bool = True) -> Context:
        """Context for `cursor` in `cells[index]`; the suffix gets at most `suffix_share` of the budget
        (less suits a PSM prompt, where every keystroke re-evaluates the suffix); without `neighbours`
        the prompt holds the cursor's cell alone (`above`/`below` still hold the whole notebook).

        With a `key` (the cell's id) the cells above are sticky: the ones the last context of that cell
        held stay while they fit, and when some must go, an eighth of the budget is left free, so that
        typing does not shift the start of the prompt (and void the KV cache) every few keystrokes."""
        source = cells[index].source
        cursor = max(0, min(cursor, len(source)))
        cell_prefix, cell_suffix = source[:cursor], source[cursor:]
        suffix_budget = int(budget * suffix_share)
        prefix_budget = budget - suffix_budget

        # the namespace block: whole lines, at most an eighth of the budget
        ns_lines: list[str] = []
        for line in namespace:
            if self.tokens(namespace_block([*ns_lines, line])) > budget // 8:
                break
            ns_lines.append(line)
        header = namespace_block(ns_lines)

        near_prefix = self._tail_lines(cell_prefix, prefix_budget - self.tokens(header))
        left = prefix_budget - self.tokens(header) - self.tokens(near_prefix)
        texts = [t for t in (as_code(c) for c in reversed(cells[:index])) if t] if neighbours else []  # nearest first
        costs = _Costs(texts, self.tokens)  # counted as far as they are read: a cold start counts few
        previous = self._above.get(key) if key is not None else None
        n = _fitting(costs, left - budget // 8 if key is not None else left)
        if previous is not None and previous <= _fitting(costs, left):
            n = max(n, previous)
        if key is not None:
            self._above[key] = n
        above = texts[:n]
        prefix = header + "".join(t + CELL_SEPARATOR for t in reversed(above)) + near_prefix

        suffix_left = budget - self.tokens(prefix)
        suffix = self._head_lines(cell_suffix, min(suffix_left, suffix_budget))
        if suffix == cell_suffix and neighbours:
            suffix_left -= self.tokens(suffix)
            for cell in cells[index + 1 :]:
                text = as_code(cell)
                if not text:
                    continue
                cost = self.tokens(CELL_SEPARATOR + text)
                if cost > min(suffix_left, suffix_budget - self.tokens(suffix)):
                    break
                suffix += CELL_SEPARATOR + text
                suffix_left -= cost
        whole_above = namespace_block(namespace) + "".join(as_code(c) + CELL_SEPARATOR for c in cells[:index])
        whole_below = "".join(CELL_SEPARATOR + as_code(c) for c in cells[index + 1 :])
        return Context(prefix, suffix, cell_prefix, cell_suffix, whole_above, whole_below)

    def _tail_lines(self, text: str, budget: int) -> str:
        """The longest tail of `text` starting at a line start that fits `budget` (the last line always).
        Lines are counted one by one (plus one token per newline): linear, and close enough."""
        if self.tokens(text) <= budget:
            return text
        lines = text.split("\n")
        start = len(lines) - 1
        used = self.tokens(lines[start])
        while start > 0 and used + self.tokens(lines[start - 1]) + 1 <= budget:
            start -= 1
            used += self.tokens(lines[start]) + 1
        return "\n".join(lines[start:])

    def _head_lines(self, text: str, budget: int) -> str:
        """The longest head of `text` ending at a line end that fits `budget` (possibly empty)."""
        if self.tokens(text) <= budget:
            return text
        lines = text.split("\n")
        end, used = 0, 0
        while end < len(lines) and used + self.tokens(lines[end]) + 1 <= budget:
            used += self.tokens(lines[end]) + 1
            end += 1
        return "\n".join(lines[:end])


class _Costs:
    """The token counts of `texts` (each followed by a cell separator), counted when first read."""

    def __init__(self, texts: Sequence[str], count: Callable[[str], int]) -> None:
        self._texts, self._count, self._known = texts, count, list[int]()

    def __iter__(self) -> Iterator[int]:
        for i, text in enumerate(self._texts):
            if i == len(self._known):
                self._known.append(self._count(text + CELL_SEPARATOR))
            yield self._known[i]


def _fitting(costs: Iterable[int], room: int) -> int:
    """How many of `costs`, taken in order, fit in `room`."""
    n = 0
    for cost in costs:
        if cost > room:
            break
        room -= cost
        n += 1
    return n
