"""Offline fixes on real errors: each cell runs in a real ipykernel, the fix is read from its error output
and the kernel's namespace summary, and the fixed cell is run again in the same kernel."""

from __future__ import annotations

import dataclasses

import pytest
from ghostbook.editing.fixes import (
    ErrorInfo,
    NamespaceFacts,
    attribute_owners,
    import_line,
    insert_import,
    misspelt_name,
    propose_fix,
)

from tests.editing.conftest import RealKernel


def fix_in_kernel(kernel: RealKernel, setup: list[str], cell: str, *, runs: bool = True) -> tuple[str, str] | None:
    """Run `setup` then `cell` in a fresh namespace; the proposed fix of the cell's error (new source,
    description), checked to run without error where `runs`."""
    kernel.reset()
    for code in setup:
        assert kernel.run(code) is None, code
    error = kernel.run(cell)
    assert error is not None, "the cell should fail"
    fix = propose_fix(cell, error, [*setup, cell], NamespaceFacts.from_lines(kernel.namespace()))
    if fix is None:
        return None
    if runs:
        assert kernel.run(fix.source) is None, fix.source
    return fix.source, fix.description


def test_missing_alias_import_goes_after_leading_comments_and_magics(kernel: RealKernel) -> None:
    cell = "# Arrays\n%config InlineBackend.figure_format = 'png'\nx = np.zeros(3)\nx.sum()"
    fixed = fix_in_kernel(kernel, [], cell)
    assert fixed == ("# Arrays\n%config InlineBackend.figure_format = 'png'\nimport numpy as np\n"
                     "x = np.zeros(3)\nx.sum()", "Add `import numpy as np`")


def test_missing_import_joins_the_imports_that_open_the_cell(kernel: RealKernel) -> None:
    cell = "from __future__ import annotations\nimport math\n\nout = defaultdict(list)\nout[math.pi].append(1)"
    fixed = fix_in_kernel(kernel, [], cell)
    assert fixed is not None
    assert fixed[0] == ("from __future__ import annotations\nimport math\nfrom collections import defaultdict\n\n"
                        "out = defaultdict(list)\nout[math.pi].append(1)")


def test_missing_stdlib_module_used_as_a_module(kernel: RealKernel) -> None:
    fixed = fix_in_kernel(kernel, [], "here = os.getcwd()")
    assert fixed == ("import os\nhere = os.getcwd()", "Add `import os`")


def test_an_alias_the_notebooks_use_is_imported_as_they_do() -> None:
    assert import_line("plt") == "import matplotlib.pyplot as plt"
    assert import_line("dt") == "import datetime as dt"
    assert import_line("train_test_split") == "from sklearn.model_selection import train_test_split"
    assert import_line("os", used_as_module=False) is None  # `os(...)`: not a module's use
    assert import_line("revnue") is None


def test_misspelt_variable_from_the_kernel(kernel: RealKernel) -> None:
    fixed = fix_in_kernel(kernel, ["revenue = 10"], "total = revnue * 2\nlabel = 'revnue'  # revnue")
    assert fixed == ("total = revenue * 2\nlabel = 'revnue'  # revnue", "Replace `revnue` with `revenue`")


def test_misspelt_builtin(kernel: RealKernel) -> None:
    fixed = fix_in_kernel(kernel, [], "pritn('hello')")
    assert fixed == ("print('hello')", "Replace `pritn` with `print`")


def test_a_name_defined_in_a_cell_not_run_yet_counts(kernel: RealKernel) -> None:
    kernel.reset()
    error = kernel.run("scaled = measurment * 2")
    assert error is not None
    cells = ["measurement = 3.5", "scaled = measurment * 2"]
    fix = misspelt_name(cells[1], error, cells, NamespaceFacts())
    assert fix is not None and fix.source == "scaled = measurement * 2"


