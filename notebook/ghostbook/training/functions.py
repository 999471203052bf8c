"""Function-level documents: self-contained functions with docstrings (HumanEval's shape), used as
high-quality data while the learning rate anneals."""

from __future__ import annotations

import ast
import json
import textwrap
from collections.abc import Iterable
from pathlib import Path


def _is_documented(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return bool(ast.get_docstring(node)) and len(node.body) >= 2


def extract_functions(text: str, min_lines: int = 4, max_lines: int = 60) -> list[str]:
    """Documented functions and methods of a module, dedented, each with the module's imports."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = text.splitlines()
    imports = [ast.get_source_segment(text, n) or "" for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    header = "\n".join(i for i in imports if i and "\n" not in i)[:600]
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or not _is_documented(node):
            continue
        start = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
        end = node.end_lineno or node.lineno
        if not min_lines <= end - start <= max_lines:
            continue
        body = textwrap.dedent("\n".join(lines[start:end]))
        out.append((header + "\n\n\n" if header else "") + body + "\n")
    return out


def function_docs(texts: Iterable[str], limit: int = 200_000) -> list[str]:
    """All extracted functions of `texts`, at most `limit`."""
    docs: list[str] = []
    for text in texts:
        docs.extend(extract_functions(text))
        if len(docs) >= limit:
            break
    return docs[:limit]


def load_or_build(corpus_dir: Path, first_docs: int | None = None) -> list[str]:
    """`corpus_dir/functions.jsonl` (or its packed `.xz` copy), built from `train.jsonl` on first use;
    with `first_docs`, from that many documents only (a corpus before its extension)."""
    from ghostbook.training.corpus import open_split, read_docs

    path = corpus_dir / ("functions.jsonl" if first_docs is None else f"functions.first{first_docs}.jsonl")
    if not path.exists() and not path.with_name(path.name + ".xz").exists():
        docs = function_docs(d.text for d in read_docs(corpus_dir / "train.jsonl")[:first_docs])
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(d) + "\n" for d in docs))
        tmp.replace(path)
    with open_split(path) as f:
        return [json.loads(line) for line in f if line.strip()]
