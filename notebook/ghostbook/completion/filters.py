"""Post-processing of a raw model middle, one small rule per function (after Tabby and Continue).

Every filter is `(text, ctx) -> text`; an empty result drops the suggestion. `STOPPERS` cut the text
where it should end (and so let generation stop early); `CLEANERS` tidy it; `FINAL` run once the
text is complete. `run` applies them in order to the whole text so far, so it works while streaming.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ghostbook.completion.scan import PythonScan
from ghostbook.decoding.empty_calls import takes_arguments
from ghostbook.decoding.repetition import cut_loop, open_call
from ghostbook.decoding.suggestion import SuggestionRules

OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {v: k for k, v in OPENERS.items()}
TOP_LEVEL = re.compile(r"\n(?=(?:async def |def |class |import |from |@|if __name__))")
BLANK_LINE = re.compile(r"\n[ \t]*\n")
MARKERS = ("\n# %%", "<|endoftext|>", "<fim_", "<fim-", "<|fim", "<file_sep>", "<|file_sep|>", "<EOT>")


@dataclass(frozen=True)
class FilterContext:
    """The current cell around the cursor, and whether generation has finished."""

    prefix: str
    suffix: str
    final: bool = True
    truncated: bool = False  # generation ended at the token limit, not at a stop
    above: str = ""  # the notebook's text above the cursor's line (the rules that read the cells above)

    @property
    def line_before(self) -> str:
        return self.prefix[self.prefix.rfind("\n") + 1 :]

    @property
    def line_after(self) -> str:
        return self.suffix.split("\n", 1)[0]


Filter = Callable[[str, FilterContext], str]


# ---- stoppers -----------------------------------------------------------------------------------


def stop_at_markers(text: str, ctx: FilterContext) -> str:
    """Cut at a cell marker or the text of a special token the model spelled out."""
    if "<" not in text and "# %%" not in text:
        return text
    cut = min((i for i in (text.find(m) for m in MARKERS) if i >= 0), default=-1)
    return text if cut < 0 else text[:cut]


def stop_at_blank_line(text: str, ctx: FilterContext) -> str:
    """Cut at the first blank line: a suggestion is one block."""
    match = BLANK_LINE.search(text)
    return text if match is None else text[: match.start()]


def stop_at_top_level(text: str, ctx: FilterContext) -> str:
    """Cut before a later line that starts a new top-level def/class/import/from/@/if __name__."""
    match = TOP_LEVEL.search(text)
    return text if match is None else text[: match.start()]


def single_line_rule(text: str, ctx: FilterContext) -> str:
    """Multi-line only when the rest of the cursor's line is empty or closing brackets/quotes
    (`multi_line_possible`), and the first line does not already end with those closers (then the line
    is complete)."""
    first = text.split("\n", 1)[0]
    after = ctx.line_after.strip()
    if multi_line_possible(after) and not (after and first.rstrip().endswith(after)):
        return text
    return first


def multi_line_possible(line_after: str) -> bool:
    """Whether a suggestion may go past the cursor's line, given the rest of that line."""
    return all(c in ")]}\"' \t:;," for c in line_after)


# ---- cleaners -----------------------------------------------------------------------------------


def join_broken_call(text: str, ctx: FilterContext) -> str:
    """A call that takes arguments (`decoding.empty_calls.takes_arguments`) whose bracket ends the first
    line gets its arguments on that line: notebooks break the line there in 3.7% of such calls, the
    small model far more often (`print(` / `    my_df)`), and typed through to the bracket, such a ghost
    text's rest would start on the next line. The lines up to the call's closing bracket are joined
    where that makes one line of at most `JOINED_CHARS`; otherwise the first break alone goes."""
    lines = text.split("\n")
    if len(lines) < 2 or not _joinable(lines[1]):
        return text
    call = open_call(ctx.line_before + lines[0])
    if call is None or call[1].strip() or not takes_arguments(call[0]):
        return text
    depth = len(_unclosed(ctx.prefix + lines[0]))
    joined, used = lines[0].rstrip(), 1
    while used < len(lines) and _joinable(lines[used]):
        piece = lines[used].strip()
        joined += "" if (ctx.line_before + joined).endswith(tuple(OPENERS)) or piece.startswith(tuple(CLOSERS)) else " "
        joined += piece
        used += 1
        if len(_unclosed(ctx.prefix + joined)) < depth:  # the call closed
            if len(ctx.line_before + joined) <= JOINED_CHARS:
                return "\n".join([joined, *lines[used:]])
            break
    return "\n".join([lines[0].rstrip() + lines[1].strip(), *lines[2:]])


