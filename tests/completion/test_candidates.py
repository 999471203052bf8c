"""Candidates copied from the notebook (#16.4): extraction from real notebook cells, and the editor's
whole path with the shipped model completing a column defined only in a cell above."""

from __future__ import annotations

from pathlib import Path

from ghostbook.completion import gate
from ghostbook.completion.candidates import MAX_CANDIDATES, candidates, completes_key
from ghostbook.completion.context import CellText, ContextBuilder
from ghostbook.completion.settings import CompletionSettings
from ghostbook.eval.notebook_bench import FixedNamespace, run_tasks
from ghostbook.eval.notebook_tasks import NotebookTask

from tests.completion.conftest import FakeCell
from tests.completion.test_service import make_service, suggest

# cells as in a pandas / scikit-learn tutorial notebook
LOAD = """import pandas as pd
import matplotlib.pyplot as plt

df = pd.DataFrame({'revenue_2024': [120, 340, 560], 'region': ['north', 'south', 'west']})
df.head()"""
PLOT = """fig, ax = plt.subplots(figsize=(8, 4))
df.groupby('region')['revenue_2024'].sum().plot.bar(ax=ax)
plt.show()"""
MODEL = """X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
clf = LogisticRegression(max_iter=1000)
clf.fit(X_train, y_train)
print(np.mean(clf.predict(X_test) == y_test))"""


def test_a_string_key_defined_above_is_completed_and_closed() -> None:
    assert candidates("total = df['rev", LOAD + "\n\n", "")[0] == "enue_2024']"
    assert "ion')" in candidates("df.groupby('reg", LOAD + "\n\n", "")  # the call's bracket closed too


def test_the_rest_of_a_call_pattern_used_elsewhere() -> None:
    assert candidates("fig, ax = plt.subplots(", "", "\n\n" + PLOT)[0] == "figsize=(8, 4))"
    assert candidates("clf.fit(", "", MODEL)[0] == "X_train, y_train)"
    # nearest first: the cell just above before the cell below
    assert candidates("df.", LOAD + "\n\n", "\n\n" + PLOT)[0] == "head()"


def test_names_from_the_kernel_namespace_summary() -> None:
    above = ("# Variables in the kernel:\n"
             "#   sales: DataFrame shape=(9, 2) columns=[unit_price: float64, qty: int64]\n\n")
    assert candidates("sales['unit", above, "")[0] == "_price']"
    assert candidates("x = sal", above, "")[0] == "es"


def test_imports_the_notebook_uses_but_lacks() -> None:
    # `np.` is used below and never imported: that, and no common import the notebook does not use
    assert candidates("import ", "", "\n\n" + MODEL) == ["numpy as np"]
    assert candidates("import ", "", "x = 1") == ["numpy as np", "pandas as pd", "matplotlib.pyplot as plt",
                                                  "seaborn as sns"][:MAX_CANDIDATES]  # no evidence: the common ones
    assert candidates("import mat", "", "\n\n" + PLOT)[0] == "plotlib.pyplot as plt"
    names = candidates("from sklearn.model_selection import ", "", MODEL)
    # the table's name for the module first, then a class; `X`, `y` (read, never bound: data) last
    assert names[:2] == ["train_test_split", "LogisticRegression"] and "clf" not in names
    assert candidates("from sklearn.linear_model import Log", "", MODEL) == ["isticRegression"]


def test_a_name_used_as_a_module_is_imported_only_where_it_is_one() -> None:
    """`tfp.`, `vutils.` are aliases (`tensorflow_probability as tfp`): `import tfp` would fail. A module
    this Python lacks is still one where other notebooks import it (`skore`, in the line memory)."""
    below = "\n\ndist = tfp.distributions.Normal(0, 1)\ngrid = vutils.make_grid(images)\nproject = skore.Project('p')"
    assert candidates("import ", "", below) == ["skore"]


