"""Repetition, in one place for the search (`decoding.beam`: lines it may not choose) and the final
filter (`completion.filters.drop_repetitive`: output that loops is cut).

Lines a suggestion's first line should not repeat: the code lines right before and right after it.

A small FIM model often "completes" a line by writing the line that comes next (it is in the suffix)
or the one just above it: on HumanEval's single-line tasks (cursor at the line's start, every 3rd) the
shipped model's beam answer was one of those two in 31 of 345 tasks, while the right answer is one of
them in 2 of all 1033. The beam search (`decoding.beam`) skips such lines and takes the next likeliest
instead: 0 repeats, exact match 5.5% -> 6.1% there; in the editor a repeat of the next line would only
be cut by the suffix-overlap filter, leaving nothing to show.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ghostbook.decoding.fragments import assigns_itself
from ghostbook.decoding.syntax_fit import parses, without_magics

LOOP_LINES = 4  # the longest run of lines whose repeat `looping_lines` stops
REPEAT = re.compile(r"(.{1,40}?)\1{3,}", re.DOTALL)  # matched against the reversed text: a loop at the end


def repeated_lines(prefix: str, suffix: str) -> frozenset[bytes]:
    """First-line texts to avoid: those that would make the cursor's line equal (up to trailing spaces)
    to the nearest non-blank line above it or below it. Texts are what follows the cursor. None when
    the cursor's line goes on after the cursor (the suggestion is then an insertion, not a line)."""
    rest, _, below = suffix.partition("\n")
    if rest.strip():
        return frozenset()
    head = prefix.rsplit("\n", 1)[-1]
    above = prefix[: len(prefix) - len(head)].rstrip("\n")
    avoid: set[bytes] = set()
    for line in (_last_code_line(above), _first_code_line(below)):
        if line is not None and line.startswith(head) and line[len(head):].strip():
            avoid.add(line[len(head):].rstrip().encode())
    return frozenset(avoid)


def _last_code_line(text: str) -> str | None:
    return next((ln for ln in reversed(text.split("\n")) if ln.strip()), None)


def _first_code_line(text: str) -> str | None:
    return next((ln for ln in text.split("\n") if ln.strip()), None)


