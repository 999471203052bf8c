"""A chat answer → the new text of the cell (or of the selected lines).

The model answers as it knows best: prose, one fenced code block, maybe several. `render` takes the
block that best matches the original (a Python-tagged one first), or the whole answer where it has no
fence but reads as code. Where the block is a snippet with elisions (`# ... existing code ...`,
`# ...`, `...` alone on a line, `# rest unchanged`), each elision becomes the original's lines between
the snippet's lines around it: the snippet's other lines are aligned to the original's (the best
monotone alignment, where equal lines and edited ones match and the original's lines left over are
elided where a marker is, deleted elsewhere), so a line repeated in the cell finds its place. No marker
is left in the result. A line that the original itself holds is never taken for a marker.

While streaming (`final=False`) the open block so far is the text; an elision at its end (whose end in
the original is not known yet) is left out until more comes, and so is a half-written fence line.
"""

from __future__ import annotations

import ast
import functools
import math
import re
import textwrap
from dataclasses import dataclass
from difflib import SequenceMatcher

PARSE_WARNING = "the proposal does not parse as Python"
# the lines the prompt puts around a selection inside the cell (`editing.prompt`); never part of an answer
SELECTION_START = "# <<< selection start >>>"
SELECTION_END = "# <<< selection end >>>"
# code block language tags read as Python ("" = no tag)
PYTHON_TAGS = frozenset({"", "python", "py", "python3", "py3", "ipython", "ipython3", "jupyter", "pycon"})

_FENCE_BEGUN = re.compile(r"^ {0,3}(?:`+|~+|`{3,}[^`\s]*|~{3,}[^~\s]*)$")  # a fence line half written
_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`{]*)[^`]*$")
_ELISION_PHRASE = re.compile(
    r"existing (?:code|imports|lines|logic|cell)|rest of (?:the |your |this )?(?:code|cell|file|function|loop|body|"
    r"notebook|lines|script)|\bunchanged\b|same as before|remains? the same|remaining (?:code|lines)|previous code"
    r"|other code|code (?:above|below)|\bas before\b|no changes", re.I)
_MARK_BODY = re.compile(r"^[\s(\[]*(?:\.\.\.|…)")  # a comment whose text starts with an ellipsis
_MAGIC = re.compile(r"^([ \t]*)(?:[%!?]|[\w.,\[\] \t]+=[ \t]*[%!]).*$|^([ \t]*)\S.*\?[ \t]*$", re.M)
# the alignment's scores (`_align`): an edited line scores `_EDITED` + its likeness (0.6..1)
_SAME, _BLANK, _EDITED, _DELETED = 3.0, 1.0, 1.0, 0.5
# above this many (old, new) line pairs the alignment compares lines only for equality
_FUZZY_CELLS = 40_000
_PARTIAL_MARK = re.compile(r"^\s*(?:#|//)\s*\.{0,3}\s*$")  # a comment line being written: `#`, `# ..`


@dataclass(frozen=True)
class Rendered:
    """The new text (the replacement of the whole original); `found` False where the answer has no
    code (yet); `warning` where the final text does not parse as Python."""

    text: str
    found: bool
    warning: str | None = None


@dataclass(frozen=True)
class Block:
    """A fenced code block of an answer: its language tag (lower case, "" for none), its text (the
    fence's indentation taken off) and whether its closing fence came."""

    lang: str
    text: str
    closed: bool


def render(answer: str, original: str, final: bool, around: tuple[str, str] = ("", "")) -> Rendered:
    """The new text for `original` (the cell, or the selected lines) from the chat `answer` so far.

    `around` is the cell's text before and after `original` where it is a selection, so that the
    parse check reads the whole cell."""
    answer = answer.replace("\r\n", "\n")
    blocks = code_blocks(answer, final)
    if blocks:
        code = best_block(blocks, original).text
    elif final and looks_like_code(answer, original):
        code = answer.strip("\n")
    elif not final and _copies_original(answer, original):
        code = answer
    else:
        return Rendered("", False)
    lines = [line for line in code.split("\n") if line.strip() not in (SELECTION_START, SELECTION_END)]
    if not final and lines and _PARTIAL_MARK.match(lines[-1]) and lines[-1].strip() not in _stripped(original):
        lines.pop()
    text = _trim_blank_edges(resolve_elisions("\n".join(lines), original, final), original)
    whole = around[0] + text + around[1]
    return Rendered(text, True, PARSE_WARNING if final and not parses(whole) else None)


