"""The decode plan: what one request asks of the search, made the same way for the editor
(`completion.prompt`) and eval. It is the `models.backend.Search` a backend runs after the prompt."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ghostbook.decoding import copies as copied
from ghostbook.decoding.arguments import KeywordNext
from ghostbook.decoding.attributes import Attributes
from ghostbook.decoding.beam import LINE_BUDGET, Clock, LineSearch, beam_line, goes_on
from ghostbook.decoding.copy_model import CopyModel, Mixed
from ghostbook.decoding.empty_calls import EmptyCall, EmptyCalls
from ghostbook.decoding.fragments import Fragments, NoImport, below_code
from ghostbook.decoding.indentation import AllStarts, IndentRule, StartRule, start_rule
from ghostbook.decoding.lines import FurtherLines, LineFit, LineRules, both
from ghostbook.decoding.paths import Paths
from ghostbook.decoding.reading import ReadCheck
from ghostbook.decoding.repetition import (
    EchoStart,
    OtherNamesValue,
    avoid_first,
    imports_above,
    nearby_lines,
    other_names_values,
    repeated_lines,
    repeated_values,
)
from ghostbook.decoding.search import Run, beam_lines, greedy, whole_line
from ghostbook.decoding.syntax_fit import SyntaxFit
from ghostbook.decoding.tokens import index_of
from ghostbook.models.backend import Emit, Evaluation, Vocab

# where the cursor's line ends so, the user asks for what comes next (an argument, a value, a name)
ASKING = ("(", "[", ",", "=", ".")


@dataclass
class Trace:
    """Where one decoding's first line came from, for the completion's confidence (`completion.confidence`):
    `origin` "greedy" (beam 1), "beam" (the beam's line), "copy" (a candidate copied from the notebook or
    the line memory won; `copy_rank` its place in the candidates' order) or "cut" (the beam ran out of
    time with the line open and greedy finished it). Set by the worker before the line's tokens go out."""

    origin: str = ""
    copy_rank: int = -1
    copy: copied.Choice | None = None  # what a winning copy was chosen on


@dataclass(frozen=True)
class Around:
    """The text around the cursor: `prefix`/`suffix` as the prompt sees them, `cell_prefix`/
    `cell_suffix` the cursor's cell (which the syntax and indentation rules read); `attributes`, where
    the cursor follows `module.`, the module's attributes as far as they are known; `has`, where it
    follows a kernel object, all that object has (`decoding.attributes`); `notes`, lines of the prefix
    that describe rather than code (the kernel's namespace summary, `#   df: DataFrame ...`), which
    a new line never copies."""

    prefix: str
    suffix: str
    cell_prefix: str
    cell_suffix: str
    attributes: tuple[str, ...] | None = None
    has: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()
    above: str = ""  # the notebook's text above the cursor's line, whole (the prompt's prefix may be cut)
    files: tuple[str, ...] | None = None  # at a reading call's path, the files there are (`decoding.paths`)


@dataclass(frozen=True)
class Choices:
    """What settings (and eval's flags) choose: `beam` width for the first line (1: greedy), the
    `read_check` and `syntax` rules, and whether the suggestion may go past the cursor's line
    (`multi_line`: then its further lines are found line by line), and `search_ms`, the time the beam
    may take (0: no limit; then the best line so far wins, or greedy writes the rest of it): the first
    line's must be done this long after the plan was made (the prompt's evaluation included, so a
    cold prompt leaves it little), each further line's within as long of its own."""

    beam: int = 1
    read_check: bool = True
    syntax: bool = True
    multi_line: bool = True
    search_ms: float = 0