def test_a_name_a_cell_defines_is_no_misspelling(kernel: RealKernel) -> None:
    kernel.reset()
    assert kernel.run("revenues = [1, 2]") is None
    error = kernel.run("total = revenue * 2")
    assert error is not None
    cells = ["revenues = [1, 2]", "total = revenue * 2", "revenue = sum(revenues)"]  # the last not run yet
    assert propose_fix(cells[1], error, cells, NamespaceFacts.from_lines(kernel.namespace())) is None
    assert propose_fix(cells[1], error, cells[:2], NamespaceFacts.from_lines(kernel.namespace())) is not None


def test_two_names_as_close_prove_nothing(kernel: RealKernel) -> None:
    assert fix_in_kernel(kernel, ["data1 = 1\ndata2 = 2"], "data3 + 1") is None


def test_module_attribute_from_the_attribute_table(kernel: RealKernel) -> None:
    fixed = fix_in_kernel(kernel, ["import json"], "rows = json.lods('[1, 2]')")
    assert fixed == ("rows = json.loads('[1, 2]')", "Replace `.lods` with `.loads`")
    fixed = fix_in_kernel(kernel, ["import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt"],
                          "plt.plot([1, 2])\nplt.xlable('x')")
    assert fixed is not None and fixed[0] == "plt.plot([1, 2])\nplt.xlabel('x')"


def test_module_attribute_of_a_module_named_otherwise(kernel: RealKernel) -> None:
    # os.path is `posixpath` in the error
    fixed = fix_in_kernel(kernel, ["import os"], "p = os.path.joinn('a', 'b')")
    assert fixed is not None and fixed[0] == "p = os.path.join('a', 'b')"


def test_object_attribute_from_the_notebooks_other_uses(kernel: RealKernel) -> None:
    setup = ["class Model:\n    def fit(self, x):\n        return x\n\nm = Model()", "first = m.fit(1)"]
    fixed = fix_in_kernel(kernel, setup, "second = m.fitt(2)")
    assert fixed == ("second = m.fit(2)", "Replace `.fitt` with `.fit`")


def test_object_attribute_from_the_kernels_dir(kernel: RealKernel) -> None:
    kernel.reset()
    assert kernel.run("class Model:\n    def predict(self, x):\n        return x\n\nm = Model()") is None
    error = kernel.run("m.predcit(1)")
    assert error is not None
    facts = NamespaceFacts.from_lines(kernel.namespace())
    assert propose_fix("m.predcit(1)", error, [], facts) is None  # nothing says what `m` has
    owners = attribute_owners(error, facts)
    assert owners == ["m"]
    # what a caller asks the kernel for the owners, before asking again
    kernel.run("__attrs = [n for n in dir(m) if not n.startswith('_')]")
    reply = kernel.client.execute_interactive("", silent=True, user_expressions={"a": "__attrs"})
    attrs = tuple(eval(reply["content"]["user_expressions"]["a"]["data"]["text/plain"]))
    facts = dataclasses.replace(facts, attributes={"m": attrs})
    fix = propose_fix("m.predcit(1)", error, [], facts)
    assert fix is not None and fix.source == "m.predict(1)"


def test_dict_key_replaces_only_that_string_literal(kernel: RealKernel) -> None:
    setup = ["totals = {'total': 3, 'price': 2}"]
    cell = 'totl = 1\nprint(totals["totl"], totals[\'price\'])  # totl'
    fixed = fix_in_kernel(kernel, setup, cell)
    assert fixed == ('totl = 1\nprint(totals["total"], totals[\'price\'])  # totl', "Replace `'totl'` with `'total'`")


FRAME = """class Frame:
    columns = ['price', 'qty', 'total']
    def __getitem__(self, key):
        if key not in self.columns:
            raise KeyError(key)
        return key

sales = Frame()"""


def test_column_of_a_frame_like_value(kernel: RealKernel) -> None:
    fixed = fix_in_kernel(kernel, [FRAME], "sales['qyt']")
    assert fixed == ("sales['qty']", "Replace `'qyt'` with `'qty'`")


@pytest.mark.parametrize("cell", ["df['totl'].sum()", "df[['price', 'totl']]"])
def test_pandas_keyerror(kernel: RealKernel, cell: str) -> None:
    pytest.importorskip("pandas")  # not among the test dependencies
    fixed = fix_in_kernel(kernel, ["import pandas as pd\ndf = pd.DataFrame({'price': [1.0], 'total': [2]})"], cell)
    assert fixed is not None and "'total'" in fixed[0] and "totl" not in fixed[0]