def test_imports_see_what_the_parser_sees() -> None:
    """A name used as a module below (`textwrap.dedent(`) is the import, not a word in a string
    (`'figure.dpi'`), a parameter (`ax.`), an exception (`e.`) or a comprehension's variable (`p.`)."""
    below = ("\n\nplt.rcParams['figure.dpi'] = 130\n\ndef draw(ax):\n    ax.plot([p.x for p in points])\n\n"
             "try:\n    text = textwrap.dedent(samples)\nexcept ValueError as e:\n    print(e.args)")
    assert candidates("import ", "import matplotlib.pyplot as plt\n", below) == ["textwrap"]
    assert candidates("", "import matplotlib.pyplot as plt\n", "\nnp.zeros(3)" + below)[0] == "import numpy as np"


def test_from_imports_take_the_names_the_notebook_reads_but_never_binds() -> None:
    """A base class, a keyword argument's value, an annotation: read, never bound (what `from X import `
    brings); a function's parameter (`self`) and a loop's variable are bound."""
    below = ("\n\nclass PrintGraph(Graph):\n    def add(self, n):\n        for i in n:\n"
             "            self.add_node(i)\n\nfit = DistributedModel(data, model_class=GLM)\n\n"
             "def f(x: NamedArray) -> None:\n    pass")
    assert candidates("from networkx import ", "", below)[:1] == ["Graph"]
    found = candidates("from mypackage.models import ", "", below)
    assert found == ["Graph", "DistributedModel", "GLM", "NamedArray"] and "self" not in found
    assert candidates("from mypackage.models import N", "", below) == ["amedArray"]
    # a cell cut at the cursor (no parse) still binds what its first lines bind
    assert candidates("from networkx import ", "g = Graph()\nfor i in range(3):\n", below)[:1] == ["Graph"]


def test_a_module_imported_as_gets_its_usual_alias() -> None:
    assert candidates("import seaborn as ", "import numpy as np\n", "") == ["sns"]
    assert candidates("import matplotlib.pyplot  as p", "", "") == ["lt"]
    assert candidates("import statsmodels.formula.api as ", "", "") == ["smf"]
    assert candidates("import mymodule as ", "", "") == []  # no usual alias: nothing to copy


async def forced_with_and_without_candidates(tmp_path: Path, cells: list[FakeCell],
                                             **settings: object) -> tuple[str, str]:
    """The shipped model, the real service: Ctrl+Space at the end of the last cell, with the notebook
    candidates and then without them."""
    service, out, _ = make_service(tmp_path, cells=cells)
    service.store.update(settings)
    texts = []
    try:
        for ref, on in (("r1", True), ("r2", False)):
            service.store.update({"notebook_candidates": on})
            service.cache.clear()
            await service.suggest("t1", suggest(ref, cells[-1].id, len(cells[-1].source), "forced"))
            texts.append(out.of("suggestion", ref)[-1]["text"])
    finally:
        await service.close()
        await service.registry.close()
    return texts[0], texts[1]


async def test_import_as_gets_the_usual_alias_through_the_editor_path(tmp_path: Path) -> None:
    """`import seaborn as ` is completed with `sns` (the plain beam writes `seaborn`)."""
    cells = [FakeCell("a", "code", "import pandas as pd"), FakeCell("b", "code", "import seaborn as ")]
    with_them, without = await forced_with_and_without_candidates(tmp_path, cells, search_ms=0)
    assert with_them == "sns" and without != "sns"


def test_nothing_at_a_line_start_the_line_above_says_nothing_of_and_nothing_already_on_the_line() -> None:
    assert candidates("", LOAD, PLOT) == [] and candidates("    ", LOAD, PLOT) == []
    assert candidates("clf.fit(", "", MODEL, rest=")")[0] == "X_train, y_train"  # the closer is already there
    assert candidates("zzz = qqq.", LOAD, PLOT) == []


def test_below_an_import_an_import_line_for_each_module_used_but_not_imported() -> None:
    """`plt.` and `np.` below with no import of either: the import lines, nearest use first; `df.`, `ax.`
    and `clf.` are variables (no module has those names), `pd` is imported."""
    below = "\n\n" + PLOT + "\n\n" + MODEL + "\nos.getcwd()"
    assert candidates("", "import pandas as pd\n", below) == [  # then the from-imports (the next test), 4 at most
        "import matplotlib.pyplot as plt", "import numpy as np", "import os",
        "from sklearn.model_selection import train_test_split"]
    assert candidates("", "from sklearn.svm import SVC\n", "\nnp.zeros(3)") == ["import numpy as np"]
    assert candidates("", "x = 1\n", below) == []  # not in the imports
    assert candidates("    ", "import pandas as pd\n", below) == []
    assert candidates("", "import pandas as pd\n", "\npd.read_csv('a.csv')") == []  # nothing missing


