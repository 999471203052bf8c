"""`decoding.statements.NewStatement`: a mid-line suggestion never starts a new statement on the
cursor's line, nor a keyword after `X.` (issue 30, item 6: a remote server's `plt.` ->
`from matplotlib.tri._trifinder import TriFinder`, `df.` -> `from __future__ import annotations`);
Python's own mid-line uses of those keywords stay."""

from __future__ import annotations

import pytest
from ghostbook.completion.garbage import garbage_reason
from ghostbook.decoding.statements import NewStatement
from ghostbook.decoding.suggestion import SuggestionRules

PLT = "import matplotlib.pyplot as plt\nfig, ax = plt."
DF = "import pandas as pd\ndf = pd.read_csv('sales.csv')\ndf."


@pytest.mark.parametrize(("before", "text"), [
    (PLT, "from matplotlib.tri._trifinder import TriFinder"),  # the two suggestions
    (DF, "from __future__ import annotations"),
    (PLT, " from matplotlib.tri._trifinder import TriFinder"),
    (DF, "import os"),
    (DF, "True"),
    ("total = df.", "def f():"),
    ("%timeit np.", "from x import y"),
    ("x = ", "import os"),
    ("x = ", "from os import path"),
    ("print(x) ", "return y"),
    ("d = {'a':", " return 1"),  # a dict's colon is no block's
    ("d = {\n    'a':", " import os"),
    ("values = [1, 2] ", "while True:"),
])
def test_a_new_statement_mid_line_is_dropped(before: str, text: str) -> None:
    assert NewStatement(before).cut(text) == ""
    assert SuggestionRules.around(before, "").enforce(text) == ""
    assert garbage_reason(text, cell_before=before) == "starts a new statement"


@pytest.mark.parametrize(("before", "text"), [
    (PLT, "subplots()"),
    (PLT, "subplots(figsize=(10, 8))\nax.plot(x, y)"),
    (DF, "from_dict(d)"),  # a name that begins like a keyword
    ("plt.sub", "plots()"),  # the name the cursor is in goes on
    ("from matplotlib ", "import pyplot as plt"),
    ("from . ", "import utils"),
    ("from .", " import utils"),
    ("from .", "utils import helper"),
    ("raise ValueError(x) ", "from e"),
    ("x = yield ", "from gen()"),
    ("if x: ", "return y"),
    ("x = 1; ", "import os"),
    ("async ", "def f():"),
    ("y = 1 if x ", "else 2"),
    ("[a for a in b ", "if a]"),
    ("with open(f) ", "as h:"),
    ("x = lambda: ", "None"),
    ("s = 'abc ", "import os"),  # in a string
    ("x = 1  # see ", "import os"),  # in a comment
    ("", "import os"),  # at a line's start: not mid-line
    ("    ", "return x"),
])
def test_what_python_takes_mid_line_stays(before: str, text: str) -> None:
    assert NewStatement(before).cut(text) == text


def test_a_newline_where_the_line_cannot_end_is_dropped_too() -> None:
    """A suggestion that leaves `plt.` for a line of its own: the indentation rule's (`LeadingSpace`),
    the same final rules."""
    for before, text in ((PLT, "\nfrom matplotlib.tri._trifinder import TriFinder"),
                         (DF, "\nfrom __future__ import annotations")):
        assert NewStatement(before).cut(text) == text
        assert SuggestionRules.around(before, "").enforce(text) == ""