def looping_lines(lines: list[str], longest: int = LOOP_LINES) -> frozenset[bytes]:
    """Next lines (without trailing spaces) that would make a small model's suggestion loop: one that
    would end a second copy of its last 2..`longest` lines, and one that opens a block with a condition
    the suggestion has already opened (`if not res:` again), at the same indentation or nested inside
    that block while it is open. Real code does neither (no canonical HumanEval solution does; a test
    checks): there a line repeats within 6 lines 13 times in 1033, always a `return`, `break` or call
    line, never a pair of lines nor an `if`/`for`/`while` line."""
    lines = [line.rstrip() for line in lines]
    n = len(lines)
    avoid = {lines[n - p] for p in range(2, longest + 1)
             if n >= 2 * p - 1 and lines[n - p + 1 :] == lines[n - 2 * p + 1 : n - p]}
    deepest = _indent(lines[-1]) + 4 if lines else 0  # the next line is indented at most this deep
    for j, line in enumerate(lines):
        if line.endswith(":") and " " in line.strip():
            avoid.add(line)
            if all(_indent(below) > _indent(line) for below in lines[j + 1 :] if below.strip()):  # still open
                avoid |= {" " * i + line.strip() for i in range(_indent(line) + 1, deepest + 1)}
    return frozenset(line.encode() for line in avoid)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def cut_loop(text: str, final: bool = True) -> str:
    """Cut output where one short piece repeats over most of it (a small model looping) back to the
    whole lines before the loop (nothing if it loops in its first line); of lines that are all the
    same, the first. While streaming (`final` False) only the end is checked (on the reversed text, so
    the regex tries one position); the final text is scanned whole."""
    match = REPEAT.match(text[::-1])
    if match is not None and match.end() >= max(24, len(text) // 2) and match.group(1).strip():
        return _lines_before(text, len(text) - match.end())
    if final:
        for match in REPEAT.finditer(text):
            if match.end() - match.start() >= max(24, len(text) // 2) and match.group(1).strip():
                return _lines_before(text, match.start())
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) >= 3 and len(set(lines)) == 1:
        return text[: text.index(lines[0]) + len(lines[0])]
    return text


def _lines_before(text: str, at: int) -> str:
    """The whole lines of `text` that end before position `at` (nothing if `at` is in the first line)."""
    end = text.rfind("\n", 0, at + 1)
    return text[:end] if end > 0 and text[:end].strip() else ""


# ---- whole suggestions (`decoding.suggestion`): the final filter and the search share these -------

DEEPEST = 40  # columns of indentation the search's line variants cover
NEARBY = 3  # a suggestion copies none of the lines this close above or below the cursor's line


def _key(line: str) -> str | None:
    """What two lines are compared by: the code without surrounding spaces; None for a line with no
    letter or digit (`)`, `]`, blank), which may repeat."""
    body = line.strip()
    return body if any(c.isalnum() for c in body) else None


def suggestion_lines(before: str, text: str) -> list[str]:
    """The lines a suggestion writes: the cursor's line completed by its first line, then the rest."""
    head = before.rsplit("\n", 1)[-1]
    return (head + text).split("\n")


def nearby_lines(before: str, after: str, reach: int = NEARBY) -> list[str]:
    """The cell's lines within `reach` lines above and below the cursor's line."""
    above = before.split("\n")[:-1][-reach:]
    below = after.split("\n")[1 : 1 + reach]
    return above + below


def avoid_anywhere(lines: list[str], deepest: int) -> frozenset[bytes]:
    """For the search's `avoid` (line texts as written, trailing spaces off): each of `lines` at every
    indentation up to `deepest` columns."""
    keys = {k for k in map(_key, lines) if k is not None}
    return frozenset((" " * i + k).encode() for k in keys for i in range(deepest + 1))


@dataclass(frozen=True)
class OwnLines:
    """A suggestion never repeats one of its own lines (a line with a letter or digit, spaces around
    it aside, the cursor's completed line included): it is cut before the first repeat."""

    before: str  # the cursor's cell up to the cursor

    def cut(self, text: str) -> str:
        lines = suggestion_lines(self.before, text)
        seen: set[str] = set()
        for i, line in enumerate(lines):
            key = _key(line)
            if key in seen:
                return _first_lines(text, i)
            if key is not None:
                seen.add(key)
        return text


@dataclass(frozen=True)
class NearbyCopies:
    """A suggestion never copies a line within `NEARBY` lines above or below the cursor's line (spaces
    around it aside; the cursor's completed line counts): it is cut before the first copy."""

    before: str
    after: str

    def cut(self, text: str) -> str:
        near = {k for k in map(_key, nearby_lines(self.before, self.after)) if k is not None}
        if not near:
            return text
        for i, line in enumerate(suggestion_lines(self.before, text)):
            if i == 0 and not text.split("\n", 1)[0].strip():
                continue  # the suggestion did not touch the cursor's line
            if _key(line) in near:
                return _first_lines(text, i)
        return text


@dataclass(frozen=True)
class LineBefore:
    """No line the suggestion leaves in the cell repeats the line right before it (issue 40): the
    cursor's line as completed, the rest of it after the cursor included (`plt.plot(` + `x, y` + the
    auto-closed `)`), against the cell's line above; each later line against the one before it. Equal
    means equal up to all whitespace (indentation too: `    x = 1` under `x = 1` looks like the line
    again). A line with no letter or digit (`)`, `]`, `}`, blank) may repeat; `pass`, `else:` may not
    (twice in a row is dead code or a syntax error). The suggestion is cut before the first repeat: a
    first line that repeats the line above leaves nothing. `OwnLines` and `NearbyCopies` catch most of
    these, and the search avoids them (`repeated_lines`); this rule is what holds on every backend."""

    before: str  # the cursor's cell up to the cursor
    after: str  # and from the cursor on

    def cut(self, text: str) -> str:
        lines = suggestion_lines(self.before, text + self.after.split("\n", 1)[0])
        touched = bool(text.split("\n", 1)[0].strip())  # else the cursor's line is the user's own
        above = self.before.split("\n")[-2] if touched and "\n" in self.before else None
        for i, line in enumerate(lines):
            previous = lines[i - 1] if i else above
            if previous is not None and _key(line) is not None and _bare(line) == _bare(previous):
                return _first_lines(text, i)
        return text


def _bare(line: str) -> str:
    """`line` without any whitespace: lines equal up to whitespace look the same to the user."""
    return "".join(line.split())


@dataclass(frozen=True)
class EchoedCall:
    """A suggestion never starts by writing again the call the cursor is inside: `plt.subplots(1, 2, `
    + `plt.subplots(1, 2, figsize=(8, 4))` is the line typed twice, not an argument (it parses, so
    the syntax rule lets it through). Such a suggestion is no suggestion."""

    before: str  # the cursor's cell up to the cursor

    def cut(self, text: str) -> str:
        callee = open_callee(self.before.rsplit("\n", 1)[-1])
        return "" if callee and text.lstrip().startswith(callee + "(") else text


@dataclass(frozen=True)
class EchoStart:
    """The search's side of `EchoedCall`, a start rule (`indentation.StartRule`): a line that begins
    by writing again `callee(` (the call the cursor is inside), or the arguments already typed in it,
    all or the first (`args`, those of `ECHO_ARGS` characters or more: `sns.heatmap(df.corr(numeric_only=True),
    annot=True, ` + `df.corr(numeric_only=True), annot=False)`), is dropped as it forms, so the beam
    (and greedy, while the rule is undecided) offers its next likeliest line instead."""

    callee: str
    args: tuple[str, ...] = ()

    @classmethod
    def at(cls, head: str) -> EchoStart | None:
        """The rule for the cursor's line up to the cursor, where it is inside a call."""
        call = open_call(head)
        if call is None:
            return None
        typed = call[1].strip().rstrip(",").rstrip()  # written again, the last one may close the call
        echoes = (typed, _first_argument(typed))
        return cls(call[0], tuple(dict.fromkeys(e for e in echoes if len(e) >= ECHO_ARGS)))

    def allows(self, text: bytes) -> bool | None:
        written = text.decode("utf-8", "replace").lstrip()
        echoes = [self.callee + "(", *self.args]
        if any(written.startswith(echo) for echo in echoes):
            return False
        return None if any(echo.startswith(written) for echo in echoes) else True


# the arguments typed in the open call must be this long before writing them again counts as an echo
ECHO_ARGS = 8


def _first_argument(args: str) -> str:
    """The first of the arguments `args` (typed after a call's bracket), up to its first comma outside
    brackets and strings."""
    comma = top_level(args).find(",")
    return (args if comma == -1 else args[:comma]).rstrip()


def top_level(args: str) -> str:
    """`args` (typed after a call's bracket) with what is inside brackets and strings blanked (roughly:
    a quote toggles), so that only the call's own arguments show, at the same positions."""
    out: list[str] = []
    depth, quote = 0, ""
    for ch in args:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        else:
            out.append(ch if depth == 0 else " ")
            continue
        out.append(" ")
    return "".join(out)


def open_callee(head: str) -> str | None:
    """The dotted name whose call the innermost bracket `head` leaves open is (`plt.subplots` in
    `fig, ax = plt.subplots(1, `), or None (no open call; a string left open)."""
    call = open_call(head)
    return call[0] if call else None


def open_call(head: str) -> tuple[str, str] | None:
    """The innermost call `head` leaves open: its dotted name and the text typed after its bracket
    (`("plt.subplots", "1, ")` for `fig, ax = plt.subplots(1, `), or None (the innermost open bracket
    is no call; a string left open)."""
    code = head.lstrip()
    starts = [0]  # where each line of `code` starts
    for line in code.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    opened: list[tuple[str, int] | None] = []
    name: list[str] = []  # the dotted name just read, if the last tokens were one
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.NAME or tok.type == tokenize.OP and tok.string == "." and name:
                name.append(tok.string)
                continue
            if tok.type == tokenize.OP and tok.string in "([{":
                call = tok.string == "(" and name and name[-1] != "."
                opened.append(("".join(name), starts[tok.end[0] - 1] + tok.end[1]) if call else None)
            elif tok.type == tokenize.OP and tok.string in ")]}" and opened:
                opened.pop()
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                name = []
    except tokenize.TokenError:
        pass  # the bracket left open ends the text mid-statement
    except (SyntaxError, ValueError):
        return None
    if not opened or opened[-1] is None:
        return None
    callee, at = opened[-1]
    return callee, code[at:]


# `target = ` (or `target =`) with nothing after it: the cursor is at an assignment's value
_VALUE_ASKED = re.compile(r"^\s*[^=#(]+?\s*=\s*$")
_ASSIGNMENT = re.compile(r"^\s*[^=#(]+?\s*=(?!=)\s*(\S.*?)\s*$")


def repeated_values(head: str, before: str, reach: int = NEARBY) -> frozenset[bytes]:
    """For the search's `avoid` of a first line: at an assignment's value (`res_h = `), the values the
    code lines within `reach` lines above assign. A value computed again under another name is the line
    above copied, not the next step (`mod_h = HurdleCountModel(y, x)`, then `res_h = ` +
    `HurdleCountModel(y, x)` where `mod_h.fit()` was meant; on the notebook benchmark never the value
    meant). Not inside brackets, where keyword arguments share values (`sharex=True,`, then `sharey=`).
    Nor the name assigned itself (`y = ` + `y`: a walk's Ctrl+Space wrote it)."""
    above = before[: len(before) - len(head)]
    if _VALUE_ASKED.match(head) is None or not parses(without_magics(above)):
        return frozenset()
    values = {m.group(1) for line in above.split("\n")[-reach - 1 :] if (m := _ASSIGNMENT.match(line))}
    if "," not in (target := head.split("=")[0].strip()):
        values.add(target)
    space = "" if head.endswith(" ") else " "
    return frozenset((space + value).encode() for value in values)


# a top-level assignment to one name, attribute or subscript, and its value on the line
_NAMED_VALUE = re.compile(r"^([A-Za-z_][\w.]*(?:\[[^\]]*\])?)\s*=(?!=)\s*(\S.*?)\s*$")
# values shorter than this (`0`, `[]`, `None`) are shared by names as a matter of course
_SHORTEST_VALUE = 6


@functools.lru_cache(maxsize=4)
def assigned_values(above: str) -> Mapping[str, frozenset[str]]:
    """The whole values the top-level lines `above` assign (6 characters or more, their brackets
    closed: not `0`, nor `pd.DataFrame(` opening a call over several lines), each with the names it is
    assigned to. Once per notebook text: the request's plan and its final filter both read it."""
    names: dict[str, set[str]] = {}
    for line in above.split("\n"):
        m = _NAMED_VALUE.match(line)
        if m is not None and len(m.group(2)) >= _SHORTEST_VALUE and not _opens(m.group(2)):
            names.setdefault(m.group(2), set()).add(m.group(1))
    return MappingProxyType({value: frozenset(targets) for value, targets in names.items()})


def other_names_values(head: str, above: str) -> frozenset[bytes]:
    """For the search's `avoid` of a first line: at a top-level assignment's value (`my_dataframe = `),
    the whole values the lines `above` the cursor's line (the notebook's, the cells above included)
    assign to another name (`assigned_values`). In the training notebooks a value one earlier line
    assigned to another name is the value meant in 2.8% of the assignments that have one (the nearest
    such value in 0.8%), where the same name's earlier value is in 29.7%: the small model's copy of
    another name's value (`my_data = np.array(...)`, then `my_dataframe = ` + `np.array(...)`) is a
    guess, not the next step."""
    asked = _NAMED_VALUE.match(head + "0")
    if asked is None or _VALUE_ASKED.match(head) is None:
        return frozenset()
    space = "" if head.endswith(" ") else " "
    return frozenset((space + value).encode() for value, targets in assigned_values(above).items()
                     if asked.group(1) not in targets)


@dataclass(frozen=True)
class OtherNamesValue:
    """A line rule (`lines.LineFit`) of a new line: not a top-level `name = value` whose whole value the
    notebook above assigns to another name (`s = np.random.randint(0,100,(10,2))` below `data = ` that;
    `other_names_values` is the same at `name = `)."""

    values: Mapping[str, frozenset[str]]  # `assigned_values` of the notebook above

    @classmethod
    def above(cls, above: str) -> OtherNamesValue | None:
        values = assigned_values(above)
        return cls(values) if values else None

    def fits(self, line: bytes) -> bool:
        m = _NAMED_VALUE.match(line.decode("utf-8", "replace").rstrip())
        if m is None:
            return True
        targets = self.values.get(m.group(2))
        return targets is None or m.group(1) in targets


@dataclass(frozen=True)
class SelfAssignment:
    """The final filter's side of the search's `repeated_values` and `Fragments`: a suggestion whose first
    line makes the cursor's line assign a name to itself (`y = ` + `y`) is none; a statement's, not a
    keyword argument's (`f(x=` + `x)` passes a name on)."""

    before: str  # the cursor's cell up to the cursor

    def cut(self, text: str) -> str:
        head = self.before.rsplit("\n", 1)[-1]
        if not assigns_itself(head + text.split("\n", 1)[0]):
            return text
        return "" if parses(without_magics(self.before[: len(self.before) - len(head)])) else text


@dataclass(frozen=True)
class ValueOfAnotherName:
    """The final filter's side of `OtherNamesValue` (`decoding.suggestion` rule): at a new top-level line
    or a top-level `name = ` whose value is not begun, a suggestion whose first line makes the line
    `name = value` with a value the notebook above assigns only to other names is none (where the beam
    ran out of time and greedy finished the line, no line rule of the search saw it)."""

    before: str  # the cursor's cell up to the cursor
    above: str  # the notebook's text above the cursor's line ("": the rule does nothing)

    def cut(self, text: str) -> str:
        head = self.before.rsplit("\n", 1)[-1]
        if not self.above or (head and _VALUE_ASKED.match(head) is None):
            return text
        rule = OtherNamesValue.above(self.above)
        return "" if rule is not None and not rule.fits((head + text.split("\n", 1)[0]).encode()) else text


def _opens(value: str) -> bool:
    """Whether `value` leaves a bracket open (or closes one it did not open)."""
    return any(value.count(o) != value.count(c) for o, c in ("()", "[]", "{}"))


_IMPORT_STATEMENT = re.compile(r"^\s*(?:import\s+[\w.]+|from\s+[\w.]+\s+import\s+[\w*])")


def imports_above(prefix: str) -> list[str]:
    """The one-line import statements above the cursor's line. A suggestion never makes one again (the
    search avoids them, as nearby lines): the model, short of a line to write, often imports again what
    the notebook has (`import numpy as np`); on the notebook benchmark such a line was never the one meant."""
    return [line for line in prefix.split("\n")[:-1]
            if _IMPORT_STATEMENT.match(line) and not line.rstrip().endswith(("(", "\\"))]


def _first_lines(text: str, n: int) -> str:
    """The suggestion's first `n` lines ("" for none)."""
    return "\n".join(text.split("\n")[:n]) if n else ""


def avoid_first(head: str, lines: list[str]) -> frozenset[bytes]:
    """For the search's `avoid` of a first line (its text after the cursor, trailing spaces off): the
    texts that would make the cursor's line, `head` plus the text, one of `lines` (`NearbyCopies`)."""
    code = head.lstrip()
    keys = [k for k in map(_key, lines) if k is not None and k.startswith(code) and k[len(code):].strip()]
    if code:
        return frozenset(k[len(code):].encode() for k in keys)
    return frozenset((" " * i + k).encode() for k in keys for i in range(DEEPEST + 1))
