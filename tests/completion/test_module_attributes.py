"""A module's attributes (`completion.module_attributes`, the table `ghostbook train attribute-table`
counts): found through the notebook's imports, offered as candidates in the cursor's role, and, through
the editor's whole path with the shipped model, the suggestion after `plt.` or in `from X import ` is
one of the module's names, not a variable of the notebook (it was `sales.head()` and `sales`)."""

from __future__ import annotations

import re
from pathlib import Path

from ghostbook.completion.candidates import candidates
from ghostbook.completion.module_attributes import aliases, at_cursor, table

from tests.completion.conftest import FakeCell
from tests.completion.test_service import make_service, suggest

IMPORTS = "import numpy as np\nimport pandas as pd\nimport matplotlib.pyplot as plt"
DATA = """sales = pd.DataFrame({'region': ['north', 'south', 'east'], 'revenue': [120.0, 95.5, 143.2],
                      'units': [12, 9, 15]})
sales['price'] = sales['revenue'] / sales['units']
sales.head()"""


def test_modules_are_known_by_the_notebooks_imports() -> None:
    text = "import numpy as np\nimport os.path\nfrom matplotlib import pyplot as pp\nfrom sklearn.svm import SVC\n"
    assert aliases(text) == {"np": "numpy", "os": "os", "pp": "matplotlib.pyplot"}
    module = at_cursor("fig, ax = pp.", text)
    assert module is not None and module.module == "matplotlib.pyplot" and module.role == "value"
    statement = at_cursor("    np.random.", text)
    assert statement is not None and statement.module == "numpy.random" and statement.role == "statement"
    plt = at_cursor("plt.", "")  # not imported (yet): its usual alias
    assert plt is not None and plt.module == "matplotlib.pyplot"
    imported = at_cursor("from sklearn.metrics import ", "")
    assert imported is not None and imported.role == "import" and "accuracy_score" in imported.names
    assert at_cursor("sales.", text) is None and at_cursor("x = np", text) is None
    assert at_cursor("from sklearn.metrics import accuracy_score, ", text) is None


def test_the_shipped_table_knows_what_follows_the_usual_modules() -> None:
    """Counted in the training corpus: the roles keep `plt.show()` (a statement) apart from
    `fig, ax = plt.subplots()` (a value)."""
    assert {"show", "subplots", "figure"} <= {str(row[0]) for row in table()["matplotlib.pyplot"]}
    as_value = at_cursor("fig, ax = plt.", "")
    as_statement = at_cursor("plt.", "")
    assert as_value is not None and as_statement is not None
    assert as_value.rests()[0] == "subplots()" and as_statement.rests()[0] == "show()"
    imported = at_cursor("from sklearn.model_selection import ", "")
    assert imported is not None and imported.rests()[0] == "train_test_split"


def test_candidates_offer_a_modules_commonest_lines_where_the_notebook_has_none() -> None:
    found = candidates("fig, ax = plt.", IMPORTS + "\n", "")  # with other notebooks' lines (`line_memory`)
    assert found[0] == "subplots()" and "figure()" in found
    assert candidates("fig, ax = plt.sub", IMPORTS + "\n", "")[0].startswith("plots(")
    # the notebook's own `plt.` line goes first, and then the table's are not needed
    assert candidates("fig, ax = plt.", IMPORTS + "\nfig, ax = plt.subplots(2, 1)\n", "")[0] == "subplots(2, 1)"
    assert "train_test_split" in candidates("from sklearn.model_selection import ", "", "")
    # a name the notebook uses and never imports beats the table's
    assert candidates("from sklearn.model_selection import ", "", "\nKFold(3)")[0] == "KFold"
    assert all(c.count("(") == c.count(")") for c in candidates("x = np.", IMPORTS + "\n", ""))
    # a line that passes names the notebook lacks is someone else's code
    assert "shuffle(idx)" not in candidates("np.random.", IMPORTS + "\n", "")
    assert "shuffle(idx)" in candidates("np.random.", IMPORTS + "\nidx = np.arange(3)\n", "")


async def test_after_a_module_the_shipped_model_writes_one_of_its_attributes(tmp_path: Path) -> None:
    """The editor's path with the shipped model: `fig, ax = plt.` and `from sklearn.model_selection import `
    under a `sales` DataFrame get one of the module's names, never `sales`."""
    for typed in ("fig, ax = plt.", "from sklearn.model_selection import "):
        cells = [FakeCell("a", "code", IMPORTS), FakeCell("b", "code", DATA), FakeCell("c", "code", typed)]
        service, out, _ = make_service(tmp_path, cells=cells)
        try:
            await service.suggest("t1", suggest("r1", "c", len(typed), "forced"))
            text = out.of("suggestion", "r1")[-1]["text"]
        finally:
            await service.close()
            await service.registry.close()
        module = at_cursor(typed, IMPORTS)
        assert module is not None
        first = re.match(r"\w+", text)
        assert first is not None and first.group() in module.names and "sales" not in text, (typed, text)
