"""Whether a suggested first line fits the cell's syntax.

A small FIM model often writes a line that Python cannot parse where it stands: docstring prose in a
function body (`Returns:`), an `else:` with no `if`, a statement that breaks the code below it. With
the suffix known, the cell with the line inserted can simply be parsed. The beam search
(`decoding.beam`) keeps the likeliest line that fits, searching up to `FIT_STEPS` steps past the
likeliest line for one; where none fits (a syntax error elsewhere in the cell) it keeps the
likeliest, as without the check. On HumanEval's single-line tasks (cursor at the line's start, PSM,
beam 4) the step-18500 default model's answer left the program unparsable in 276 of 1033 tasks (the
reference never does; a test checks all): with the check 108, exact match 9.3% -> 9.8%, pass@1
10.9% -> 11.8%.

A line that opens a block or a bracket is judged as the start of more lines (the editor goes on
writing them): a block gets an indented `pass`, open brackets their closers, before the cell is parsed.
IPython's line magics and shell escapes (`%time`, `!pip`) on lines of their own read as `pass`.
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
import warnings

CLOSERS = {"(": ")", "[": "]", "{": "}"}
MAGIC_LINE = re.compile(r"^([ \t]*)[%!].*$", re.MULTILINE)


class SyntaxFit:
    """The cursor's cell split at the cursor: `before` it and `after` it (the rest of its line on)."""

    def __init__(self, before: str, after: str) -> None:
        head, sep, tail = before.rpartition("\n")  # the cursor's own line is left as it is
        self.before = without_magics(head) + sep + tail
        first, sep, rest = after.partition("\n")
        self.after = first + sep + without_magics(rest)
        self._seen: dict[bytes, bool] = {}

    def fits(self, line: bytes) -> bool:
        """Whether the cell parses with `line` (a suggestion's first line, without its newline)
        inserted at the cursor, taking a line left open as the start of more."""
        if line not in self._seen:
            self._seen[line] = self._fits(line.decode("utf-8", "replace"))
        return self._seen[line]

    def broken_elsewhere(self) -> bool:
        """Whether the cell fails to parse with the cursor's line a bare `pass`: then no suggestion can
        make it parse (inside a statement that spans lines, or an error in another line)."""
        head, _, line = self.before.rpartition("\n")
        indent = line[: len(line) - len(line.lstrip())]
        below = self.after.partition("\n")[2]
        return not parses(f"{head}\n{indent}pass\n{below}")

    def opens_string(self, text: str) -> bool:
        """Whether the cursor's line with `text` leaves a triple-quoted string open (a docstring's first
        line): the start of more lines, which no check of this line can judge."""
        return opens_long_string(self.before.rsplit("\n", 1)[-1] + text.split("\n", 1)[0])

    def breaks(self, line: bytes) -> bool:
        """Whether `line`, a whole statement (no block opened, no line continued, no decorator, no
        long string), breaks a cell that parses without it: no line after it can mend that."""
        code = line.strip()
        return (not code.endswith((b":", b"\\")) and not code.startswith(b"@") and b'"""' not in code
                and b"'''" not in code and not self.fits(line) and self.fits(b""))

    def _fits(self, text: str) -> bool:
        full = self.before.rsplit("\n", 1)[-1] + text  # the cursor's whole line up to the line's end
        if repeats_keyword(full):
            return False
        if parses(self.before + text + self.after):
            return True
        opened = open_brackets(full)
        if opened is None:
            return False
        if opened:
            return parses(self.before + text + "".join(CLOSERS[b] for b in reversed(opened)) + self.after)
        last = full.rsplit("\n", 1)[-1]
        if last.split("#", 1)[0].rstrip().endswith(":"):  # a block the next lines fill
            indent = last[: len(last) - len(last.lstrip())]
            return parses(f"{self.before}{text}\n{indent}    pass{self.after}")
        return False


def without_magics(code: str) -> str:
    """`code` with each line that is an IPython magic or shell escape replaced by `pass`."""
    return MAGIC_LINE.sub(r"\1pass", code)


def parses(source: str) -> bool:
    """Whether `source` is valid Python (warnings, e.g. invalid escapes, do not count), as the compiler
    takes it too (`compiler_rejects`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):  # ValueError: a null byte
            return False
    return not compiler_rejects(tree, source)


FUTURE = "__future__"
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
LOOPS = (ast.For, ast.AsyncFor, ast.While)


def compiler_rejects(tree: ast.Module, source: str) -> bool:
    """What Python's compiler rejects though its parser takes it: a `return` or `yield` outside a
    function, a `break` or `continue` outside a loop (the small model offers `return` on a new line
    below code, in a top-level loop too), a function whose parameters repeat a name (`def
    plot_pandas(pandas, pandas, pandas):`), and a `from __future__` import after other code, a docstring
    aside (it offers `from __future__ import annotations` anywhere; a notebook compiles each cell on
    its own, so a cell may start with one)."""
    if _misplaced(tree, False, False):
        return True
    if FUTURE not in source:
        return False
    body = tree.body
    docstring = bool(body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str)
    leading = {id(node) for node in itertools.takewhile(_is_future, body[int(docstring):])}
    return any(_is_future(node) and id(node) not in leading for node in ast.walk(tree))


def _misplaced(node: ast.AST, in_function: bool, in_loop: bool) -> bool:
    """Whether a statement under `node` stands where only a function or a loop takes it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return | ast.Yield | ast.YieldFrom) and not in_function:
            return True
        if isinstance(child, ast.Break | ast.Continue) and not in_loop:
            return True
        if isinstance(child, FUNCTIONS) and _repeats_a_parameter(child.args):
            return True
        if isinstance(child, FUNCTIONS):
            inner = (True, False)
        elif isinstance(child, ast.ClassDef):
            inner = (False, False)
        else:
            inner = (in_function, in_loop or isinstance(child, LOOPS))
        if _misplaced(child, *inner):
            return True
    return False


