"""New lines that say nothing (`decoding.fragments`): a lone name the notebook never mentions, an
empty comment; the beam's likeliest line that is no fragment wins, and the plan asks for it only on a
new line."""

from __future__ import annotations

from ghostbook.completion.context import CellText, ContextBuilder
from ghostbook.completion.prompt import make_prompt
from ghostbook.decoding import search
from ghostbook.decoding.fragments import Fragments, NoImport
from ghostbook.decoding.lines import AllFit
from ghostbook.decoding.plan import Around, Choices, DecodePlan
from ghostbook.decoding.syntax_fit import SyntaxFit
from ghostbook.decoding.tokens import TokenIndex
from ghostbook.models.backend import TokenOut
from ghostbook.models.llamacpp_backend import LlamaCppBackend

from tests.decoding.test_beam import EOT, PIECES, TableModel, beam_line, table_model

NOTEBOOK = "import pandas as pd\nsales = pd.read_csv('sales.csv')\n"


def test_a_lone_unknown_name_or_an_empty_comment_is_a_fragment() -> None:
    rule = Fragments(NOTEBOOK)
    assert not rule.fits(b"s") and not rule.fits(b"    se ") and not rule.fits(b"#")
    assert rule.fits(b"sales") and rule.fits(b"sales.head()") and rule.fits(b"# plot it") and rule.fits(b")")
    # a rule of dashes (the walks' new cells: `# ----------------`) says nothing either; `# 1.` does
    assert not rule.fits(b"# ----------------") and not rule.fits(b"#####") and rule.fits(b"# 1.")
    both = AllFit([SyntaxFit("x = 1\n", ""), rule])
    assert both.fits(b"sales") and not both.fits(b"s") and not both.fits(b"sales)")


def test_a_name_assigned_to_itself_is_a_fragment() -> None:
    """Seen on the notebook benchmark at new lines: `data = data`, `ax = ax`, `s = s`: they do nothing."""
    rule = Fragments(NOTEBOOK)
    assert not rule.fits(b"sales = sales") and not rule.fits(b"    self.x = self.x") and not rule.fits(b"s=s")
    assert rule.fits(b"sales = sales2") and rule.fits(b"sales = sales.dropna()") and rule.fits(b"sales == sales")


def test_a_lone_imported_name_is_a_fragment() -> None:
    """`sns` or `nx` alone shows a module: no line; a variable of the notebook still is one."""
    rule = Fragments("import seaborn as sns\nimport os.path\nfrom sklearn import datasets, svm as S\n" + NOTEBOOK)
    assert not rule.fits(b"sns") and not rule.fits(b"os") and not rule.fits(b"datasets") and not rule.fits(b"S")
    assert not rule.fits(b"pd") and rule.fits(b"sales") and rule.fits(b"sns.set_theme()") and rule.fits(b"svm.SVC()")


def test_a_lone_name_the_notebook_writes_only_before_a_dot_is_a_fragment() -> None:
    """`nx` only ever as `nx.`: a module whose import the prompt may not reach; `G` also stands alone."""
    rule = Fragments("G = nx.Graph()\nnx.draw(G)\npos = nx.spring_layout(G)\n")
    assert not rule.fits(b"nx") and rule.fits(b"G") and rule.fits(b"pos") and rule.fits(b"nx.draw(G)")


def test_an_import_of_nothing_new_is_a_fragment() -> None:
    """Seen on the notebook benchmark at new lines below imports: `import s`, `import mat`, `import sns`,
    `import numpy` (below `import numpy as np`). A new module, or an alias of one, stays a line."""
    rule = Fragments("import numpy as np\nimport seaborn as sns\nimport matplotlib.pyplot as plt\n")
    for line in (b"import s", b"import mat", b"import sns", b"import np", b"import numpy", b"import matplotlib.pyplot"):
        assert not rule.fits(line), line
    for line in (b"import pandas as pd", b"import matplotlib", b"import time", b"import numpy.linalg as la",
                 b"from scipy import stats"):
        assert rule.fits(line), line