def test_a_line_like_one_above_but_for_a_renamed_name_is_renamed_through() -> None:
    """`res_h = ` as `res_p = mod_p.fit(disp=False)` was written above: `mod_h.fit(disp=False)`; `ax2 = `
    after `ax1 = fig.add_subplot(211)`: `fig.add_subplot(212)`; unlike names (`ax1` / `res_h`) no."""
    above = "mod_p = sm.Poisson(y, X)\nres_p = mod_p.fit(disp=False)\nfig = plt.figure()\nax1 = fig.add_subplot(211)\n"
    assert candidates("res_h = ", above, "") == ["mod_h.fit(disp=False)"]
    assert candidates("ax2 = ", above, "")[0] == "fig.add_subplot(212)"  # then what other notebooks write
    assert candidates("    ax2.plot(x2, ", "    ax1.plot(x1, y1, label='a')\n", "")[0] == "y2, label='a')"
    assert not [c for c in candidates("total = ", above, "") if "fit(" in c or "add_subplot" in c]  # no family above
    # a line named after the string it loads renames it, whatever the new name
    assert candidates("titanic = ", 'tips = sns.load_dataset("tips")\n', "")[0] == 'sns.load_dataset("titanic")'
    # a key is no such string (`final = ` + `params['final']` was never meant)
    assert "params['final']" not in candidates("final = ", "init = params['init']\n", "")
    # a variant named after a value renames the value, in its case (seen in the browser: "Lunch" stayed)
    assert candidates("res_dinner = ", 'res_lunch = tips[tips.time == "Lunch"].tip.mean()\n', "") == [
        'tips[tips.time == "Dinner"].tip.mean()']
    # and then no line named after a string (it fits any name: `sns.load_dataset("res_dinner")`)
    above = 'tips = sns.load_dataset("tips")\nres_lunch = tips[tips.time == "Lunch"].tip.mean()\n'
    assert candidates("res_dinner = ", above, "") == ['tips[tips.time == "Dinner"].tip.mean()']


def test_an_analogy_goes_before_the_plain_copy_and_a_variant_before_a_role() -> None:
    """`BM_X_test, ... = load_basic_motions(` below the `train` line: the `test` rest (the analogy renames
    `train` through) before the copy of that line's rest; `res_fedfunds3 = ` below `mod_fedfunds3 = ...`:
    the variant of `res_fedfunds = mod_fedfunds.fit()` before the line above with its role renamed."""
    above = 'BM_X_train, BM_y_train = load_basic_motions(split="train", return_X_y=True)\n'
    assert candidates("BM_X_test, BM_y_test = load_basic_motions(", above, "")[:2] == [
        'split="test", return_X_y=True)', 'split="train", return_X_y=True)']
    above = "res_fedfunds = mod_fedfunds.fit()\nmod_fedfunds3 = sm.tsa.MarkovRegression(dta, k_regimes=3)\n"
    assert candidates("res_fedfunds3 = ", above, "") == [
        "mod_fedfunds3.fit()", "sm.tsa.MarkovRegression(dta, k_regimes=3)"]


def test_where_a_notebook_being_written_begins_its_imports_the_common_ones_come() -> None:
    """No code below to say what the imports need (a notebook being written): at its top, or below its
    imports, the common imports not made yet, in the order `import ` offers them; not where code below
    says what is used, nor after a blank line (a new cell after the imports or after other code)."""
    assert candidates("", "", "") == ["import numpy as np", "import pandas as pd",
                                      "import matplotlib.pyplot as plt", "import seaborn as sns"]
    assert candidates("", "# Copyright 2020 Google LLC.\n", "")[0] == "import numpy as np"
    assert candidates("", "import numpy as np\nimport pandas as pd\n", "") == [
        "import matplotlib.pyplot as plt", "import seaborn as sns"]
    assert candidates("", "import numpy\nimport seaborn\n", "") == [
        "import pandas as pd", "import matplotlib.pyplot as plt"]
    assert candidates("", "import pandas as pd\n", "\npd.read_csv('a.csv')") == []  # the code below needs no more
    assert candidates("", "import numpy as np\n\nx = np.arange(3)\n\n", "") == []  # a new cell after code
    # after a blank line below the imports (a new cell, a new paragraph) the code begins, not more imports
    assert candidates("", "import numpy as np\nimport pandas as pd\n\n", "") == []


