"""The chat messages that ask the edit model about the notebook.

A system message says what the model is for and the form of its answer (Markdown, code in ```python
blocks the user can insert as cells). Earlier turns follow as user/assistant messages (their questions and
answers only). The last user message holds, in this order: the notebook's cells (the completion's
`ContextBuilder` fits them to the budget, nearest the selection first), the kernel's live state (the
namespace summary lines, as Edit with AI shows them), the selected cells with their errors' tracebacks
(ANSI colours stripped), and the question last.

The question and the selected cells always go in; the earlier turns (newest first, whole turns: the
oldest give way), the kernel's state and then the other cells share what is left of the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ghostbook.completion.context import CellText, as_code
from ghostbook.editing.errors_text import MAX_TRACEBACK, cut_middle, strip_ansi
from ghostbook.editing.prompt import cells_around, kernel_section

FENCE = "```"
SYSTEM = (
    "You answer questions about a Jupyter notebook (Python, with IPython's magics): its code, its errors "
    "and the data in its running kernel. Answer in Markdown, briefly and to the point. Put code in ```python "
    "blocks: the user can insert a block as a new cell below the selected one, so write each block as a "
    "cell that runs after the notebook's cells and uses their names. Each cell starts with a `# cell <id>` line. "
    "To change cells, write one line naming each change, then its code: `Cell <id>:` and the cell's whole new "
    "code in a ```python block; `New cell after <id>:` and the new cell's code; `Delete cell <id>` alone. The "
    "user reviews each change in its cell.")
# the earlier turns get at most this share of the room left by the question and the selected cells
HISTORY_SHARE = 0.4
# the kernel's state gets at most this share of the room left after the earlier turns
KERNEL_SHARE = 0.25
# the cells below the selection get at most this share of the room left for the cells
BELOW_SHARE = 0.4
MAX_CELL = 6000  # characters of a selected cell the prompt shows (a longer one keeps its head and tail)

Messages = list[dict[str, str]]


@dataclass
class AskContext:
    """What a question knows: the notebook's `cells` (and their `ids`, shown to the model as each cell's
    first line, for the changes it proposes: `asking.plan`), the indices of the `selected` ones and their
    `errors` (index → the traceback as plain text), the kernel's `namespace_lines`
    (`completion.namespace_provider`) and the earlier turns (`history`: (question, answer), oldest first)."""

    cells: list[CellText]
    question: str
    ids: list[str] = field(default_factory=list)
    selected: list[int] = field(default_factory=list)
    errors: dict[int, str] = field(default_factory=dict)
    namespace_lines: list[str] = field(default_factory=list)
    history: list[tuple[str, str]] = field(default_factory=list)


def build_messages(ctx: AskContext, count_tokens: Callable[[str], int], budget: int) -> Messages:
    """The system message, the earlier turns that fit and the question's message, within `budget` tokens
    (counted by `count_tokens`) but for the question and the selected cells, which always go in."""
    selected = sorted(i for i in set(ctx.selected) if 0 <= i < len(ctx.cells))
    fixed = _request(ctx, selected)
    room = max(budget - count_tokens(SYSTEM) - count_tokens(fixed), 0)
    history = earlier_turns(ctx.history, count_tokens, int(room * HISTORY_SHARE))
    room -= sum(count_tokens(message["content"]) for message in history)
    kernel = kernel_section(ctx.namespace_lines, count_tokens, int(max(room, 0) * KERNEL_SHARE))
    room -= count_tokens(kernel) if kernel else 0
    parts = [*_cells(_marked_cells(ctx), selected, count_tokens, room), *([kernel] if kernel else []), fixed]
    return [{"role": "system", "content": SYSTEM}, *history, {"role": "user", "content": "\n\n".join(parts)}]


def earlier_turns(history: Sequence[tuple[str, str]], count_tokens: Callable[[str], int], budget: int) -> Messages:
    """The newest whole turns that fit `budget` tokens, as user/assistant messages, oldest first."""
    kept: Messages = []
    used = 0
    for question, answer in reversed(history):
        cost = count_tokens(question) + count_tokens(answer)
        if used + cost > budget:
            break
        kept[:0] = [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
        used += cost
    return kept


def _cells(cells: Sequence[CellText], selected: Sequence[int], count_tokens: Callable[[str], int],
           room: int) -> list[str]:
    """The notebook's other cells, within `room` tokens: around the selection (it stands for one cell),
    or all of them, the last ones first, when nothing is selected."""
    if not selected:
        text, _ = cells_around([*cells, CellText("code", "")], len(cells), count_tokens, room, below_share=0.0)
        return [f"The notebook's cells:\n{_block(text)}"] if text else []
    first, last = selected[0], selected[-1]
    rest = [*cells[:first], CellText("code", ""), *cells[last + 1 :]]
    above, below = cells_around(rest, first, count_tokens, room, below_share=BELOW_SHARE)
    parts = []
    if above:
        parts.append(f"The notebook's cells above the selected cell:\n{_block(above)}")
    if below:
        parts.append(f"The notebook's cells below the selected cell:\n{_block(below)}")
    return parts


def _request(ctx: AskContext, selected: Sequence[int]) -> str:
    """The fixed part of the question's message: the selected cells, their errors and the question."""
    parts = []
    for index in selected:
        cell = ctx.cells[index]
        kind = "markdown cell" if cell.cell_type == "markdown" else "cell"
        lang = "markdown" if cell.cell_type == "markdown" else "python"
        where = f"{index + 1} of {len(ctx.cells)}"
        source = cut_middle(cell.source, MAX_CELL)
        if _has_ids(ctx):
            if cell.cell_type == "code":
                source = f"# cell {ctx.ids[index]}\n{source}"
            else:
                where += f", cell {ctx.ids[index]}"
        parts.append(f"The selected {kind} ({where}):\n{_block(source, lang)}")
        error = ctx.errors.get(index)
        if error:
            text = cut_middle(strip_ansi(error).strip("\n"), MAX_TRACEBACK)
            parts.append(f"Running it raised this error:\n{FENCE}\n{text}\n{FENCE}")
    parts.append(f"Question: {ctx.question.strip()}")
    return "\n\n".join(parts)


def _has_ids(ctx: AskContext) -> bool:
    return len(ctx.ids) == len(ctx.cells)


def _marked_cells(ctx: AskContext) -> list[CellText]:
    """The cells as the model sees them: each opens with its id (when known)."""
    if not _has_ids(ctx):
        return ctx.cells
    return [_marked(cell, cell_id) for cell, cell_id in zip(ctx.cells, ctx.ids, strict=True)]


def _marked(cell: CellText, cell_id: str) -> CellText:
    """The cell as Python text that opens with its `# cell <id>` line (a markdown cell as comments)."""
    if cell.cell_type == "raw":
        return cell
    return CellText("code", f"# cell {cell_id}\n{as_code(cell)}")


def _block(text: str, lang: str = "python") -> str:
    return f"{FENCE}{lang}\n{text}\n{FENCE}"