@dataclass(frozen=True)
class DecodePlan:
    """`max_new_tokens`, the `stop_ids` that end the middle, `heal` (bytes the output must start with),
    `beam` > 1: the first line is the likeliest a beam that wide finds under `rules`, then, with `lines`,
    each further line too (else greedy goes on); `blank_line`: the cursor's line is still blank, so an
    empty first line says nothing; `asks`: the cursor's line ends where it asks for more (after `(`,
    `[`, `,`, `=` or `.`), where an empty first line says nothing either. `search_ms`: the time the
    beam may take (`Choices`), counted from `made` (`time.perf_counter()`) for the first line.
    `copies`: candidate first lines copied from the notebook (token ids, the healed bytes first),
    ranked with the beam's line (`decoding.copies`); `copy_model`: the prompt's tokens as a second
    model the beam's first line reads too (`decoding.copy_model`). `finish`: the rules greedy keeps
    where it finishes a line the beam ran out of time on: the beam's start rule but for
    `arguments.KeywordNext` (`indent`), and of its line rule only the words (`syntax`:
    `decoding.fragments` on a new line, `decoding.attributes` after `module.`; the syntax rule would
    hold a line where the cell is broken elsewhere). `first_not`: tokens greedy (beam 1) may not start
    with (a search again: what the searches that found nothing started with). `cell`: the cursor's
    cell; a beam's whole first line that breaks it (`SyntaxFit.breaks`: a new cell's `)`) ends the
    decoding, since the final filters drop it whatever follows."""

    max_new_tokens: int = 64
    stop_ids: frozenset[int] = frozenset()
    heal: bytes = b""
    beam: int = 1
    blank_line: bool = False
    rules: LineRules = field(default_factory=LineRules)
    lines: FurtherLines | None = None
    search_ms: float = 0
    made: float = field(default_factory=time.perf_counter, compare=False)
    copies: tuple[tuple[int, ...], ...] = ()
    copy_model: CopyModel | None = field(default=None, compare=False)
    asks: bool = False
    finish: LineRules = field(default_factory=LineRules)
    trace: Trace = field(default_factory=Trace, compare=False)
    first_not: frozenset[int] = frozenset()
    cell: SyntaxFit | None = field(default=None, compare=False)

    @classmethod
    def around(cls, text: Around, heal: bytes, max_new: int, stop_ids: frozenset[int],
               choices: Choices, copies: tuple[tuple[int, ...], ...] = (),
               copy_model: CopyModel | None = None) -> DecodePlan:
        """The plan for the cursor in `text`, with `heal` (the prompt's removed bytes, which end the
        prefix) to be spelled first."""
        blank_line = not text.prefix.rsplit("\n", 1)[-1].strip()
        start = start_rule(text.cell_prefix)  # the cell is whole statements; the prefix may not be
        if choices.beam <= 1:
            # greedy keeps the line-start rule in a line's indentation; mid-line, steering it off a
            # leading space sends it elsewhere (notebook test split, beam 1: exact 1 -> 0 of 528), so the
            # final filter (`LeadingSpace`) takes the extra space off instead; on a blank line it does
            # not start with a newline (an empty first line says nothing there, as for the beam)
            indent: StartRule | None = None if start is None or start.mid_line else start
            if isinstance(indent, IndentRule) and blank_line:
                indent = dataclasses.replace(indent, newline=False)
            if blank_line and below_code(text.cell_prefix):  # nor an import right below a statement
                indent = _with_no_import(indent, text)
            return cls(max_new, stop_ids, heal, 1, blank_line, LineRules(indent=indent))
        near = nearby_lines(text.cell_prefix, text.cell_suffix)
        head = text.cell_prefix.rsplit("\n", 1)[-1]
        asks = head.rstrip().endswith(ASKING)
        if asks and start is not None:  # nor may greedy, where the beam runs out of time, start with a newline
            start = dataclasses.replace(start, newline=False)
        fit: LineFit | None = SyntaxFit(text.cell_prefix, text.cell_suffix) if choices.syntax else None
        fit = both(fit, EmptyCalls(head))  # no `print()`: notebooks print something
        begins: StartRule | None = start
        words: LineFit | None = None  # what the line's words must be, which greedy keeps too
        if blank_line:  # a new line: a lone name the notebook never mentions (`s`) or `#` says nothing
            words = Fragments(text.prefix + text.suffix, shown=_shows_a_name(start, head, text.cell_suffix))
            fit = both(fit, words)
            if not head and (values := OtherNamesValue.above(text.above)) is not None:
                fit = both(fit, values)  # no `s = ` + another name's value
            if below_code(text.cell_prefix):  # right below a statement no import begins
                begins = _with_no_import(begins, text)
        elif (attributes := Attributes.at(head, text.prefix + text.suffix, text.attributes, text.has)) is not None:
            words = attributes
            fit = both(fit, attributes)  # after `X.` an attribute, not one of the notebook's variables
            begins = attributes if start is None else AllStarts([start, attributes])
        if not blank_line and (paths := Paths.around(head, text.files, text.above)) is not None:
            fit = both(fit, paths)  # a file's path names a file there is
            begins = paths if begins is None else AllStarts([begins, paths])
        if not blank_line and (echo := EchoStart.at(head)) is not None:  # not the call the cursor is in again
            begins = echo if begins is None else AllStarts([begins, echo])
        if not blank_line and (empty := EmptyCall.at(head)) is not None:  # `print(` is not closed at once
            begins = empty if begins is None else AllStarts([begins, empty])
        # after `title="x", ` only `name=` arguments, in the beam's search: greedy, finishing a line the
        # beam ran out of time on, bent names into keywords no call takes (`plt_predict_in_test=False`)
        greedy_begins = begins
        if (keywords := KeywordNext.at(text.cell_prefix, text.prefix + text.suffix)) is not None:
            begins = keywords if begins is None else AllStarts([begins, keywords])
        notes = frozenset(note.strip().encode() for note in text.notes) if blank_line else frozenset()
        rules = LineRules(
            repeated_lines(text.prefix, text.suffix) | avoid_first(head, near + imports_above(text.prefix))
            | repeated_values(head, text.cell_prefix) | other_names_values(head, text.above) | notes,
            begins,
            fit,
            ReadCheck.around(text.prefix, text.suffix, heal) if choices.read_check else None)
        # each further line is a new line: no name the notebook never mentions (`df` then `f`), no `x = x`
        lines = (FurtherLines.around(text.prefix, text.suffix, text.cell_prefix, text.cell_suffix, heal,
                                     choices.syntax, choices.read_check, Fragments(text.prefix + text.suffix))
                 if choices.multi_line else None)
        finish = LineRules(indent=greedy_begins, syntax=words)
        return cls(max_new, stop_ids, heal, choices.beam, blank_line, rules, lines, choices.search_ms,
                   copies=copies, copy_model=copy_model, asks=asks, finish=finish,
                   cell=SyntaxFit(text.cell_prefix, text.cell_suffix) if choices.syntax else None)

    def run(self, model: Evaluation, vocab: Vocab, cancelled: Callable[[], bool], emit: Emit) -> None:
        """Decode after the prompt `model` evaluated (`models.backend.Search`)."""
        index = index_of(vocab)
        if self.copy_model is not None:  # the first line's search reads the notebook too
            model = Mixed(model, self.copy_model, index.breaks)
        decode(Run(model, index, vocab.special | self.stop_ids, cancelled, emit), self)