async def test_below_a_notebooks_first_import_the_next_common_one_through_the_editor_path(tmp_path: Path) -> None:
    """Ctrl+Space on the line below `import numpy as np` in a notebook being written: `import pandas as
    pd`, which the model alone (no notebook candidates) does not write."""
    cells = [FakeCell("a", "code", "import numpy as np\n")]
    with_them, without = await forced_with_and_without_candidates(tmp_path, cells)
    assert with_them == "import pandas as pd" and without != "import pandas as pd"


def test_a_new_cell_gets_the_imports_only_the_code_below_it_lacks() -> None:
    """After a blank line (a new cell) below other code: `plt.` and `np.` are used only below, never
    imported: their import lines; `pd.` is used above too (imported elsewhere if at all): not offered."""
    above = "data = pd.read_csv('a.csv')\nprint(data)\n\n"
    below = "\n\nfig, ax = plt.subplots()\nax.plot(np.arange(3))\npd.concat([data])"
    assert candidates("", above, below)[:2] == ["import matplotlib.pyplot as plt", "import numpy as np"]
    assert "import pandas as pd" not in candidates("", above, below)
    inside = candidates("", above.rstrip("\n") + "\n", below)  # no blank line: inside a block of code
    assert not [c for c in inside if c.startswith(("import ", "from "))]


def test_comment_lines_just_above_count_for_nothing_where_imports_go() -> None:
    """A file's header comment at the notebook's top, or `# Imports` after a blank line: the imports the
    code below lacks, as with no comment; a comment inside a block of code changes nothing."""
    below = "\n\nfrom lmfit.model import Model\n\ndef mysine(x, amp):\n    return amp * np.sin(x)\n"
    assert candidates("", "# <examples/doc_model_savemodel.py>\n", below)[:1] == ["import numpy as np"]
    assert candidates("", "x = 1\n\n# Imports\n", below)[:1] == ["import numpy as np"]
    assert not [c for c in candidates("", "x = 1\n# Imports\n", below) if c.startswith("import ")]


def test_below_an_import_a_from_import_for_each_name_the_corpus_knows() -> None:
    """`train_test_split(` and `StandardScaler(` are used and never imported: the modules they usually come
    from (`ghostbook train import-table`); `clf` (bound) and `report` (not in the table) are not."""
    below = "\nscaler = StandardScaler()\nX_train, X_test = train_test_split(X)\nclf = report(1)\nclf.fit(X)"
    assert candidates("", "import numpy as np\n", below) == [
        "from sklearn.preprocessing import StandardScaler", "from sklearn.model_selection import train_test_split"]


def test_at_a_line_start_what_follows_the_line_above_elsewhere() -> None:
    """`    G,` above the cursor, and where the notebook has `    G,` again `    pos,` follows it; relative
    indentation kept; the line below the cursor and lines the line above says nothing of are not offered."""
    draw = "nx.draw_networkx_nodes(\n    G,\n    pos,\n    node_size=10,\n)\nfor n in G:\n    print(n)\n"
    assert candidates("    ", draw + "nx.draw_networkx_edges(\n    G,\n", "\n)") == ["pos,"]
    assert candidates("", draw + "nx.draw_networkx_edges(\n    G,\n", "\n)") == ["    pos,"]
    assert candidates("    ", draw + "nx.draw_networkx_edges(\n    G,\n", "\n    pos,\n)") == []  # below already
    assert candidates("", draw + "for n in G:\n", "")[0] == "    print(n)"  # then what other notebooks write
    assert candidates("", draw + ")\n", "") == []  # `)` is no evidence


