"""A suggestion made mid-line goes on with the line's code: it does not start a new statement there.

After `fig, ax = plt.` a model served by llama-cpp-python's server wrote `from matplotlib.tri._trifinder
import TriFinder`, after `df.` `from __future__ import annotations`: the start of a statement (an
import, a `def`, a `return`...) or any keyword right after `X.`, where Python takes neither. The beam
never writes them (after `X.` it keeps to names, `decoding.attributes`), but a server's text has no
such search, and where the cell does not parse up to the cursor (it ends in `plt.`) the syntax rule
(`syntax_fit.SyntaxPrefix`) cannot tell. `NewStatement` is the rule every backend's suggestion keeps
(`suggestion.SuggestionRules`, the final filter): such a suggestion is dropped.

A statement's keyword stays where Python takes it mid-line: after a block's colon or a `;` outside
brackets (`if x: return y`), `import` after `from module `, `def`/`with` after `async `, and `from`
that does not start `from X import` (`raise E from e`, `yield from g`). Keywords of expressions are
left alone (`if`/`else` of a conditional, the `for` of a comprehension, `lambda`, `not`, ...).
Suggestions that start on a new line are the indentation rule's (`indentation.LeadingSpace`).
Pure: no model here.
"""

from __future__ import annotations

import functools
import io
import keyword
import re
import tokenize

from ghostbook.decoding.syntax_fit import without_magics

# keywords that only ever start a statement (`import` and `from` have rules of their own)
STATEMENT = frozenset({"assert", "break", "class", "continue", "def", "del", "elif", "except", "finally",
                       "global", "nonlocal", "pass", "raise", "return", "try", "while", "with"})
AFTER_ASYNC = frozenset({"def", "with", "for"})
_WORD = re.compile(r"[ \t]*([A-Za-z_]\w*)")
_FROM_IMPORT = re.compile(r"[ \t]*from[ \t]+[\w.]+[ \t]+import\b")  # the suggestion is a from-import
_FROM_HEAD = re.compile(r"(?:^|;)[ \t]*from[ \t]+[\w.]+[ \t]+$|(?:^|;)[ \t]*from[ \t]+\.+$")  # `from x ` | `from .`
OPENERS, CLOSERS = frozenset("([{"), frozenset(")]}")
_SKIP = (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT)


class NewStatement:
    """The rule for a suggestion at the end of `before` (the cursor's cell up to the cursor): dropped
    ("") where it starts a new statement on the cursor's line, or a keyword right after `X.`."""

    def __init__(self, before: str) -> None:
        self.before = before
        self.head = before.rsplit("\n", 1)[-1]

    def cut(self, text: str) -> str:
        return "" if self.starts_statement(text) else text

    def starts_statement(self, text: str) -> bool:
        if not self.head.strip():
            return False  # not mid-line
        first = text.split("\n", 1)[0]
        m = _WORD.match(first)
        if m is None or not keyword.iskeyword(m.group(1)):
            return False
        if m.start(1) == 0 and (self.head[-1].isalnum() or self.head[-1] == "_"):
            return False  # it goes on with the name the cursor is in (`plt.sub` + `plots()`)
        word, last = m.group(1), self._last
        if last is None:
            return False  # in a string or a comment, or code the tokenizer cannot read
        token, depth = last
        statement_place = token in (":", ";") and depth == 0
        if word == "import":
            return not (_FROM_HEAD.search(self.head) or statement_place)
        if token == ".":
            return True  # after `X.` comes a name, never a keyword
        if word == "from":
            return _FROM_IMPORT.match(first) is not None and not statement_place
        if word in STATEMENT:
            return not (statement_place or (token == "async" and word in AFTER_ASYNC))
        return False

    @functools.cached_property
    def _last(self) -> tuple[str, int] | None:
        """The last token before the cursor and the brackets open there; None where the cursor is in a
        string or a comment, or the code cannot be read."""
        above, sep, head = self.before.rpartition("\n")
        code = without_magics(above) + sep + head
        last, depth = None, 0
        try:
            for tok in tokenize.generate_tokens(io.StringIO(code).readline):
                if tok.type == tokenize.ERRORTOKEN and not tok.string.isspace():
                    return None  # a string left open on the cursor's line
                if tok.type in _SKIP:
                    continue
                if tok.type == tokenize.OP and tok.string in OPENERS:
                    depth += 1
                elif tok.type == tokenize.OP and tok.string in CLOSERS:
                    depth = max(0, depth - 1)
                last = tok
        except tokenize.TokenError as exc:
            if "statement" not in str(exc.args[0]):  # a string left open over lines
                return None
        except (SyntaxError, ValueError):
            return None
        if last is None or last.type == tokenize.COMMENT:
            return None
        return last.string, depth