def test_pandas_attributes(kernel: RealKernel) -> None:
    pytest.importorskip("pandas")  # not among the test dependencies
    setup = ["import pandas as pd\ndf = pd.DataFrame({'day': [1, 1], 'total': [2, 3]})"]
    assert fix_in_kernel(kernel, setup, "df.totl.sum()") == ("df.total.sum()", "Replace `.totl` with `.total`")
    assert fix_in_kernel(kernel, setup, "df.groupyb('day').sum()") is None  # nothing says what a DataFrame has
    setup.append("first = df.groupby('day').total.first()")
    assert fix_in_kernel(kernel, setup, "df.groupyb('day').sum()") == ("df.groupby('day').sum()",
                                                                      "Replace `.groupyb` with `.groupby`")
    fixed = fix_in_kernel(kernel, setup[:1], "frame = pd.read_cvs('x.csv')", runs=False)
    assert fixed == ("frame = pd.read_csv('x.csv')", "Replace `.read_cvs` with `.read_csv`")


def test_missing_package_has_no_fix_in_the_cell(kernel: RealKernel) -> None:
    assert fix_in_kernel(kernel, [], "import ghostbook_no_such_package") is None


def test_import_wins_over_a_close_name(kernel: RealKernel) -> None:
    fixed = fix_in_kernel(kernel, ["npx = 1"], "a = np.ones(2)")
    assert fixed is not None and fixed[0] == "import numpy as np\na = np.ones(2)"


def test_namespace_facts_from_the_kernels_lines(kernel: RealKernel) -> None:
    kernel.reset()
    assert kernel.run("import numpy as np\narr = np.zeros((2, 3))\nd = {'a': 1, 2: 'b', 'c': 3}\n"
                      "def area(w, h):\n    return w * h\n\nclass Point:\n    pass\n\n" + FRAME) is None
    facts = NamespaceFacts.from_lines(kernel.namespace())
    assert facts.types["arr"] == "ndarray" and facts.types["d"] == "dict"
    assert facts.types["area"] == "function" and facts.types["Point"] == "class"
    assert facts.keys["d"] == ("a", "c")
    assert facts.columns["sales"] == ("price", "qty", "total")
    assert "np" not in facts.types  # modules are not reported


def test_namespace_facts_read_dataframe_lines_cut_short() -> None:
    facts = NamespaceFacts.from_lines([
        "df: DataFrame shape=(100, 3) columns=[price: float64, when: datetime64[ns, UTC], qty: int64]",
        "wide: DataFrame shape=(5, 40) columns=[a: int64, b: int64, c: obj...",
        "many: DataFrame shape=(5, 40) columns=[a: int64, b: int64, ...]",
        "...",
    ])
    assert facts.columns == {"df": ("price", "when", "qty"), "wide": ("a", "b"), "many": ("a", "b")}


def test_insert_import_keeps_magics_first_and_a_trailing_newline() -> None:
    assert insert_import("%%time\nx = np.ones(1)\n", "import numpy as np") == \
        "%%time\nimport numpy as np\nx = np.ones(1)\n"
    assert insert_import("", "import os") == "import os"
    assert insert_import("!pip list\n\n# data\nimport os\nfrom a import (b,\n  c)\nx", "import re") == \
        "!pip list\n\n# data\nimport os\nimport re\nfrom a import (b,\n  c)\nx"


def test_error_info_from_an_output_strips_colours(kernel: RealKernel) -> None:
    kernel.reset()
    error = kernel.run("1 / 0")
    assert error is not None and error.ename == "ZeroDivisionError"
    assert "\x1b[" in "".join(error.traceback)
    text = error.text()
    assert "\x1b" not in text and text.endswith("ZeroDivisionError: division by zero") and "----> 1" in text
    bare = ErrorInfo.from_output({"output_type": "error", "ename": "E", "evalue": "v", "traceback": []})
    assert bare.text() == "E: v"