def _with_no_import(rule: StartRule | None, text: Around) -> StartRule:
    """`rule` and no import begun (`decoding.fragments.NoImport`), on a blank line: nor an empty line
    (greedy, finishing a line the beam ran out of time on, would end it at once where the model's
    likeliest starts are imports; the beam never offers an empty line there)."""
    if isinstance(rule, IndentRule):
        rule = dataclasses.replace(rule, newline=False)
    no_import = NoImport(text.prefix + text.suffix)
    return no_import if rule is None else AllStarts([rule, no_import])


def _shows_a_name(start: StartRule | None, head: str, cell_suffix: str) -> bool:
    """Whether a lone name written on the cursor's new line (indented `head`) would show its value: on
    the cell's last code line at the top level, or (no start rule: in brackets) as it may be an
    argument; not above more of the cell's code nor in a block."""
    if start is None:
        return True
    below = cell_suffix.partition("\n")[2]
    return not head and not any(ln.strip() and not ln.lstrip().startswith("#") for ln in below.split("\n"))


def decode(run: Run, plan: DecodePlan) -> None:
    """With `plan.beam` > 1 the first line from a beam (and with `plan.lines` each further line), then
    greedy for whatever is left open; else all greedy."""
    if plan.beam <= 1:
        plan.trace.origin = "greedy"
        return greedy(run, plan.max_new_tokens, plan.heal, indent=plan.rules.indent, first_not=plan.first_not)
    budget = min(plan.max_new_tokens, LINE_BUDGET)
    clock = Clock(plan.made + plan.search_ms / 1000 if plan.search_ms > 0 else None)
    search = LineSearch(plan.beam, budget, plan.heal, allow_empty=not (plan.blank_line or plan.asks), rules=plan.rules,
                        clock=clock)
    line = beam_line(run.logits, run.index, run.ends, search, run.ranker(plan.rules.reading), run.cancelled)
    if line is None:
        return
    if plan.copies and not run.cancelled():
        chosen = copied.choice(run.model, run.index, run.ends, line, plan.copies, plan.heal, plan.rules, clock.cut,
                               run.cancelled)
        if chosen is not None:  # the notebook's line, and only that: lines after it would be guesswork
            plan.trace.origin, plan.trace.copy_rank = "copy", plan.copies.index(tuple(chosen.tokens))
            plan.trace.copy = chosen
            return run.send(chosen.tokens)
    if clock.cut:  # out of time with the line open: greedy writes the rest (the heal it has not spelled too)
        plan.trace.origin = "cut"
        run.send(line)
        text = b"".join(run.index.pieces[t] for t in line)
        if not run.cancelled() and len(line) < plan.max_new_tokens:
            written, rule = text[len(plan.heal):], plan.finish.indent
            undecided = rule is not None and (not written or rule.allows(written) is None)
            greedy(run, plan.max_new_tokens - len(line), plan.heal[len(text):], done=line,
                   indent=rule if undecided else None, written=written, fit=plan.finish.syntax)
        return
    plan.trace.origin = "beam"
    if plan.cell is not None and (head := whole_line(line, run.index, budget)) is not None and \
            plan.cell.breaks(b"".join(run.index.pieces[t] for t in line[:head])[len(plan.heal):]):
        return run.send(line[:head])  # a whole statement that breaks the cell: no line after it mends it
    if plan.lines is not None and line and whole_line(line, run.index, budget) is not None:
        done = beam_lines(run, plan.beam, plan.max_new_tokens, plan.lines, line, budget, plan.search_ms)
    else:
        run.send(line)
        text = b"".join(run.index.pieces[t] for t in line)
        if run.cancelled() or not goes_on(line, text[len(plan.heal):], budget, plan.max_new_tokens, False):
            return
        done = line
    if done is not None and not run.cancelled() and len(done) < plan.max_new_tokens:
        greedy(run, plan.max_new_tokens - len(done), done=done)
