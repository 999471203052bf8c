"""Token ids for one request: encode the context, heal the cut token, fit the model, apply the template."""

from __future__ import annotations

from dataclasses import dataclass

from ghostbook.completion.candidates import MAX_CANDIDATES, candidates, names_to_import
from ghostbook.completion.context import Context, namespace_lines
from ghostbook.completion.file_paths import choices, with_paths
from ghostbook.completion.filters import multi_line_possible
from ghostbook.completion.module_attributes import at_cursor
from ghostbook.decoding.attributes import Attributes
from ghostbook.decoding.copy_model import CopyModel
from ghostbook.decoding.plan import Around, Choices, DecodePlan
from ghostbook.decoding.tokens import heal, indentation_to_heal, should_heal
from ghostbook.models.backend import Backend
from ghostbook.models.templates import PREFIX, SUFFIX, Layout, TemplateError, build_prompt, fit, get_template, stop_ids


@dataclass(frozen=True)
class Prompt:
    ids: list[int]
    plan: DecodePlan  # max new tokens, stop ids, the healed bytes the output must start with, the search


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


def suffix_share(backend: Backend) -> float:
    """The share of the context's budget the code after the cursor may take: none where the template
    has no place for it (`plain`), less for PSM, where every keystroke re-evaluates it."""
    layout = layout_for(backend)
    try:
        if SUFFIX not in get_template(backend.info.family).layout(layout):
            return 0.0
    except TemplateError:
        pass
    return 0.25 if layout == "spm" else 0.125


def make_prompt(backend: Backend, ctx: Context, max_new: int, beam: int = 1, read_check: bool = True, *,
                layout: Layout | None = None, healing: bool = True, syntax: bool = True,
                multi_line: bool | None = None, search_ms: float = 0, copies: bool = True) -> Prompt:
    """The prompt for `ctx` (TemplateError if the vocabulary lacks the family's special tokens) and its
    decode plan: `beam` width for the first line (1: greedy), `read_check`/`syntax` rules for the beam's
    lines (`decoding.reading`, `decoding.syntax_fit`), `search_ms` the time each line's beam may take
    (0: no limit), `copies` whether candidate lines copied from the notebook compete with the beam's
    (`completion.candidates`, `decoding.copies`). Eval sets the rest: the FIM `layout` (default:
    the model's), `healing` off, `multi_line` (default: where the rest of the cursor's line allows it)."""
    template = get_template(backend.info.family)
    max_new = min(max_new, backend.info.n_ctx // 2)  # a small context keeps room for the prompt
    indentation = indentation_to_heal(ctx.prefix) if healing else ""
    if indentation:  # the prompt stops at the line's start; the output spells the indentation first
        prefix_ids, removed = backend.tokenize(ctx.prefix[: -len(indentation)]), indentation.encode()
    else:
        prefix_ids, removed = backend.tokenize(ctx.prefix), b""
        if healing and should_heal(ctx.prefix):
            prefix_ids, removed = heal(prefix_ids, backend.piece)
    mode = layout or layout_for(backend)
    specials = sum(part not in (PREFIX, SUFFIX) for part in template.layout(mode)) + bool(template.bos)
    # the context was counted piece by piece; if the joined text came out longer, cut the far ends
    suffix_ids = backend.tokenize(ctx.suffix) if SUFFIX in template.layout(mode) else []  # none in `plain`
    prefix_ids, suffix_ids = fit(prefix_ids, suffix_ids, backend.info.n_ctx - max_new - specials - 1)
    ids = build_prompt(template, prefix_ids, suffix_ids, backend.lookup, mode)
    if multi_line is None:  # line by line only where the suggestion may go past the cursor's line
        multi_line = multi_line_possible(ctx.cell_suffix.split("\n", 1)[0])
    around = Around(ctx.prefix, ctx.suffix, ctx.cell_prefix, ctx.cell_suffix, known_names(ctx), ctx.attributes,
                    notes=namespace_lines(ctx.prefix), above=around_line(ctx)[1],
                    files=choices(ctx.cell_prefix.rsplit("\n", 1)[-1], ctx.files))
    plan = DecodePlan.around(around, removed, max_new,
                             stop_ids(template, backend.lookup), Choices(beam, read_check, syntax, multi_line,
                                                                          search_ms),
                             copy_ids(backend, ctx, removed) if copies and beam > 1 else (),
                             CopyModel(prefix_ids, suffix_ids) if copies and beam > 1 else None)
    return Prompt(ids, plan)


def known_names(ctx: Context) -> tuple[str, ...] | None:
    """Where the cursor takes a name from a module the table knows (`plt.`, `from sklearn.metrics
    import `): the names it may take (`completion.module_attributes`; for an import also the names the
    notebook uses but never binds); else None."""
    head, before, after = around_line(ctx)
    module = at_cursor(head, before + after)
    if module is None:
        return None
    return module.names + tuple(names_to_import(before, after)) if module.role == "import" else module.names


def around_line(ctx: Context) -> tuple[str, str, str]:
    """The cursor's line up to the cursor, the notebook's text above that line and below it."""
    head = ctx.cell_prefix.rsplit("\n", 1)[-1]
    above = ctx.cell_prefix[: len(ctx.cell_prefix) - len(head)]
    below = ctx.cell_suffix.partition("\n")[2]
    before = (ctx.above + above) if ctx.above or ctx.below else ctx.prefix[: len(ctx.prefix) - len(head)]
    after = (below + ctx.below) if ctx.above or ctx.below else ctx.suffix.partition("\n")[2]
    return head, before, after


def candidate_lines(ctx: Context) -> list[str]:
    """The rests of the cursor's line copied from the notebook (`completion.candidates`), best first;
    after a kernel object's `X.`, only those that take an attribute X has; at a reading call's path, the
    kernel's files first (`completion.file_paths`)."""
    head, before, after = around_line(ctx)
    found = candidates(head, before, after, ctx.cell_suffix.partition("\n")[0], ctx.attributes)
    if (files := choices(head, ctx.files)) is not None:
        found = with_paths(found, head, files, before, ctx.cell_suffix.partition("\n")[0])[:MAX_CANDIDATES]
    rule = Attributes.at(head, "", None, ctx.attributes) if ctx.attributes is not None else None
    return found if rule is None else [line for line in found if rule.fits(line.encode())]


def copy_ids(backend: Backend, ctx: Context, healed: bytes) -> tuple[tuple[int, ...], ...]:
    """The candidates copied from the notebook (`completion.candidates`) as token ids, the `healed`
    bytes (which end the prefix) spelled first."""
    lead = healed.decode("utf-8", "replace")
    return tuple(tuple(backend.tokenize(lead + text)) for text in candidate_lines(ctx))