# the longest line `join_broken_call` makes of a call's lines
JOINED_CHARS = 100


def _joinable(line: str) -> bool:
    """Whether a line inside a call's brackets can go on the line before: code, no comment, no
    triple-quoted string."""
    body = line.strip()
    return bool(body) and "#" not in body and '"""' not in body and "'''" not in body


def trim_suffix_overlap(text: str, ctx: FilterContext) -> str:
    """Drop the end of the text that repeats the start of the suffix: whole suffix lines, or closers
    the text does not need for its own brackets (`figsize=(10, 8)` before an auto-closed `)` keeps its
    `)`: the suffix's closes the call the line opened)."""
    after = ctx.suffix.lstrip(" \t")
    for k in range(min(len(text), len(after)), 0, -1):
        head = after[:k]
        if not text.endswith(head) or not head.strip():
            continue
        whole_lines = k == len(after) or after[k] == "\n"
        if all(c in ")]}\"'" for c in head.strip()):  # closers: only those the text has no use for
            brackets = sum(c in CLOSERS for c in head)
            if brackets and len(_unclosed(ctx.prefix + text)) >= brackets:
                continue
            return text[: len(text) - k].rstrip(" \t") if whole_lines else text[: len(text) - k]
        if whole_lines:
            return text[: len(text) - k].rstrip(" \t")
    return text


def _unclosed(code: str) -> list[str]:
    """Open brackets left unclosed by `code` (strings and comments skipped)."""
    return _unclosed_in(PythonScan(code))


def _unclosed_in(scan: PythonScan) -> list[str]:
    stack: list[str] = []
    for c in scan:
        if c in OPENERS:
            stack.append(c)
        elif c in CLOSERS and stack and stack[-1] == CLOSERS[c]:
            stack.pop()
    return stack


def balance_closers(text: str, ctx: FilterContext) -> str:
    """Drop closing brackets at the end of the text that the auto-closed ones after the cursor supply."""
    provided = ""
    for c in ctx.line_after:
        if c not in CLOSERS:
            break
        provided += c
    while provided and text and text[-1] in CLOSERS:
        opened = len(_unclosed(ctx.prefix + text))
        if opened >= len(provided):
            break
        text = text[:-1]
    if ctx.line_after.startswith(("'", '"')) and text.endswith(ctx.line_after[0]):
        line = ctx.line_before + text
        if line.count(ctx.line_after[0]) % 2 == 0:
            text = text[:-1]
    return text


def normalise_indent(text: str, ctx: FilterContext) -> str:
    """No doubled indent on the first line after an indent; tabs as the cell's four spaces."""
    if ctx.line_before and not ctx.line_before.strip():
        text = text.lstrip(" \t")
    if "\t" not in ctx.prefix + ctx.suffix and "\t" in text:
        text = "\n".join(_detab(line) for line in text.split("\n"))
    return text


def _detab(line: str) -> str:
    body = line.lstrip("\t")
    return "    " * (len(line) - len(body)) + body


def drop_repetitive(text: str, ctx: FilterContext) -> str:
    """Cut output that loops (`decoding.repetition.cut_loop`, the rule the search's repetition rules
    live with); while streaming only its end is checked."""
    return cut_loop(text, ctx.final)


def drop_blank(text: str, ctx: FilterContext) -> str:
    """Nothing but whitespace is no suggestion."""
    return text if text.strip() else ""


# ---- final --------------------------------------------------------------------------------------


def drop_truncated_line(text: str, ctx: FilterContext) -> str:
    """At the token limit, a multi-line suggestion keeps only its complete lines."""
    if ctx.truncated and "\n" in text.lstrip("\n"):
        return text[: text.rfind("\n")]
    return text


def drop_bodiless_opener(text: str, ctx: FilterContext) -> str:
    """A suggestion of several lines does not end on a line that opens a block (`else:`) with no body
    after it, in the suggestion or below the cursor: accepted, it would leave the cell unparseable
    (the search stops where the body's next line would repeat one above). Such last lines go."""
    below = next((line for line in ctx.suffix.split("\n")[1:] if line.strip()), "")
    return _without_last(text, lambda line: _opens_block(line) and _indent(below) <= _indent(line), keep=1)