def test_below_an_assignment_what_follows_another_assignment_of_the_same_names() -> None:
    """No line is the line above, but one assigns `model` too: the line after it (nearest first); a
    different target or indentation is no such line."""
    above = ("model = make_pipeline(TfidfVectorizer(), MultinomialNB())\nmodel.fit(X_train, y_train)\n\n"
             "models = [1]\nprint(models)\n\n")
    cursor = "model = make_pipeline_imb(TfidfVectorizer(), RandomUnderSampler(), MultinomialNB())\n"
    assert candidates("", above + cursor, "") == ["model.fit(X_train, y_train)"]
    assert candidates("", above + "    " + cursor, "") == []  # indented elsewhere
    assert candidates("", above + "model = 2\n", "\nmodel = 3\nmodel.score(X)") == [  # the nearer first
        "model.score(X)", "model.fit(X_train, y_train)"]


def test_mid_line_what_follows_the_line_above_elsewhere_comes_second() -> None:
    """`visualizer = ResidualsPlot(model)` above and `visualizer.` typed: where another assignment of
    `visualizer` is followed by `visualizer.fit(...)`, its rest, after the notebook's nearest line that
    goes on so (`show()`, the line just above); from other notebooks (`completion.line_memory`) too:
    `plt.tight_layout()` above, `plt.` -> `show()`."""
    above = ("visualizer = PredictionError(model)\nvisualizer.fit(X_train, y_train)\nvisualizer.show()\n\n"
             "visualizer = ResidualsPlot(model)\n")
    assert candidates("visualizer.", above, "")[:2] == ["show()", "fit(X_train, y_train)"]
    plots = "plt.plot(x)\nplt.xlim([0, 5])\nplt.tight_layout()\n"
    assert candidates("plt.", plots, "")[:2] == ["tight_layout()", "show()"]
    assert candidates("plt.", "plt.plot(x)\nplt.xlim([0, 5])\n", "")[:2] == ["xlim([0, 5])", "plot(x)"]


def test_weak_evidence_proposes_nothing() -> None:
    """What made HumanEval's mid-line cursor worse: docstring prose, keywords, one-letter words, a
    partial attribute matched against a plain name."""
    body = 'def f(lst):\n    """Return the list of those, sorted."""\n    result = sorted(lst)\n    return result\n'
    assert candidates("    retu", body, "") == []  # neither the docstring's prose nor `return`'s own letters
    assert candidates("    r", body, "") == []
    assert candidates("    for i in", "for c in s:\n", "") == []
    assert candidates("    lst.sor", body, "") == []  # `sorted(` is no attribute
    assert candidates("    lst.sor", "lst.sort()\n", "")[0] == "t()"


def test_a_known_key_lets_an_automatic_request_into_a_string() -> None:
    """A weak model gets no automatic requests inside strings, but a subscript key the notebook
    completes is worth one: the candidates answer it."""
    assert completes_key("total = df['rev", LOAD, "")
    assert not completes_key("total = df['zzz", LOAD, "")  # no such key
    assert not completes_key("print('rev", LOAD, "")  # not a subscript
    source = "total = df['rev"
    assert gate.skip_reason(source, len(source), "auto", code_only=True) == "inside a string"
    assert gate.skip_reason(source, len(source), "auto", code_only=True, known_key=lambda: True) is None
    assert gate.skip_reason(source, len(source), "auto", code_only=True, known_key=lambda: False) == "inside a string"


def test_the_context_carries_the_whole_notebook() -> None:
    cells = [CellText("code", LOAD), CellText("markdown", "# Plot"), CellText("code", "x = 1"),
             CellText("code", PLOT)]
    ctx = ContextBuilder(len).build(cells, 2, 5, 40, ["df: DataFrame shape=(3, 2)"])
    assert LOAD not in ctx.prefix  # the budget leaves it out of the prompt, the candidates still see it
    assert ctx.above.startswith("# Variables in the kernel:") and LOAD in ctx.above
    assert ctx.below.endswith(PLOT)