def code_blocks(answer: str, final: bool = True) -> list[Block]:
    """The fenced blocks of `answer`, the last one possibly still open. While streaming, a last line
    that may be a fence being written (`` `` ``, ```` ```py ````) is not read yet."""
    lines = answer.split("\n")
    if not final and lines and _FENCE_BEGUN.match(lines[-1]):
        lines.pop()
    blocks: list[Block] = []
    fence: tuple[int, str, str] | None = None  # (indent, fence, tag) of the open block
    body: list[str] = []
    for line in lines:
        if fence is None:
            if (m := _OPEN.match(line)) is not None:
                fence, body = (len(m.group(1)), m.group(2), m.group(3).lower()), []
            continue
        indent, mark, tag = fence
        stripped = line.strip()
        if stripped.startswith(mark) and set(stripped) == {mark[0]}:
            blocks.append(Block(tag, "\n".join(body), True))
            fence = None
            continue
        body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])
    if fence is not None:
        if final and body and body[-1].rstrip().endswith(fence[1]):  # `x = 1```: the fence closes the line
            body[-1] = body[-1].rstrip()[: -len(fence[1])]
            body = body if body[-1].strip() else body[:-1]
        blocks.append(Block(fence[2], "\n".join(body), False))
    return blocks


def answer_whole(answer: str) -> bool:
    """Whether the answer's first code block is closed: its closing fence's line has ended (a line that
    begins with the fence may still become ```` ```python ````, which inside a block is code). Whatever
    follows is prose the editor never reads: the engine stops reading there, and an in-process model
    stops generating (`AnswerEnd`)."""
    return any(block.closed for block in code_blocks(answer, final=False))


class AnswerEnd:
    """The stop rule of an edit answer's decoding (`decoding.edits.EditSearch`'s `stop`): fed each
    generated token's bytes after `opening` (the answer's start, written for the model), True once the
    answer is whole (`answer_whole`). Only a token that ends a line can end a fence's line, so only then
    is the answer read again."""

    def __init__(self, opening: str = "") -> None:
        self._text = bytearray(opening.encode())

    def __call__(self, piece: bytes) -> bool:
        self._text += piece
        return b"\n" in piece and answer_whole(self._text.decode("utf-8", errors="replace"))


def best_block(blocks: list[Block], original: str) -> Block:
    """The block that is the new cell: a Python one before others, then the one most like the original
    (by lines), then the longest."""
    if len(blocks) == 1:
        return blocks[0]
    old = _keys(original) if original.strip() else None

    def score(block: Block) -> tuple[bool, float, int]:
        like = SequenceMatcher(None, old, _keys(block.text), autojunk=False).ratio() if old is not None else 0.0
        return block.lang in PYTHON_TAGS, like, len(block.text)

    return max(blocks, key=score)


def looks_like_code(text: str, original: str = "") -> bool:
    """Whether an answer without fences is code: it parses as Python and is more than lone words."""
    text = text.strip("\n")
    if not text.strip():
        return False
    if text.strip() == original.strip():
        return True
    try:
        tree = ast.parse(strip_magics(text))
    except (SyntaxError, ValueError):
        return False
    words = (ast.Name, ast.Constant)
    return any(not isinstance(s, ast.Pass) and not (isinstance(s, ast.Expr) and isinstance(s.value, words))
               for s in tree.body)


def is_elision(line: str, original_lines: frozenset[str] | set[str]) -> bool:
    """Whether `line` stands for lines left out (`# ... existing code ...`, `// ...`, `...`,
    `# (unchanged)`, `# rest of the code`); never a line the original holds (`original_lines`:
    its lines stripped)."""
    stripped = line.strip()
    if not stripped or stripped in original_lines:
        return False
    if stripped in ("...", "…"):
        return True
    if not stripped.startswith(("#", "//")):
        return False
    body = stripped.lstrip("#/").strip()
    if _MARK_BODY.match(body) or body in ("[...]", "[…]"):
        return True
    return len(body.split()) <= 10 and _ELISION_PHRASE.search(body) is not None


def resolve_elisions(snippet: str, original: str, final: bool = True) -> str:
    """`snippet` with each elision replaced by the original's lines it stands for. While streaming
    (`final=False`) an elision with nothing after it yet is left out."""
    lines = snippet.split("\n")
    known = _stripped(original)
    marks = [is_elision(line, known) for line in lines]
    if not any(marks):
        return snippet
    if not final:  # the line just begun is not written yet
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()
            marks.pop()
    kept: list[str] = []
    gaps: dict[int, str] = {}  # kept lines before it -> the marker line (a run of markers is one)
    for line, mark in zip(lines, marks, strict=True):
        if not mark:
            kept.append(line)
        else:
            gaps.setdefault(len(kept), line)
    if not final:
        gaps.pop(len(kept), None)
    fills = _align(original.split("\n"), kept, {g: _gap_indent(marker, kept, g) for g, marker in gaps.items()},
                   final)
    out: list[str] = []
    for j in range(len(kept) + 1):
        if j in gaps:
            if fills[j]:
                out.extend(fills[j])
            elif gaps[j].strip() in ("...", "…") and _opens_block(out):  # a body of its own: code, kept
                out.append(gaps[j])
        if j < len(kept):
            out.append(kept[j])
    return "\n".join(out)


