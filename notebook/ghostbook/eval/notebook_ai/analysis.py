"""What a task cutter reads in a cell's code (pure: no kernel): the names its imports bind, the names it
uses, its top-level statements, and a name renamed token by token."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass


def python_text(cell: str) -> str:
    """The cell with IPython's `%` and `!` lines blanked (so `ast` reads it; line numbers kept)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in cell.split("\n"))


def parse(cell: str) -> ast.Module | None:
    try:
        return ast.parse(python_text(cell))
    except SyntaxError:
        return None


@dataclass(frozen=True)
class ImportLine:
    """A one-line top-level import statement that binds exactly `name`."""

    line: int  # 0-based line of the cell
    text: str
    name: str


def import_lines(cell: str) -> list[ImportLine]:
    tree = parse(cell)
    lines = cell.split("\n")
    out = []
    for node in tree.body if tree else []:
        if isinstance(node, ast.Import | ast.ImportFrom) and len(node.names) == 1 and node.lineno == node.end_lineno:
            alias = node.names[0]
            if alias.name == "*":
                continue
            name = alias.asname or alias.name.split(".")[0]
            out.append(ImportLine(node.lineno - 1, lines[node.lineno - 1], name))
    return out


def bound_by_imports(cells: list[str], name: str) -> int:
    """How many import statements, over all cells, bind `name` (unparsable cells count none)."""
    count = 0
    for cell in cells:
        for node in ast.walk(parse(cell) or ast.Module([], [])):
            if isinstance(node, ast.Import | ast.ImportFrom):
                count += sum((a.asname or a.name.split(".")[0]) == name for a in node.names)
    return count


def used_names(cell: str) -> set[str]:
    """The names the cell reads or writes (ast `Name` nodes; an unparsable cell: none)."""
    return {node.id for node in ast.walk(parse(cell) or ast.Module([], [])) if isinstance(node, ast.Name)}


def assigned_names(cell: str) -> set[str]:
    """The names the cell's top-level statements assign (`x = ...`, `x, y = ...`)."""
    tree = parse(cell)
    out: set[str] = set()
    for node in tree.body if tree else []:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign | ast.AugAssign) else []
        for target in targets:
            out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return out


def statement_starts(cell: str) -> list[int]:
    """The 0-based first lines of the cell's top-level statements (decorators and comments above them
    included in the statement that follows)."""
    tree = parse(cell)
    if tree is None:
        return []
    starts = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
        starts.append(first)
    return starts


def renamed(cell: str, old: str, new: str) -> str:
    """The cell with every name token `old` (not an attribute after a dot, not a keyword argument) as `new`."""
    lines = cell.split("\n")
    tokens = list(tokenize.generate_tokens(io.StringIO(python_text(cell) + "\n").readline))
    hits = []
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME or tok.string != old:
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if before == "." or (after == "=" and before in ("(", ",")):
            continue
        hits.append(tok.start)
    for row, col in sorted(hits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[col + len(old):]
    return "\n".join(lines)
