"""Token ids for one request: encode the context, heal the cut token, fit the model, apply the template."""

from __future__ import annotations

from dataclasses import dataclass

from ghostbook.completion.context import Context
from ghostbook.completion.filters import multi_line_possible
from ghostbook.completion.further_lines import FurtherLines
from ghostbook.completion.healing import heal, indentation_to_heal, should_heal
from ghostbook.completion.indentation import indent_rule
from ghostbook.completion.neighbours import repeated_lines
from ghostbook.completion.reading import ReadCheck
from ghostbook.completion.syntax_fit import SyntaxFit
from ghostbook.completion.templates import Layout, TemplateError, build_prompt, get_template, stop_ids
from ghostbook.models.backend import Backend, GenParams

SPECIAL_MARGIN = 8  # room for the template's special tokens


@dataclass(frozen=True)
class Prompt:
    ids: list[int]
    params: GenParams  # max new tokens, stop ids, and the healed bytes the output must start with


def layout_for(backend: Backend) -> Layout:
    """The catalog's layout for this model (models/default/fim.json), else its family's default."""
    layout = backend.info.extra.get("layout")
    if layout == "psm":
        return "psm"
    if layout == "spm":
        return "spm"
    try:
        return get_template(backend.info.family).default_layout
    except TemplateError:
        return "psm"


def make_prompt(backend: Backend, ctx: Context, max_new: int, beam: int = 1, read_check: bool = True) -> Prompt:
    """The prompt for `ctx` (TemplateError if the vocabulary lacks the family's special tokens);
    `beam`: the beam width for the first line (1: greedy); `read_check`: rank the beam's lines by reading
    them in the notebook's text (`completion.reading`)."""
    template = get_template(backend.info.family)
    indentation = indentation_to_heal(ctx.prefix)
    if indentation:  # the prompt stops at the line's start; the output spells the indentation first
        prefix_ids, removed = backend.tokenize(ctx.prefix[: -len(indentation)]), indentation.encode()
    else:
        prefix_ids, removed = backend.tokenize(ctx.prefix), b""
        if should_heal(ctx.prefix):
            prefix_ids, removed = heal(prefix_ids, backend.piece)
    suffix_ids = backend.tokenize(ctx.suffix)
    # the budget was counted piece by piece; if the joined text came out longer, cut the far ends
    excess = len(prefix_ids) + len(suffix_ids) + SPECIAL_MARGIN + max_new - backend.info.n_ctx
    if excess > 0:
        cut = min(excess, len(suffix_ids))
        suffix_ids = suffix_ids[: len(suffix_ids) - cut]
        prefix_ids = prefix_ids[excess - cut :]
    ids = build_prompt(template, prefix_ids, suffix_ids, backend.lookup, layout_for(backend))
    blank_line = not ctx.prefix.rsplit("\n", 1)[-1].strip()
    avoid = repeated_lines(ctx.prefix, ctx.suffix) if beam > 1 else frozenset()
    indent = indent_rule(ctx.cell_prefix) if beam > 1 else None  # the cell is whole statements; the prefix may not be
    syntax = SyntaxFit(ctx.cell_prefix, ctx.cell_suffix) if beam > 1 else None
    reading = ReadCheck.around(ctx.prefix, ctx.suffix, removed) if beam > 1 and read_check else None
    # line by line only where the suggestion may go past the cursor's line (else `filters` keeps one line)
    multi = multi_line_possible(ctx.cell_suffix.split("\n", 1)[0])
    lines = (FurtherLines.around(ctx.prefix, ctx.suffix, ctx.cell_prefix, ctx.cell_suffix, removed,
                                 read_check=read_check) if beam > 1 and multi else None)
    return Prompt(ids, GenParams(max_new, stop_ids(template, backend.lookup), removed, beam, blank_line, avoid,
                                 indent, syntax, reading, lines))
