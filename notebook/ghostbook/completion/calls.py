"""The rest of a call from other calls of the same function in the notebook: `plt.subplots(1, 2, `
with `plt.subplots(2, 2, figsize=(10, 8))` above -> `figsize=(10, 8))`.

Notebooks call the same functions again and again with other arguments; the arguments after the ones
typed so far are, more often than a 3.4M model's guess, those of another call: the same keyword
arguments, the same styling. At the start of an argument (after `f(` or `, `), each other call of the
same callee (the dotted name before the bracket) on one line gives its arguments from the cursor's
argument's position on (a call with fewer arguments, its keyword arguments: `plt.subplots(1, 2, `
with `plt.subplots(figsize=(8, 4))` above -> `figsize=(8, 4))`), without the keyword arguments the
cursor's call already has, closed as the cursor's line needs. Pure text, no model here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CALLEE = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\s*$")
_KEYWORD = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)")
_PAIRS = {"(": ")", "[": "]", "{": "}"}


def call_rests(head: str, before: str, after: str) -> list[str]:
    """For the cursor at an argument's start in `head` (the cursor's line up to the cursor): the rests
    that other calls of the same callee in `before` and `after` (the notebook above and below the
    cursor's line) suggest, the nearest calls above first, then those below."""
    if not head.rstrip(" ").endswith(("(", ",")):
        return []
    opened = _open_call(head)
    if opened is None:
        return []
    start, callee = opened
    typed = _arguments(head[start + 1 :])
    if typed is None:
        return []
    done = [a for a in typed if a.strip()]
    used = {m.group(1) for a in done if (m := _KEYWORD.match(a))}
    ending = closers(head[:start])
    spaced = head.endswith(" ") or head.endswith("(")
    out: list[str] = []
    for args in [*reversed(list(_calls(callee, before))), *_calls(callee, after)]:
        rest = [a.strip() for a in args[len(done) :] if not ((m := _KEYWORD.match(a)) and m.group(1) in used)]
        if len(args) <= len(done):  # no more positions there: its keyword arguments the cursor's call lacks
            rest = [a.strip() for a in args if (m := _KEYWORD.match(a)) and m.group(1) not in used]
        if not rest:
            continue
        line = ("" if spaced else " ") + ", ".join(rest) + ")" + ending
        if line not in out:
            out.append(line)
    return out


def outside_strings(text: str) -> tuple[list[tuple[int, str]], bool]:
    """The characters of `text` outside its string literals (quotes dropped), with their indexes, and
    whether `text` ends inside a string (roughly: no escapes, no triple quotes)."""
    out: list[tuple[int, str]] = []
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            out.append((i, ch))
    return out, bool(quote)


def _open_call(head: str) -> tuple[int, str] | None:
    """The innermost bracket `head` leaves open, if it is a call's `(`: its index and the callee."""
    stack: list[int] = []
    chars, in_string = outside_strings(head)
    for i, ch in chars:
        if ch in _PAIRS:
            stack.append(i)
        elif ch in ")]}" and stack:
            stack.pop()
    if in_string or not stack or head[stack[-1]] != "(":
        return None
    m = _CALLEE.search(head[: stack[-1]])
    return None if m is None or m.group(1)[-1] == "." else (stack[-1], m.group(1))


def _arguments(text: str) -> list[str] | None:
    """`text` (a call's inside, perhaps up to its `)`) split at its top-level commas; None where a
    bracket closes one it did not open."""
    args, depth, begun = [], 0, 0
    for i, ch in outside_strings(text)[0]:
        if ch in _PAIRS:
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            args.append(text[begun:i])
            begun = i + 1
    args.append(text[begun:])
    return args


def _calls(callee: str, text: str) -> Iterable[list[str]]:
    """The argument lists of the calls of `callee` in `text` that close on their own line, in order."""
    for m in re.finditer(r"(?<![\w.])" + re.escape(callee) + r"\s*\(", text):
        line_end = text.find("\n", m.end())
        line = text[m.end() : line_end if line_end >= 0 else len(text)]
        end = _call_end(line)
        if end is not None and end > 0:
            args = _arguments(line[:end])
            if args is not None and all(a.strip() for a in args):
                yield args


def _call_end(line: str) -> int | None:
    """The index of the `)` that closes a call whose inside `line` starts; None if the line does not."""
    depth = 0
    for i, ch in outside_strings(line)[0]:
        if ch in _PAIRS:
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return i if ch == ")" else None
            depth -= 1
    return None


def closers(text: str) -> str:
    """What closes the brackets `text` leaves open (strings skipped roughly)."""
    stack: list[str] = []
    for _, ch in outside_strings(text)[0]:
        if ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif ch in ")]}" and stack and stack[-1] == ch:
            stack.pop()
    return "".join(reversed(stack))