async def test_a_column_from_a_cell_above_through_the_editor_path(tmp_path: Path) -> None:
    """The shipped model, the real service: `df['rev` gets the column defined cells above, further up
    than the model's prompt reaches; without the candidates (the setting off) the model cannot know it."""
    filler = [FakeCell(f"f{i}", "code", f"x_{i} = np.linspace(0, {i}, 50)\nplt.plot(x_{i}, np.sin(x_{i}))")
              for i in range(40)]
    cells = [FakeCell("a", "code", LOAD), *filler, FakeCell("b", "code", "total = df['rev")]
    service, out, _ = make_service(tmp_path, cells=cells)
    service.store.update({"search_ms": 0})  # the beam unhurried: what it finds does not hang on the machine's speed
    try:
        await service.suggest("t1", suggest("r1", "b", len(cells[-1].source), "forced"))
        assert out.of("suggestion", "r1")[-1]["text"] == "enue_2024']"  # the copied line, and only that
        service.cache.clear()
        await service.suggest("t1", suggest("r0", "b", len(cells[-1].source), "auto"))  # inside a string: let in
        assert out.of("suggestion", "r0")[-1]["text"] == "enue_2024']"
        service.store.update({"notebook_candidates": False})
        service.cache.clear()
        await service.suggest("t1", suggest("r2", "b", len(cells[-1].source), "forced"))
        assert out.of("suggestion", "r2")[-1]["text"].split("\n")[0] != "enue_2024']"
    finally:
        await service.close()
        await service.registry.close()


def test_from_a_module_being_typed_the_from_imports_the_notebook_lacks() -> None:
    """`from sklearn.` where the cells below call `train_test_split` and `LogisticRegression` that
    nothing imports: those from-imports first (the table knows their modules); not a copy of an
    import the notebook already has."""
    above = "import numpy as np\nfrom sklearn.datasets import load_iris\n"
    below = "\nX_tr, X_te = train_test_split(X)\nclf = LogisticRegression()"
    found = candidates("from sklearn.", above, below)
    assert found[:2] == ["model_selection import train_test_split", "linear_model import LogisticRegression"]
    assert "datasets import load_iris" not in found
    assert candidates("from sk", above, below) == [
        "learn.model_selection import train_test_split", "learn.linear_model import LogisticRegression"]


async def test_a_new_name_does_not_get_another_names_value(tmp_path: Path) -> None:
    """google/eng-edu's pandas tutorial as written in the browser: at `my_dataframe = ` the shipped model's
    copy of the array assigned to `my_data` above was shown, automatically too."""
    cell = ("import numpy as np\nimport pandas as pd\n\n# Create and populate a 5x2 NumPy array.\n"
            "my_data = np.array([[0, 3], [10, 7], [20, 9], [30, 14], [40, 15]])\n\n"
            "# Create a Python list that holds the names of the two columns.\n"
            "my_column_names = ['temperature', 'activity']\n\n# Create a DataFrame.\nmy_dataframe = ")
    with_them, without = await forced_with_and_without_candidates(tmp_path, [FakeCell("a", "code", cell)])
    for text in (with_them, without):
        assert text.strip() and not text.startswith(("np.array([[0, 3]", "['temperature'")), text


async def test_a_new_line_does_not_give_another_name_a_value_above() -> None:
    """TheAlgorithms' Scikit-learn notebook as written in the browser: in a new cell, and below its
    imports, Ctrl+Space wrote `skin_data = ` and `s = ` + `data`'s value (lines the beam ran out of time
    on, finished by greedy: the final filter's rule holds there). Through the benchmark's path, which
    asks as the editor does after the debounce."""
    above = ("import numpy as np", "from sklearn.preprocessing import MinMaxScaler",
             "data = np.random.randint(0,100,(10,2))", "data")
    imports = ("import matplotlib\nimport numpy as np\nimport matplotlib.pyplot as plt\n"
               "from mpl_toolkits.mplot3d import Axes3D\n")
    tasks = [NotebookTask(f"t{n}", "nb", "line", (*above, source), 4, len(source), "")
             for n, source in enumerate(("", imports))]
    for result in await run_tasks(tasks, "default", CompletionSettings(), progress=False,
                                  kernels=[FixedNamespace(), FixedNamespace()]):
        assert "= np.random.randint(0,100,(10,2))" not in result.completion \
            or result.completion.startswith("data ="), result.completion