def test_the_likeliest_line_that_is_no_fragment_wins() -> None:
    """"a" (0.6) ends at once; "x" (0.4) is the notebook's name: it wins where "a" is a fragment."""
    seek, _ = table_model({(): {1: 0.6, 4: 0.4}, (1,): {3: 0.9}, (4,): {3: 0.9}})
    index = TokenIndex(PIECES, {EOT})
    assert beam_line(seek, index, {EOT}) == [1, 3]
    assert beam_line(seek, index, {EOT}, fits=Fragments("x = 1\n").fits) == [4, 3]


def test_only_a_new_line_asks_for_it() -> None:
    def plan(head: str) -> DecodePlan:
        text = NOTEBOOK + head
        return DecodePlan.around(Around(text, "", text, ""), b"", 16, frozenset(), Choices(beam=4))

    new_line = plan("").rules.syntax
    assert new_line is not None and not new_line.fits(b"s") and new_line.fits(b"sales.head()")
    mid_line = plan("total = s").rules.syntax
    assert mid_line is not None and mid_line.fits(b"s")


def test_a_lone_name_above_more_code_or_in_a_block_is_a_fragment() -> None:
    """In the middle of a cell `G` does nothing (IPython shows only the last line's value): seen on the
    notebook benchmark as the beam's short line where `G.add_edge(...)` was meant. Keywords stay lines."""
    text = "import networkx as nx\nG = nx.Graph()\nG.add_edge(1, 2)\n"
    mid = Fragments(text, shown=False)
    assert not mid.fits(b"G") and not mid.fits(b"print") and mid.fits(b"G.add_edge(2, 3)")
    assert mid.fits(b"break") and mid.fits(b"return") and mid.fits(b"pass")
    last = Fragments(text)
    assert last.fits(b"G") and not last.fits(b"    G")  # the cell's last line shows it; a block's body does not


def test_the_plan_knows_where_a_lone_name_shows() -> None:
    def fits(cell_prefix: str, cell_suffix: str, line: bytes) -> bool:
        text = Around(NOTEBOOK + cell_prefix, cell_suffix, cell_prefix, cell_suffix)
        fit = DecodePlan.around(text, b"", 16, frozenset(), Choices(beam=4)).rules.syntax
        return fit is None or fit.fits(line)

    assert fits("sales.head()\n", "", b"sales")  # the cell's last line: its value shows
    assert fits("sales.head()\n", "\n# done\n", b"sales")  # a comment below is no code
    assert not fits("sales.head()\n", "\nsales.tail()\n", b"sales")  # above more code: it does nothing
    assert not fits("for s in [sales]:\n    ", "", b"sales")  # a block's body
    assert fits("print(\n    ", "\n)\n", b"sales")  # in brackets: an argument


def test_greedy_does_not_end_a_first_line_that_is_a_fragment() -> None:
    """Where the beam ran out of time, greedy finished its line and the model ended it at once (`import
    mat`, `color_p`): with the beam's rule greedy goes on to "ab" (b, 0.1) where "a" would end (0.8)."""
    seek, _ = table_model({(): {1: 0.9}, (1,): {EOT: 0.8, 2: 0.1}, (1, 2): {EOT: 0.9}})
    fragments = Fragments("ab = 1\n")  # "a" is no name of the notebook's, "ab" is

    def greedy(fit: Fragments | None, written: bytes = b"") -> list[int]:
        out: list[TokenOut] = []
        run = search.Run(TableModel(seek), TokenIndex(PIECES, {EOT}), {EOT}, lambda: False, out.append)
        search.greedy(run, 8, fit=fit, written=written)
        return [t.id for t in out]

    assert greedy(None) == [1]
    assert greedy(fragments) == [1, 2]
    always = Fragments("")  # no name fits: greedy gives up declining after `REFUSALS` tries
    seek, _ = table_model({(): {1: 0.9}, (1,): {EOT: 0.8, 1: 0.1}})
    assert len(greedy(always)) == 1 + search.REFUSALS  # "a", then one more token per refusal