def drop_bare_openers(text: str, ctx: FilterContext) -> str:
    """A suggestion does not end on a line of opening brackets only (`{`, then `    {`: what a new cell
    got from the small model): accepted, it leaves brackets to fill with nothing said. Such last lines
    go; on a new line, a suggestion of nothing else is none (mid-line, `(` after a name begins a call)."""
    return _without_last(text, lambda line: bool(line.strip()) and not line.strip().strip("([{"),
                         keep=1 if ctx.line_before.strip() else 0)


def _without_last(text: str, drops: Callable[[str], bool], keep: int) -> str:
    """`text` without its last lines that `drops`, keeping at least `keep` lines (`text` itself if none go)."""
    lines = text.rstrip().split("\n")
    count = len(lines)
    while len(lines) > keep and drops(lines[-1]):
        lines.pop()
    return "\n".join(lines) if len(lines) < count else text


def _opens_block(line: str) -> bool:
    code = line.split("#", 1)[0].rstrip() if "'" not in line and '"' not in line else line.rstrip()
    return code.endswith(":") and not code.lstrip().startswith(("lambda", "#"))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip()) if line.strip() else -1


def strip_trailing_whitespace(text: str, ctx: FilterContext) -> str:
    return text.rstrip()


def drop_garbage(text: str, ctx: FilterContext) -> str:
    """No garbage (`decoding.suggestion.SuggestionRules`, the rules the notebook benchmark counts with
    and the search keeps): each rule cuts the text (fewer lines, less leading space, or nothing) until
    none cuts more."""
    return _rules(ctx.prefix, ctx.suffix, ctx.above).enforce(text)


def hold_garbage(text: str, ctx: FilterContext) -> str:
    """While streaming, what `drop_garbage` can already tell (`SuggestionRules.enforce_streaming`): no
    garbage is shown even for a moment."""
    return text if ctx.final else _rules(ctx.prefix, ctx.suffix, ctx.above).enforce_streaming(text)


@functools.lru_cache(maxsize=8)
def _rules(prefix: str, suffix: str, above: str) -> SuggestionRules:
    """The suggestion rules around a cursor, made once for all the filter runs of one suggestion."""
    return SuggestionRules.around(prefix, suffix, above)


def spoiled(text: str, ctx: FilterContext) -> bool:
    """Whether `text`'s complete lines already doom the suggestion (`SuggestionRules.spoiled`): the
    model writing on after a copied first line is time lost."""
    done = text[: text.rfind("\n")] if "\n" in text else ""
    return _rules(ctx.prefix, ctx.suffix, ctx.above).spoiled(done)


def ends_statement(line: str, ctx: FilterContext) -> bool:
    """Whether the cell's text up to the cursor, then `line`, ends a statement: no bracket or string
    left open, no block opened, no line continued (the lines after it start new statements)."""
    scan = PythonScan(ctx.prefix + line)
    if _unclosed_in(scan) or scan.end == "string":
        return False
    code = line.split("#", 1)[0].rstrip() if scan.end == "comment" else line.rstrip()
    return not code.endswith((":", "\\"))


# drop_repetitive is a stopper: once the output loops, generating more is waste
STOPPERS: tuple[Filter, ...] = (stop_at_markers, stop_at_blank_line, stop_at_top_level, single_line_rule,
                                drop_repetitive)
CLEANERS: tuple[Filter, ...] = (join_broken_call, trim_suffix_overlap, balance_closers, normalise_indent, hold_garbage,
                                drop_blank)
# drop_bodiless_opener after drop_garbage: a line it cuts (a repeated one) may be a block's only body
FINAL: tuple[Filter, ...] = (drop_truncated_line, strip_trailing_whitespace, drop_garbage, drop_bodiless_opener,
                              drop_bare_openers, drop_blank)
FILTERS: dict[str, Filter] = {f.__name__: f for f in (*STOPPERS, *CLEANERS, *FINAL)}


def stops(text: str, ctx: FilterContext) -> tuple[str, bool]:
    """`text` cut by the stoppers, and whether one cut it (generation can stop)."""
    stopped = False
    for f in STOPPERS:
        cut = f(text, ctx)
        stopped = stopped or cut != text
        text = cut
    return text, stopped


def run(text: str, ctx: FilterContext) -> tuple[str, bool]:
    """The filtered text and whether a stopper cut it (generation can stop)."""
    text, stopped = stops(text, ctx)
    for f in CLEANERS + (FINAL if ctx.final or stopped else ()):
        text = f(text, ctx)
    return text, stopped