def parses(text: str) -> bool:
    """Whether `text` parses as Python once IPython's magics and shell lines are set aside (a cell magic
    `%%...` makes the whole cell not Python: it passes), as written or dedented."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    if first.lstrip().startswith("%%"):
        return True
    source = strip_magics(text)
    for candidate in (source, textwrap.dedent(source)):
        try:
            ast.parse(candidate)
            return True
        except (SyntaxError, ValueError):
            continue
    return False


def strip_magics(text: str) -> str:
    """`text` with each line IPython reads itself (`%magic`, `!cmd`, `x = !cmd`, `obj?`) a `pass`."""
    return _MAGIC.sub(lambda m: (m.group(1) or m.group(2) or "") + "pass", text)


def _align(old: list[str], new: list[str], gaps: dict[int, int], final: bool) -> dict[int, list[str]]:
    """For each gap (index into `new` -> the indentation its marker stands for), the lines of `old` it
    stands for. The best monotone alignment of `new` to `old`: a line equal to an old one scores
    `_SAME` (a blank one `_BLANK`), an edit of it (`_likeness`) less, a new line nothing; an old line
    left over at a gap is elided there for free (one indented less than the marker ends its stretch),
    elsewhere it is deleted at a cost (`_DELETED`), so the alignment follows the markers."""
    n, m = len(old), len(new)
    fuzzy = n * m <= _FUZZY_CELLS

    def gain(i: int, j: int) -> float:
        a, b = old[i].strip(), new[j].strip()
        if a == b:
            return _SAME if a else _BLANK
        like = _likeness(a, b) if fuzzy and a and b else 0.0
        return _EDITED + like if like else 0.0

    def skip(i: int, j: int) -> float:
        if j in gaps:  # an indented marker's stretch ends at a line indented less
            free = not old[i].strip() or len(old[i]) - len(old[i].lstrip()) >= gaps[j]
            return 0.0 if free else -math.inf
        return 0.0 if j == m and not final else -_DELETED

    best = [[0.0] * (m + 1) for _ in range(n + 1)]  # best[i][j]: old[i:] against new[j:]
    for i in range(n - 1, -1, -1):
        best[i][m] = best[i + 1][m] + skip(i, m)
    for i in range(n, -1, -1):
        for j in range(m - 1, -1, -1):
            score = best[i][j + 1]  # new[j] is a new line
            if i < n:
                score = max(score, best[i + 1][j] + skip(i, j))
                if (g := gain(i, j)) > 0:
                    score = max(score, best[i + 1][j + 1] + g)
            best[i][j] = score
    fills: dict[int, list[str]] = {g: [] for g in gaps}
    i = j = 0
    while i < n:  # walk the best path: matches first, then elisions, then new lines
        if j < m and (g := gain(i, j)) > 0 and best[i][j] == best[i + 1][j + 1] + g:
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j] + skip(i, j) or j == m:
            if j in gaps and skip(i, j) == 0.0:
                fills[j].append(old[i])
            i += 1
        else:
            j += 1
    return fills


def _gap_indent(marker: str, kept: list[str], at: int) -> int:
    """The least indentation of the lines a marker stands for: its own, or less where the next line
    written is indented less (a marker indented carelessly at the top)."""
    indent = len(marker) - len(marker.lstrip())
    following = next((line for line in kept[at:] if line.strip()), None)
    return indent if following is None else min(indent, len(following) - len(following.lstrip()))


@functools.lru_cache(maxsize=8192)
def _likeness(a: str, b: str) -> float:
    """How much `b` reads as an edit of `a` (`df.plot()` → `df.plot(title="x")`), both stripped: their
    difflib ratio, where it is at least 0.6 or they share a long prefix; 0 where they are unlike."""
    ratio = SequenceMatcher(None, a, b, autojunk=False).ratio()
    prefix = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        prefix += 1
    return ratio if ratio >= 0.6 or (prefix >= 6 and prefix * 2 >= min(len(a), len(b))) else 0.0


def _opens_block(lines: list[str]) -> bool:
    last = next((line for line in reversed(lines) if line.strip()), "")
    return last.split("#", 1)[0].rstrip().endswith(":")


def _copies_original(answer: str, original: str) -> bool:
    """While streaming an answer with no fence: whether it is the cell being written out, unfenced."""
    a, o = answer.lstrip("\n"), original.lstrip("\n")
    if not a.strip() or not o.strip():
        return False
    return o.startswith(a) or a.startswith(o.split("\n", 1)[0] + "\n")


def _trim_blank_edges(text: str, original: str) -> str:
    """Blank lines the model put at the block's edges, where the original has none there."""
    if original.split("\n", 1)[0].strip():
        text = text.lstrip("\n")
    if not original.endswith("\n"):
        text = text.rstrip("\n")
    return text


def _stripped(text: str) -> frozenset[str]:
    return frozenset(line.strip() for line in text.split("\n"))


def _keys(text: str) -> list[str]:
    return _keys_of(text.split("\n"))


def _keys_of(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines]
