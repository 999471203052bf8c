"""Whether a suggested first line fits the cell's syntax (`decoding.syntax_fit`)."""

from __future__ import annotations

from ghostbook.decoding.syntax_fit import SyntaxFit, open_brackets, parses, repeats_keyword
from ghostbook.eval.notebook_data import load_notebooks, packaged_split
from ghostbook.eval.notebook_tasks import notebook_tasks
from ghostbook.eval.tasks import humaneval_single_line

BEFORE = "def count(xs):\n    n = 0\n    for x in xs:\n"
AFTER = "\n            n += 1\n    return n\n"


def test_a_line_that_parses_in_place_fits_and_prose_or_a_stray_else_does_not() -> None:
    fit = SyntaxFit(BEFORE, AFTER)
    assert fit.fits(b"        if x > 0:")
    assert not fit.fits(b"        Returns:")  # docstring prose in a function body
    assert not fit.fits(b"        else:")  # no `if` for it
    assert not fit.fits(b"        n += 1")  # the body below would then be indented for nothing


def test_a_line_that_opens_a_block_or_brackets_is_the_start_of_more_lines() -> None:
    fit = SyntaxFit("def f(xs):\n", "")  # the cursor at the end of the cell: the editor writes on
    assert fit.fits(b"    for x in xs:")
    assert fit.fits(b"    data = {")
    assert fit.fits(b"    total = sum(x for x in xs if (")
    assert not fit.fits(b"    for x in xs")  # no colon
    assert not fit.fits(b"    data = {)")
    assert not fit.fits(b'    s = """unfinished')  # an open string could swallow anything: no claim


def test_mid_line_the_rest_of_the_line_counts() -> None:
    fit = SyntaxFit("def f(a, b):\n    return max(", ")\n")
    assert fit.fits(b"a, b")
    assert not fit.fits(b"a, b))")


def test_every_humaneval_reference_line_fits_where_it_stands() -> None:
    for cut in ("line", "indent", "mid"):
        for task in humaneval_single_line(cut=cut):
            assert SyntaxFit(task.prefix, task.suffix).fits(task.middle.encode()), (cut, task.task_id)


def test_invalid_escapes_only_warn_and_null_bytes_do_not_parse() -> None:
    assert parses('x = "\\d"')  # the suite turns warnings into errors: the check must not
    assert not parses("x = 1\0")


def test_open_brackets_innermost_last() -> None:
    assert open_brackets("    f(a, [b, {") == ["(", "[", "{"]
    assert open_brackets("f(a)[0]") == []
    assert open_brackets("f(a])") is None
    assert open_brackets("s = '''x") is None



def test_magic_and_shell_lines_read_as_pass() -> None:
    fit = SyntaxFit("%matplotlib inline\nimport os\n!pip list\nfor f in os.listdir():\n", "\n%time x = 1\n")
    assert fit.fits(b"    print(f)")
    assert not fit.fits(b"print(f)")


def test_a_keyword_argument_given_twice_in_one_call_does_not_fit() -> None:
    fit = SyntaxFit("sns.heatmap(corr, cbar_ax=cax, ", "\nplt.show()\n")
    assert parses("sns.heatmap(corr, cbar_ax=cax, cbar_ax=cax)")  # the parser lets it through
    assert not fit.fits(b"cbar_ax=cax, cbar_ax=cax)")
    assert not fit.fits(b"cbar_ax=cax)")
    assert fit.fits(b"square=True)")
    assert repeats_keyword("f(a=1, b=2, a=3")  # a line left open counts as read so far
    assert not repeats_keyword("f(a=1, b=2, a")  # no `=` yet
    assert not repeats_keyword("f(a=1, g(a=2), b=(a == 2))")  # another call, a comparison
    assert not repeats_keyword("f(a=1)(a=2)")


def test_no_notebook_benchmark_line_gives_a_keyword_twice() -> None:
    for split in ("validation", "test"):
        for task in notebook_tasks(load_notebooks(packaged_split(split))):
            line = task.cells[task.index][: task.cursor].rsplit("\n", 1)[-1] + task.expected
            assert not repeats_keyword(line), task.task_id


def test_return_break_or_yield_at_a_cells_top_level_does_not_parse() -> None:
    """The compiler rejects them there (`'return' outside function`); the parser does not."""
    assert not parses("x = 1\nreturn") and not parses("break") and not parses("continue") and not parses("yield 1")
    assert parses("def f():\n    return 1") and parses("for i in x:\n    break") and parses("while x:\n    continue")
    assert not SyntaxFit("%%writefile csvmagic.py\n", "\nfrom io import StringIO").fits(b"return")


def test_a_function_whose_parameters_repeat_a_name_does_not_fit() -> None:
    """Seen in the browser below a notebook's imports: `def plot_pandas(pandas, pandas, pandas, **kwargs):`
    (the compiler: "duplicate argument 'pandas' in function definition"; the parser takes it)."""
    fit = SyntaxFit("import pandas as pd\n\n", "")
    assert not fit.fits(b"def plot_pandas(pandas, pandas, pandas, **kwargs):")
    assert not fit.fits(b"f = lambda x, x: x") and not fit.fits(b"def g(a, *, a=1):")
    assert fit.fits(b"def plot_pandas(frame, column, **kwargs):") and fit.fits(b"f = lambda x, y: x")


def test_a_future_import_fits_only_at_the_cells_start() -> None:
    """The compiler takes `from __future__` imports only before other code (a docstring aside); the
    parser takes them anywhere, and the model offers one on any new line."""
    assert parses("from __future__ import annotations\nimport numpy as np")
    assert parses('"""Notes."""\nfrom __future__ import annotations\nfrom __future__ import division\nx = 1')
    assert not parses("import numpy as np\nfrom __future__ import annotations")
    assert not parses("def f():\n    from __future__ import annotations")
    assert parses("x = '__future__'")
    fit = SyntaxFit("import numpy as np\n", "\nx = np.zeros(3)")
    assert not fit.fits(b"from __future__ import annotations") and fit.fits(b"import pandas as pd")
    assert SyntaxFit("", "\nimport numpy as np").fits(b"from __future__ import annotations")


def test_a_whole_statement_that_breaks_a_cell_which_parses_without_it_cannot_be_mended() -> None:
    empty = SyntaxFit("", "")
    assert empty.breaks(b")") and empty.breaks(b"x = = 1")
    assert not empty.breaks(b"x = 1") and not empty.breaks(b"try:") and not empty.breaks(b"@property")
    assert not empty.breaks(b'doc = """start') and not empty.breaks(b"x = 1 + \\")
    broken = SyntaxFit("x = (\n\n", "")  # broken elsewhere: no line is to blame
    assert not broken.breaks(b")")


def test_return_outside_a_function_and_break_outside_a_loop_do_not_fit_at_any_depth() -> None:
    """The compiler rejects what the parser takes: `return` in a notebook's top-level loop (seen in the
    browser on an unseen notebook, below `sum_col.append(...)`), `break` in a function but no loop."""
    loop = SyntaxFit("sum_col = []\nfor i in range(3):\n    sum_col.append(i)\n    ", "\nprint(sum_col)")
    assert not loop.fits(b"return") and not loop.fits(b"yield i") and loop.fits(b"break")
    body = SyntaxFit("def f(xs):\n    for x in xs:\n        ", "")
    assert body.fits(b"return x") and body.fits(b"continue")
    assert not SyntaxFit("def f(x):\n    ", "").fits(b"break")
    assert SyntaxFit("class A:\n    def f(self):\n        ", "").fits(b"return 1")
    assert not SyntaxFit("class A:\n    ", "").fits(b"return 1")
