"""The chat messages that ask an edit model to rewrite a cell (or its selected lines).

A short system message says the form of the answer: the whole rewritten cell (or selection; for an empty
cell, Generate, the new cell) in one ```python block, unchanged lines kept as they are, no elisions, so
that `draft_answer(original)` is the answer the model gives where it changes nothing (the draft of the
speculative edits). The user message holds, in this order: the notebook's cells above and below (the
completion's `ContextBuilder` fits them to the token budget), the kernel's live state
(`completion.namespace_provider` lines), the cell, the selection, the error's traceback (Fix), the change
the user accepted into the cell just before (`ChangeCause`: its text before and what was asked; a Fix after
Ask's "Run changed cells"), the previous proposal and earlier instructions (a follow-up), and the
instruction last.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ghostbook.completion.context import CellText, ContextBuilder
from ghostbook.editing.errors_text import MAX_TRACEBACK, cut_middle, strip_ansi
from ghostbook.editing.render import SELECTION_END, SELECTION_START

FENCE = "```"
SYSTEM_CELL = (
    "You edit one code cell of a Jupyter notebook (Python, with IPython's magics). Answer with the whole "
    "rewritten cell in one ```python code block and nothing else. Keep every line you do not change exactly "
    "as it is. Write out every line: no elisions such as `# ... existing code ...`.")
SYSTEM_SELECTION = (
    "You edit selected lines of a code cell of a Jupyter notebook (Python, with IPython's magics). Answer "
    "with the whole rewritten selection, indented as in the cell, in one ```python code block and nothing "
    "else. Keep every line you do not change exactly as it is. Write out every line: no elisions such as "
    "`# ... existing code ...`.")
SYSTEM_NEW = (
    "You write one new code cell of a Jupyter notebook (Python, with IPython's magics). Answer with the new "
    "cell's code in one ```python code block and nothing else. The cells above have run: use their names, "
    "do not write their code again.")
# the kernel's state gets at most this share of the room left by the cell, error and instruction
KERNEL_SHARE = 0.25
# the cells below get at most this share of the room left for the cells
BELOW_SHARE = 0.3
_FIELD = re.compile(r" (shape|dtype|len|columns|keys)=")
MAX_BEFORE = 3000  # characters of a cause's text before the change (the middle gives way)


@dataclass(frozen=True)
class ChangeCause:
    """The change the user accepted into the cell (an Ask answer's) that made it what it is: the cell's text
    `before` it ("" for a cell the change added) and the `instruction` that asked for it."""

    before: str
    instruction: str


@dataclass
class EditContext:
    """What an edit request knows: the notebook's `cells` and the edited one's `index`, the `selection`
    (character offsets in that cell; None: the whole cell), the `instruction`, the kernel's
    `namespace_lines` (as `completion.namespace_provider` gathers them), the `error` (a plain traceback,
    for Fix), the accepted change that made the cell what it is (`cause`), the `previous` proposal that a
    follow-up refines and the earlier instructions (`history`, oldest first) that led to it."""

    cells: list[CellText]
    index: int
    selection: tuple[int, int] | None
    instruction: str
    namespace_lines: list[str] = field(default_factory=list)
    error: str | None = None
    cause: ChangeCause | None = None
    previous: str | None = None
    history: list[str] = field(default_factory=list)


def draft_answer(original: str) -> str:
    """The answer the system message asks for where nothing changes: the speculative edits' draft."""
    return f"{FENCE}python\n{original}\n{FENCE}"


def target_range(source: str, selection: tuple[int, int] | None) -> tuple[int, int]:
    """The part of `source` an edit rewrites: the selection widened to whole lines (a selection that
    ends at a line's start leaves that line out), without the last line's newline; the whole cell
    where there is no selection or it is empty."""
    if selection is None or selection[0] == selection[1]:
        return 0, len(source)
    a, b = sorted(max(0, min(x, len(source))) for x in selection)
    if a == b:
        return 0, len(source)
    start = source.rfind("\n", 0, a) + 1
    last = b - 1 if source[b - 1] == "\n" else b
    end = source.find("\n", last)
    return start, len(source) if end < 0 else end


def kernel_line(line: str) -> str:
    """A namespace summary line as the prompt shows it (`df: DataFrame shape=(3, 2) columns=[...]` →
    "`df`: DataFrame, shape (3, 2), columns [...]")."""
    if line.strip() == "...":
        return "- (more names not shown)"
    if line.startswith(("class ", "def ")):
        return f"- `{line}`"
    name, sep, rest = line.partition(": ")
    if not sep or not name.isidentifier():
        return f"- {line}"
    return f"- `{name}`: " + _FIELD.sub(r", \1 ", rest)


def build_messages(ctx: EditContext, count_tokens: Callable[[str], int], budget: int) -> list[dict[str, str]]:
    """The system and user messages for `ctx`. The cell, the error, the previous proposal and the
    instruction always go in; the kernel's state and then the other cells (nearest first) fill what is
    left of `budget` tokens (counted by `count_tokens`)."""
    source = ctx.cells[ctx.index].source
    start, end = target_range(source, ctx.selection)
    whole = (start, end) == (0, len(source))
    system = SYSTEM_NEW if is_new_cell(ctx) else SYSTEM_CELL if whole else SYSTEM_SELECTION
    fixed = _request(ctx, source, start, end, whole)
    room = budget - count_tokens(system) - count_tokens(fixed)
    kernel = kernel_section(ctx.namespace_lines, count_tokens, int(max(room, 0) * KERNEL_SHARE))
    room -= count_tokens(kernel) if kernel else 0
    above, below = cells_around(ctx.cells, ctx.index, count_tokens, room)
    parts = []
    if above:
        parts.append(f"The notebook's cells above this cell:\n{_block(above)}")
    if below:
        parts.append(f"The notebook's cells below this cell:\n{_block(below)}")
    if kernel:
        parts.append(kernel)
    parts.append(fixed)
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def cells_around(cells: Sequence[CellText], index: int, count_tokens: Callable[[str], int],
                 budget: int, below_share: float = BELOW_SHARE) -> tuple[str, str]:
    """The other cells' text above and below `cells[index]` (markdown as comments, cells apart by a
    blank line, the nearest kept), within `budget` tokens (the cells below get at most `below_share` of
    it): the completion's own fitting."""
    if budget <= 0 or len(cells) < 2:
        return "", ""
    rest = [*cells[:index], CellText("code", ""), *cells[index + 1 :]]
    context = ContextBuilder(count_tokens).build(rest, index, 0, budget, suffix_share=below_share)
    return context.prefix.strip("\n"), context.suffix.strip("\n")


def is_new_cell(ctx: EditContext) -> bool:
    """Generate: the cell is empty (Ctrl+K there, or Generate between cells), so the model writes it."""
    return not ctx.cells[ctx.index].source.strip() and ctx.error is None


def _request(ctx: EditContext, source: str, start: int, end: int, whole: bool) -> str:
    """The fixed part of the user message: the cell, selection, error, previous proposal, instruction."""
    if is_new_cell(ctx):
        return _new_cell_request(ctx)
    parts = [f"The cell:\n{_block(source)}"] if whole else [
        f"The cell, with the selected lines between `{SELECTION_START}` and `{SELECTION_END}`:\n"
        + _block(f"{source[:start]}{SELECTION_START}\n{source[start:end]}\n{SELECTION_END}{source[end:]}"),
        f"The selected lines (your answer replaces exactly these):\n{_block(source[start:end])}"]
    if ctx.error:
        error = cut_middle(strip_ansi(ctx.error).strip("\n"), MAX_TRACEBACK)
        parts.append(f"Running the cell raised this error:\n{FENCE}\n{error}\n{FENCE}")
    if ctx.cause is not None:
        parts.append(cause_section(ctx.cause))
    what = "cell" if whole else "selection"
    if ctx.previous is not None:
        parts.append(f"Your previous proposal for the {what}:\n{_block(ctx.previous)}")
        if ctx.history:
            parts.append("It followed these instructions:\n" + "\n".join(f"- {h}" for h in ctx.history))
        parts.append(f"Change your proposal as follows: {ctx.instruction.strip()}")
    else:
        parts.append(f"Instruction: {ctx.instruction.strip()}")
    parts.append(f"Answer with the whole rewritten {what} in one {FENCE}python block.")
    return "\n\n".join(parts)


def _new_cell_request(ctx: EditContext) -> str:
    """What a new cell should do (and, for a follow-up, the proposal it refines)."""
    if ctx.previous is None:
        return (f"Write the code of a new cell, placed after the cells above, that does this: "
                f"{ctx.instruction.strip()}\n\nAnswer with the new cell's code in one {FENCE}python block.")
    parts = [f"Your previous proposal for the new cell:\n{_block(ctx.previous)}"]
    if ctx.history:
        parts.append("It followed these instructions:\n" + "\n".join(f"- {h}" for h in ctx.history))
    parts += [f"Change your proposal as follows: {ctx.instruction.strip()}",
              f"Answer with the whole new cell in one {FENCE}python block."]
    return "\n\n".join(parts)


def cause_section(cause: ChangeCause) -> str:
    """What the prompt says of the change the user accepted into the cell: what was asked, and the cell
    before it (or that the change added the cell)."""
    asked = " ".join(cause.instruction.split()) or "(no instruction)"
    if not cause.before.strip():
        return f"The cell is new: the user asked “{asked}” and accepted this cell as the answer's change."
    before = cut_middle(cause.before.strip("\n"), MAX_BEFORE)
    return (f"The user just changed this cell, asking “{asked}”, and accepted the change. Before that change "
            f"the cell was:\n{_block(before)}")


def kernel_section(lines: Sequence[str], count_tokens: Callable[[str], int], budget: int) -> str:
    """The kernel's state section: whole lines, as many as fit `budget` tokens."""
    head = "Variables in the running kernel (live state):"
    shown: list[str] = []
    used = count_tokens(head)
    for line in lines:
        text = kernel_line(line)
        cost = count_tokens(text) + 1
        if used + cost > budget:
            break
        shown.append(text)
        used += cost
    return head + "\n" + "\n".join(shown) if shown else ""


def _block(text: str) -> str:
    return f"{FENCE}python\n{text}\n{FENCE}"
