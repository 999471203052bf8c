"""The line memory (`completion.line_memory`): what other notebooks write, read from a table built as
`ghostbook train line-table` builds it, and offered by the candidates after the notebook's own."""

from __future__ import annotations

from ghostbook.completion.candidates import candidates
from ghostbook.completion.line_memory import LineMemory, code_lines, line_memory, table_json

NOTEBOOKS = [
    ("a", "import seaborn as sns\npenguins = sns.load_dataset(\"penguins\")\nsns.pairplot(penguins)\n"),
    ("b", "import seaborn as sns\npenguins = sns.load_dataset(\"penguins\")\n# a comment\nsns.pairplot(penguins)\n"),
    ("c", "import seaborn as sns\npenguins = sns.load_dataset(\"penguins\").dropna()\nsns.set_theme()\n"),
    ("d", "import pandas as pd\ndf = pd.read_csv('a.csv')\ndf.head()\n%matplotlib inline\nx_min = 0\n"),
    ("e", "df.head()\ndf.describe()\n"),
    ("f", "df.head()\ndf.info()\n"),
]


def memory() -> LineMemory:
    return LineMemory.from_json(table_json(NOTEBOOKS))


def test_the_rests_of_the_lines_that_begin_as_the_typed_text_the_commonest_first() -> None:
    m = memory()
    assert m.rests("penguins = sns.") == ['load_dataset("penguins")', 'load_dataset("penguins").dropna()']
    assert m.rests("    penguins = sns.", limit=1) == ['load_dataset("penguins")']  # indentation aside
    assert m.rests("sns.") == ["pairplot(penguins)", "set_theme()"]  # 2 notebooks, then 1
    assert m.rests("df") == [] and m.rests("zzz = ") == []  # too short to say; no such line


def test_the_line_after_one_where_half_the_notebooks_with_it_go_on_so() -> None:
    m = memory()
    # after the load line, 2 of 2 notebooks go on with the pairplot; the comment between is no line
    assert m.after('penguins = sns.load_dataset("penguins")') == ["sns.pairplot(penguins)"]
    # `df.head()` is in 3 notebooks, each going on differently: none is the idiom
    assert m.after("df.head()") == []
    # a magic is no code line (`x_min = 0` follows `df.head()` in notebook d); a rare line's one follower is
    assert "%matplotlib inline" not in m.lines and m.after("import pandas as pd") == ["df = pd.read_csv('a.csv')"]


def test_a_comment_is_a_key_for_the_code_line_below_it_never_a_line_to_offer() -> None:
    m = LineMemory.from_json(table_json([
        ("a", "# -*- coding: utf-8 -*-\nimport os\n# Load the data\ndf = load()\n"),
        ("b", "# -*- coding: utf-8 -*-\nimport os\n"),
        ("c", "# Load the data\n\ndf = read()\n#\nx = 1\n"),
    ]))
    assert m.after("# -*- coding: utf-8 -*-") == ["import os"]  # 2 of 2 notebooks
    assert m.after("# Load the data") == ["df = load()", "df = read()"]  # a blank line between counts as nothing
    assert m.after("#") == [] and m.rests("# Lo") == [] and m.rests("# -*- ") == []
    assert m.after("import os") == ["df = load()"]  # code after code: the comment between is no line


def test_code_lines_skip_comments_magics_and_long_data_lines() -> None:
    assert code_lines("  # c\n%time x\n!ls\nx = 1  \n\n" + "y = [" + "1, " * 100 + "]\n") == ["x = 1"]


def test_a_table_of_another_shape_is_an_empty_memory() -> None:
    for data in (None, [], {"lines": [["b", 1], ["a", 1]]}, {"lines": [["a", "x"]]}, {"next": [[0, 5, 1]]}):
        m = LineMemory.from_json(data)
        assert m.rests("abc") == [] and m.after("a") == []


def test_the_shipped_table_completes_the_notebook_idioms_the_notebook_does_not_hold() -> None:
    """The notebook has no `train_test_split` nor a `load_dataset` line: the shipped table has both."""
    assert line_memory().lines, "the package ships completion/data/notebook_lines.json.gz"
    assert "model_selection import train_test_split" in candidates("from sklearn.", "import numpy as np\n", "")
    assert 'load_dataset("penguins")' in candidates("penguins = sns.", "import seaborn as sns\n", "")


def test_the_notebook_s_own_lines_come_before_the_table_s() -> None:
    before = "import seaborn as sns\npenguins = sns.load_dataset('penguins', cache=True)\n"
    found = candidates("penguins = sns.", before, "")
    assert found[0] == "load_dataset('penguins', cache=True)"


def test_a_table_line_that_reads_names_the_notebook_lacks_is_someone_else_s_code() -> None:
    """After `result = []` the table's one follower is `for value in strings:` (a single notebook's):
    no `strings` here, so not offered (it won as a copy and cut a function's body to one line in the
    browser test `e2e/test_ghost_lines.py`). Names the line binds, attributes, keyword arguments and
    strings need not be known."""
    assert line_memory().after("result = []") == ["for value in strings:"]
    assert "for value in strings:" not in " ".join(candidates("    ", "def f(string):\n    result = []\n", ""))
    assert candidates("", "strings = ['a']\nresult = []\n", "") == ["for value in strings:"]  # it has them
    assert 'load_dataset("penguins")' in candidates("penguins = sns.", "import seaborn as sns\n", "")


def test_an_alias_the_notebook_uses_gets_the_import_other_notebooks_write() -> None:
    """`pdr.get_data_yahoo(...)` below and no import of `pdr`: after `import `, and as a line below the
    imports, `pandas_datareader as pdr`, as the shipped table's notebooks import it (the usual
    aliases' table has no `pdr`)."""
    notebooks = [("a", "import statsmodels.api as sm\n"), ("b", "import statsmodels as sm\n"),
                 ("c", "import statsmodels.api as sm\n")]
    memory = LineMemory.from_json(table_json(notebooks))
    assert memory.import_as("sm") == "statsmodels.api as sm" and memory.import_as("np") is None
    assert line_memory().import_as("pdr") == "pandas_datareader as pdr"
    below = 'dta = pdr.get_data_fred("GDP")\n'
    assert candidates("import ", "import numpy as np\n", below) == ["pandas_datareader as pdr"]
    assert "import pandas_datareader as pdr" in candidates("", "import numpy as np\n", below)
    assert line_memory().import_as("stats") is None  # `import scipy.stats as stats`: `from scipy import stats`
