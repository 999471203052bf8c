"""The names a notebook's code binds and reads, by Python's own parser (`ast`), cell by cell.

The candidates (`completion.candidates`) ask which names the notebook uses but never binds: those
are what an import line brings (`corner.corner(...)` below -> `import corner`; `class G(Graph)` ->
`from networkx import Graph`). A name is bound by an assignment, a loop, a `with`/`except` target, a
comprehension, an import, a definition or a parameter, and read where the parser says it is loaded;
words in strings and comments are neither. The text is cut where the prompt joins cells (a blank
line); a piece that does not parse alone is joined to the next ones, then read dedented (the body
of a function after a blank line), and failing that by the regular expression `BOUND` (the cell being
edited, cut at the cursor). Each piece's reading is cached, so a request reads only the cells that
changed.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass

from ghostbook.completion.calls import outside_strings

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_WORD = re.compile(_IDENT)
# the regular expression's reading of the bindings of code that does not parse
BOUND = re.compile(rf"^\s*(?:import\s+[\w.]+\s+as\s+({_IDENT})|import\s+({_IDENT})"
                   rf"|from\s+[\w.]+\s+import\s+(\([\w\s,]+\)|[\w \t,]+)|def\s+({_IDENT})|class\s+({_IDENT})"
                   rf"|for\s+([\w\s,()]+?)\s+in\b|({_IDENT}(?:\s*,\s*{_IDENT})*)\s*=[^=])",
                   re.M)
_MAGIC = re.compile(r"^([ \t]*)[%!?].*$", re.M)  # IPython's magics and shell lines: no Python
_DOTTED = re.compile(rf"(?<![\w.])({_IDENT})\s*\.\s*[A-Za-z_]")
_CALLED = re.compile(rf"(?<![\w.])({_IDENT})\s*\(")
# a piece that does not parse is joined to at most this many pieces after it
_JOIN = 3
# a piece that does not parse is cut shorter at most this many times
_RETRIES = 6


@dataclass(frozen=True)
class CodeNames:
    """`bound`: every name the code binds; `read`: the names it reads, in the order of their first
    reading; `dotted`: those of them it reads an attribute of (`np` in `np.zeros`), `called` those it
    calls (`f` in `f(x)`), each in the same order."""

    bound: frozenset[str]
    read: tuple[str, ...]
    dotted: tuple[str, ...]
    called: tuple[str, ...]

    def __or__(self, other: CodeNames) -> CodeNames:
        return CodeNames(self.bound | other.bound, _unique(self.read + other.read),
                         _unique(self.dotted + other.dotted), _unique(self.called + other.called))


EMPTY = CodeNames(frozenset(), (), (), ())


@functools.lru_cache(maxsize=16)
def code_names(text: str) -> CodeNames:
    """The names `text` (cells joined by blank lines) binds and reads (one request asks for the same
    text several times: the last few answers are kept)."""
    pieces = text.split("\n\n")
    found: list[CodeNames] = []
    i = 0
    while i < len(pieces):
        for n in range(1, min(_JOIN + 1, len(pieces) - i) + 1):
            read = _parsed("\n\n".join(pieces[i : i + n]))
            if read is not None:
                found.append(read)
                i += n
                break
        else:
            found.append(_partly_parsed(pieces[i]))
            i += 1
    return CodeNames(frozenset().union(*(f.bound for f in found)), *(
        _unique(name for f in found for name in getattr(f, kind)) for kind in ("read", "dotted", "called")))


@functools.lru_cache(maxsize=4096)
def _parsed(piece: str) -> CodeNames | None:
    """The names of a piece Python parses (as it is, or dedented), else None."""
    if not piece.strip():
        return EMPTY
    source = _MAGIC.sub(r"\1pass", piece)
    for text in (source, textwrap.dedent(source)):
        try:
            return _read_tree(ast.parse(text))
        except (SyntaxError, ValueError):
            continue
    return None


@functools.lru_cache(maxsize=1024)
def _partly_parsed(piece: str) -> CodeNames:
    """A piece that does not parse (the cell being edited, cut at the cursor): its longest first lines
    that parse (at most `_RETRIES` tries, each cut before the line the parser stopped at, or one line
    shorter), and the rest by `BOUND`."""
    lines = piece.split("\n")
    end = len(lines)
    for _ in range(_RETRIES):
        try:
            tree = ast.parse(textwrap.dedent(_MAGIC.sub(r"\1pass", "\n".join(lines[:end]))))
        except SyntaxError as error:
            end = min(end - 1, (error.lineno or end) - 1)
            if end <= 0:
                break
            continue
        except ValueError:
            break
        return _read_tree(tree) | _by_pattern("\n".join(lines[end:]))
    return _by_pattern(piece)


def _read_tree(tree: ast.AST) -> CodeNames:
    bound: set[str] = set()
    read: list[tuple[int, int, str]] = []
    dotted: list[tuple[int, int, str]] = []
    called: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                read.append((node.lineno, node.col_offset, node.id))
            else:
                bound.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            dotted.append((node.value.lineno, node.value.col_offset, node.value.id))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.append((node.func.lineno, node.func.col_offset, node.func.id))
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return CodeNames(frozenset(bound), *(_unique(n for *_, n in sorted(found)) for found in (read, dotted, called)))


@functools.lru_cache(maxsize=1024)
def _by_pattern(piece: str) -> CodeNames:
    """What `BOUND` finds bound in code that does not parse; read: the other words outside strings and
    comments, not after a dot."""
    bound: set[str] = set()
    for m in BOUND.finditer(piece):
        for group in m.groups():
            if group:
                bound.update(w for w in _WORD.findall(group) if w not in ("as", "import"))
    read: list[str] = []
    dotted: list[str] = []
    called: list[str] = []
    for line in piece.split("\n"):
        if line.lstrip().startswith(("import ", "from ", "#")):
            continue
        code = _code_only(line)
        read += [m.group() for m in _WORD.finditer(code) if not code[: m.start()].rstrip().endswith(".")]
        dotted += [m.group(1) for m in _DOTTED.finditer(code)]
        called += [m.group(1) for m in _CALLED.finditer(code)]
    read = [w for w in read if w not in bound and not keyword.iskeyword(w)]
    return CodeNames(frozenset(bound), _unique(read), _unique(dotted), _unique(called))


def _code_only(line: str) -> str:
    """`line` with its strings blanked and its comment cut."""
    chars, _ = outside_strings(line)
    kept = dict(chars)
    out = "".join(kept.get(i, " ") for i in range(len(line)))
    return out.split("#", 1)[0]


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
