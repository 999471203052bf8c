"""A file's path where a call reads one: `pd.read_csv(`, `open("da`, `np.loadtxt(fname=`.

The model invents paths (`pd.read_csv(` -> `"examples/macrodata.csv")`, a file of a notebook it trained on);
the kernel's working folder says which files there are (`kernels/ghostbook_kernel/files.py`). Where it
has said (`files`), `Paths` is a rule on how the line starts and on finished lines (as
`decoding.attributes`): a string the line opens at the path is one of the files, or a URL, spelt out to
its end; a line that passes a name instead (`pd.read_csv(url)`) is left to the other rules. Pure: no
model here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from dataclasses import dataclass

# the functions that read a file named by their first argument, and the keyword some name it by
READERS = ("open", "read_csv", "read_table", "read_excel", "read_json", "read_parquet", "read_pickle",
           "read_feather", "read_hdf", "read_stata", "read_sas", "read_spss", "read_fwf", "read_xml",
           "read_html", "ExcelFile", "loadtxt", "genfromtxt", "load", "fromfile", "imread", "loadmat",
           "open_dataset", "read_file", "load_workbook", "Image.open")
_READER = "|".join(sorted((re.escape(name) for name in READERS), key=len, reverse=True))
_AT_PATH = re.compile(rf"(?<![\w])(?:[A-Za-z_][\w.]*\.)?({_READER})\(\s*"
                      r"(?:(?:filepath_or_buffer|filepath|path|fname|file|io|filename|path_or_buf)\s*=\s*)?"
                      r"""(?:([rR]?)(['"])([^'"\\\n]*))?$""")
# a URL is never among the files; what may still become one's scheme (`http`, `https:/`)
_URL = re.compile(rb"[a-z][a-z0-9+.-]*://")
_URL_START = re.compile(rb"[a-z][a-z0-9+.-]*(?::/?)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# where code binds a name: `a, b = `, `for x in`, `as f`, `def f`, `class C`, `import os`, `from x import a, b`,
# and the kernel's namespace summary (`#   df: DataFrame ...`)
_BINDS = re.compile(r"^[ \t]*([A-Za-z_][\w, \t]*?)[ \t]*=(?!=)|\bfor[ \t]+([\w, \t()]+?)[ \t]+in\b"
                    r"|\bas[ \t]+([A-Za-z_]\w*)|\b(?:def|class)[ \t]+([A-Za-z_]\w*)"
                    r"|^[ \t]*import[ \t]+([\w.]+)|^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+([\w, \t]+)"
                    r"|^#   ([A-Za-z_]\w*): ", re.M)
_COMMENT_OR_STRING = re.compile(r"""'[^'\n]*'|"[^"\n]*"|(?<!^)#[^\n]*|^#(?!   \w+: )[^\n]*""", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([A-Za-z_][\w.]*)(?:[ \t]+as[ \t]+([A-Za-z_]\w*))?", re.M)
_NAME_START = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# what may stand before a string's quote (`r"C:\data"`, `f"{root}/x.csv"`)
_STRING_PREFIXES = frozenset({b"r", b"f", b"rf", b"fr", b"b", b"rb", b"br"})


@dataclass(frozen=True)
class PathAt:
    """The cursor at a reading call's path: `reader` the call's name (`read_csv`), `quote` the string's
    quote where the line has opened one ("" where the cursor is right after the bracket), `typed` what the
    string has so far."""

    reader: str
    quote: str
    typed: str


def path_at(head: str) -> PathAt | None:
    """Where `head` (the cursor's line up to the cursor) ends at a reading call's first argument, or
    inside the string it opens there; else None."""
    m = _AT_PATH.search(head)
    if m is None:
        return None
    return PathAt(m.group(1), m.group(3) or "", m.group(4) or "")


def bound_names(text: str) -> set[str]:
    """The names the code in `text` binds (module `_BINDS`), comments and strings left out: what a call may
    pass without a NameError (a markdown cell's words are no names)."""
    code = _COMMENT_OR_STRING.sub("", text)
    return {name for m in _BINDS.finditer(code) for group in m.groups() if group
            for name in _NAME.findall(group.split(".")[0] if group == m.group(5) else group)}


class Paths:
    """The line (bytes after the cursor, as the beam writes them) at `at`, where `files` are the paths
    there are and `names` the names the notebook has above: a string opened at the path (or the one
    already open) holds one of the files, or a URL; an f-string is built, any; a name passed is one of
    `names` (`url`, `os.path.join(`: not one the path would be a NameError on), and not a module
    passed whole (`pd)`: `modules` are the names imports bind); nothing else (`1)`, `)`)."""

    def __init__(self, at: PathAt, files: Collection[str], names: Collection[str] = (),
                 modules: Collection[str] = ()) -> None:
        self.at = at
        self.files = frozenset(name.encode() for name in files)
        self.names = frozenset(name.encode() for name in names)
        self.modules = frozenset(name.encode() for name in modules)

    @classmethod
    def around(cls, head: str, files: Collection[str] | None, above: str = "") -> Paths | None:
        """The rule where `head` ends at a reading call's path and the kernel has said which `files` there
        are (`above`: the notebook's text above the line, whose names may be passed); None elsewhere."""
        if files is None or (at := path_at(head)) is None:
            return None
        modules = {m.group(2) or m.group(1).split(".")[0] for m in _IMPORT.finditer(above)}
        return cls(at, files, bound_names(above), modules)

    @functools.cached_property
    def _prefixes(self) -> frozenset[bytes]:
        return frozenset(name[:i] for name in self.files for i in range(len(name) + 1))

    @functools.cached_property
    def _name_prefixes(self) -> frozenset[bytes]:
        return frozenset(name[:i] for name in self.names | _STRING_PREFIXES for i in range(len(name) + 1))

    def allows(self, text: bytes) -> bool | None:
        if self.at.quote:
            return self._string(self.at.typed.encode() + text, self.at.quote.encode())
        lead = text.lstrip(b" ")
        if not lead:
            return None
        if lead[:1] in (b"'", b'"'):
            return self._string(lead[1:], lead[:1])
        if (m := _NAME_START.match(lead)) is None:
            return False  # no number, no brackets' expression, not the call closed empty: a path is named
        word, after = m.group(), lead[m.end() : m.end() + 1]
        if after in (b"'", b'"') and word.lower() in _STRING_PREFIXES:
            return True if b"f" in word.lower() else self._string(lead[m.end() + 1 :], after)
        if not after:  # the name may go on (or be a string's prefix)
            return None if word in self._name_prefixes or word.lower() in self._name_prefixes else False
        return word in self.names and (after in b".([" or word not in self.modules)  # `os.path`, not `pd)`

    def _string(self, body: bytes, quote: bytes) -> bool | None:
        """Whether the string's text so far, `body` (its closing `quote` and what follows included once
        written), names one of the files or a URL; None while it may still."""
        content, closed, _ = body.partition(quote)
        if _URL.match(content):
            return True
        if not closed:
            return None if content in self._prefixes or _URL_START.fullmatch(content) else False
        return content in self.files

    def fits(self, line: bytes) -> bool:
        said = self.allows(line)
        return said is True or (said is None and not line.strip())