def test_each_further_line_keeps_the_words_rule() -> None:
    """Seen in the browser: at a cell's end the suggestion was `df` (the frame shown), then a line `f`,
    a name the notebook never mentions. Each further line keeps the fragments rule as a new line does."""
    cell = "import pandas as pd\n\ndf = pd.DataFrame({'x': [1]})\n\n"
    plan = DecodePlan.around(Around(cell, "", cell, ""), b"", 16, frozenset(), Choices(beam=8, read_check=False))
    assert plan.lines is not None
    fit = plan.lines.after(b"df").syntax
    assert fit is not None
    assert not fit.fits(b"f") and not fit.fits(b"df = df") and not fit.fits(b"#")
    assert fit.fits(b"df.head()") and fit.fits(b"df")
    assert not fit.fits(b"df)")  # the syntax rule still holds


def test_below_a_statement_no_import_begins() -> None:
    """Seen in writing mode: `import json` under `dict_file = '...dct'`, `import matplotlib` under a
    NumPy array, `import re` a blank line below `print(my_dataframe)`. The training notebooks write an
    import right below a statement that imports nothing after 0.25% of them, with blank or comment lines
    between after 2%; below imports, comments with no code above them in the cell, magics, block headers
    and docstrings, imports stay lines. A rule on how the line starts, which greedy keeps too (a line rule
    made greedy, finishing an import the beam ran out of time on, refuse to end it: `plt_plt_plt`)."""
    def starts(cell_prefix: str, line: bytes) -> bool:
        text = Around(NOTEBOOK + cell_prefix, "", cell_prefix, "")
        plan = DecodePlan.around(text, b"", 16, frozenset(), Choices(beam=4))
        said = [rule.allows(line) for rule in (plan.rules.indent, plan.finish.indent) if rule is not None]
        return False not in said

    for above in ("dict_file = 'setup.dct'\n", "x = np.arange(3)\n", "for s in sales:\n    print(s)\n    ",
                  "print(df)\n\n", "print(df)\n\n# Rows 1 to 3\n"):
        assert not starts(above, b"import json") and not starts(above, b"from os import path"), above
        assert starts(above, b"data_file = 'data.dat'") and starts(above, b"sales.head()"), above
    for above in ("import numpy as np\n", "# Imports\n", "%matplotlib inline\n", "if sales:\n    ",
                  'def f():\n    """Doc."""\n    ', "import os\n\n# Data\n", ""):
        assert starts(above, b"import json"), above
    rule = NoImport("importances = model.feature_importances_\nfrom_date = 1\n")
    assert rule.allows(b"imp") is None and rule.allows(b"import ") is False and rule.allows(b"from ") is False
    assert rule.allows(b"x = 1") is True and rule.allows(b"fr") is None
    # seen in the browser: kept from `import random`, the model ran the words together (`importrandom`)
    assert rule.allows(b"importr") is False and rule.allows(b"importrandom\n") is False
    assert rule.allows(b"importan") is None and rule.allows(b"importances.sort()") is True  # the notebook's
    assert rule.allows(b"from_date") is None and rule.allows(b"from_date = 2") is True
    assert rule.allows(b"frozenset(x)") is True  # a builtin
    # nor is a line left at `import` with no way on, where no name of the notebook begins so
    bare = NoImport("x = 1\n")
    assert bare.allows(b"import") is False and bare.allows(b"fro") is None and bare.allows(b"from") is False



def test_a_new_line_never_copies_the_namespace_summary(shipped: LlamaCppBackend) -> None:
    """Seen in the browser: at a new cell's first line Ctrl+Space wrote `#   ages: ndarray shape=(100,)
    dtype=int64`, a line of the prompt's namespace summary (the kernel's names), not code."""
    cells = [CellText("code", "import numpy as np\nages = np.random.randint(20, 50, 100)"), CellText("code", "")]
    builder = ContextBuilder(lambda text: len(shipped.tokenize(text)))
    ctx = builder.build(cells, 1, 0, 512, ["ages: ndarray shape=(100,) dtype=int64"])
    avoid = make_prompt(shipped, ctx, 32, beam=8).plan.rules.avoid
    assert b"#   ages: ndarray shape=(100,) dtype=int64" in avoid
    mid_line = builder.build([cells[0], CellText("code", "x = ")], 1, 4, 512, ["n: int"])
    assert not [a for a in make_prompt(shipped, mid_line, 32, beam=8).plan.rules.avoid if a.startswith(b"#")]