def _repeats_a_parameter(args: ast.arguments) -> bool:
    names = [a.arg for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg) if a]
    return len(names) != len(set(names))


def _is_future(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == FUTURE


def repeats_keyword(line: str) -> bool:
    """Whether one call on `line` passes the same keyword argument twice (`cbar=False, cbar=False`):
    Python's compiler rejects it, its parser (`parses`) does not."""
    if line.count("=") < 2:
        return False
    calls: list[set[str] | None] = []  # per open bracket: the keywords given, None for no call
    toks: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line.lstrip()).readline):
            if tok.type == tokenize.OP and tok.string in CLOSERS:
                is_call = tok.string == "(" and bool(toks) and (toks[-1].type == tokenize.NAME
                                                                or toks[-1].string in ")]")
                calls.append(set() if is_call else None)
            elif tok.type == tokenize.OP and tok.string in CLOSERS.values() and calls:
                calls.pop()
            elif (tok.type == tokenize.OP and tok.string == "=" and calls and calls[-1] is not None
                  and len(toks) >= 2 and toks[-1].type == tokenize.NAME and toks[-2].string in "(,"):
                if toks[-1].string in calls[-1]:
                    return True
                calls[-1].add(toks[-1].string)
            toks.append(tok)
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass  # a line left open or unreadable: what was read so far
    return False


def open_brackets(line: str) -> list[str] | None:
    """The brackets `line` leaves open, innermost last; None if it leaves a string open or cannot be
    read (a closer with no opener)."""
    stack: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line.lstrip()).readline):
            if tok.type == tokenize.OP and tok.string in CLOSERS:
                stack.append(tok.string)
            elif tok.type == tokenize.OP and tok.string in CLOSERS.values():
                if not stack or CLOSERS[stack.pop()] != tok.string:
                    return None
    except tokenize.TokenError as e:
        return stack if "statement" in str(e.args[0]) else None
    except (SyntaxError, ValueError):  # IndentationError and bad characters included
        return None
    return stack


def opens_long_string(line: str) -> bool:
    """Whether `line` leaves a triple-quoted string open."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO(line.lstrip()).readline):
            pass
    except tokenize.TokenError as e:
        return "string" in str(e.args[0])
    except (SyntaxError, ValueError):
        pass
    return False


class SyntaxPrefix:
    """A suggestion never breaks the cell's syntax where a shorter prefix of it would not: if the cell
    does not fit the whole suggestion (`SyntaxFit`: a last line left open counts as the start of more),
    the longest that fits of its leading lines, then of its first line cut after a token, then nothing,
    is kept. Where none fits, a block's header whose colon is still to come (`for x in my_li` + `st`)
    keeps the longest start of its first line that fits with the colon; else nothing is kept, unless the
    cell is broken elsewhere (no line at the cursor could mend it) or the line opens a long string (a
    docstring): then the suggestion stays as it is."""

    def __init__(self, before: str, after: str) -> None:
        self.fit = SyntaxFit(before, after)

    def cut(self, text: str) -> str:
        if self.fit.fits(text.encode()):
            return text
        for shorter in _prefixes(text):
            if self.fit.fits(shorter.encode()):
                return shorter
        first = text.split("\n", 1)[0]
        header = next((s for s in (first, *_prefixes(first)) if self.fit.fits(f"{s}:".encode())), "")
        if header:
            return header
        return text if self.fit.broken_elsewhere() or self.fit.opens_string(text) else ""


def _prefixes(text: str) -> list[str]:
    """Shorter prefixes of `text`, longest first: its leading whole lines, its first line cut after each
    of its tokens, nothing."""
    lines = text.split("\n")
    out = ["\n".join(lines[:n]).rstrip() for n in range(len(lines) - 1, 0, -1)]
    first = lines[0]
    ends: list[int] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(first).readline):
            if tok.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.DEDENT,
                                tokenize.INDENT) and tok.end[0] == 1:
                ends.append(tok.end[1])
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass
    out += [first[:e].rstrip() for e in sorted(set(ends), reverse=True) if 0 < e < len(first.rstrip())]
    return [*dict.fromkeys(p for p in out if p != text), ""]
