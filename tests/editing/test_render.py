"""Chat answers → the new cell: code blocks among prose, elisions resolved against the original, streaming."""

from __future__ import annotations

import gzip
import json
from importlib import resources

import pytest
from ghostbook.editing.prompt import draft_answer
from ghostbook.editing.render import (
    PARSE_WARNING,
    SELECTION_END,
    SELECTION_START,
    AnswerEnd,
    Rendered,
    answer_whole,
    code_blocks,
    is_elision,
    parses,
    render,
    resolve_elisions,
)

CELL = """import pandas as pd
df = pd.read_csv("sales.csv")
df = df.dropna()
df["total"] = df.price * df.qty
df.plot()"""


def fenced(code: str, tag: str = "python") -> str:
    return f"```{tag}\n{code}\n```"


def real_cells(limit: int = 400) -> list[str]:
    """Code cells of the notebook benchmark's test split (real notebooks, their licences in SOURCES.md)."""
    path = resources.files("ghostbook.eval") / "data" / "notebooks-test.jsonl.gz"
    cells: list[str] = []
    with gzip.open(str(path), "rt") as f:
        for line in f:
            cells += [c for c in json.loads(line)["cells"] if c.strip()]
            if len(cells) >= limit:
                break
    return cells[:limit]


# -- code blocks -------------------------------------------------------------------------------------


def test_the_block_among_prose_is_the_cell() -> None:
    new = CELL.replace("df.plot()", 'df.plot(title="Totals")')
    answer = f"Sure! Here is the updated cell:\n\n{fenced(new)}\n\nI added a title to the plot."
    assert render(answer, CELL, final=True) == render(fenced(new), CELL, final=True)
    assert render(answer, CELL, final=True).text == new


@pytest.mark.parametrize("tag", ["python", "py", "python3", "", "ipython", "Python"])
def test_python_tags(tag: str) -> None:
    assert render(f"Here:\n```{tag}\nx = 1\n```", "x = 0", final=True).text == "x = 1"


def test_a_python_block_wins_over_a_shell_block() -> None:
    shell, python = fenced("pip install seaborn", "bash"), fenced("import seaborn as sns")
    answer = f"First install it:\n{shell}\nthen:\n{python}"
    assert render(answer, "import seaborn", final=True).text == "import seaborn as sns"


def test_of_several_blocks_the_one_most_like_the_original() -> None:
    new = CELL.replace("df.dropna()", "df.dropna().reset_index(drop=True)")
    answer = f"Change this line:\n{fenced('df = df.dropna().reset_index(drop=True)')}\nThe whole cell:\n{fenced(new)}"
    assert render(answer, CELL, final=True).text == new
    shorter = fenced('df = pd.read_csv("sales.csv").dropna()')
    answer = f"{fenced(new)}\nOr, shorter:\n{shorter}"
    assert render(answer, CELL, final=True).text == new


def test_an_empty_original_takes_the_longest_block() -> None:
    first, second = fenced("import numpy as np"), fenced("import numpy as np\nx = np.arange(10)")
    answer = f"{first}\nThen:\n{second}"
    assert render(answer, "", final=True).text == "import numpy as np\nx = np.arange(10)"


def test_no_block_but_code() -> None:
    assert render("x = compute(1)\nprint(x)\n", "x = 1", final=True) == render(fenced("x = compute(1)\nprint(x)"),
                                                                            "x = 1", final=True)


@pytest.mark.parametrize("answer", ["", "Sure.", "Done", "I cannot help with that.", "What do you mean?",
                                    "The cell is fine as it is"])
def test_no_code_at_all(answer: str) -> None:
    rendered = render(answer, CELL, final=True)
    assert not rendered.found and rendered.text == ""


def test_tilde_fences_and_fences_indented_in_a_list() -> None:
    assert render("~~~python\nx = 2\n~~~", "x = 1", final=True).text == "x = 2"
    answer = "1. Replace the loop:\n\n   ```python\n   for i in range(3):\n       print(i)\n   ```\n"
    assert render(answer, "", final=True).text == "for i in range(3):\n    print(i)"


def test_a_longer_fence_holds_a_shorter_one() -> None:
    code = 'doc = """\n```python\nx = 1\n```\n"""'
    assert render(f"````python\n{code}\n````", "doc = ''", final=True).text == code


def test_windows_line_ends() -> None:
    assert render("Here:\r\n```python\r\nx = 1\r\ny = 2\r\n```\r\n", "x = 1", final=True).text == "x = 1\ny = 2"


def test_blank_lines_at_the_blocks_edges_go_unless_the_original_has_them() -> None:
    assert render("```python\n\nx = 1\n\n```", "x = 0", final=True).text == "x = 1"
    assert render("```python\nx = 1\n\n```", "x = 0\n", final=True).text == "x = 1\n"


def test_the_selection_markers_of_the_prompt_never_stay() -> None:
    answer = fenced(f"{SELECTION_START}\n    y = 2\n{SELECTION_END}")
    assert render(answer, "    y = 1", final=True).text == "    y = 2"


@pytest.mark.parametrize("original", real_cells())
def test_the_draft_answer_renders_to_the_original(original: str) -> None:
    # a model that changes nothing copies the draft: the cell comes back byte for byte
    assert render(draft_answer(original), original, final=True).text == original
    assert render("Here you go:\n" + draft_answer(original) + "\nNothing to change.", original, final=True).text \
        == original


# -- streaming ---------------------------------------------------------------------------------------


def test_streaming_shows_the_open_block_so_far() -> None:
    answer = "Here is the cell:\n```python\nimport pandas as pd\ndf = pd.read_"
    assert render(answer, CELL, final=False) == Rendered("import pandas as pd\ndf = pd.read_", True, None)


def test_streaming_holds_back_a_fence_being_written() -> None:
    assert not render("Here is the cell:\n``", CELL, final=False).found
    assert not render("Here is the cell:\n```pyth", CELL, final=False).found
    assert render("```python\nx = 1\n``", "x = 0", final=False).text == "x = 1"
    assert render("```python\nx = 1\n", "x = 0", final=False).text == "x = 1"
    assert render("```python\nkeep = ~mask", "x = 0", final=False).text == "keep = ~mask"
    assert render("```python\nkeep = (\n    ~mask", "x = 0", final=False).text == "keep = (\n    ~mask"


def test_streaming_prose_first_is_nothing_yet() -> None:
    assert not render("Sure, I will add a title", CELL, final=False).found


def test_streaming_an_unfenced_copy_of_the_cell() -> None:
    assert render("import pandas as pd\ndf = pd.read", CELL, final=False).text == "import pandas as pd\ndf = pd.read"


def test_the_whole_stream_of_a_draft_copy_only_grows_the_cell() -> None:
    answer = "Here:\n" + draft_answer(CELL) + "\nDone."
    seen = [render(answer[:n], CELL, final=False) for n in range(len(answer) + 1)]
    texts = [r.text for r in seen if r.found]
    assert all(CELL.startswith(t) for t in texts)
    assert texts[-1] == CELL and all(r.warning is None for r in seen)


def test_an_unclosed_block_at_the_end_is_the_cell() -> None:
    assert render("```python\nx = 2\ny = 3", "x = 1", final=True).text == "x = 2\ny = 3"
    assert render("```python\nx = 2```", "x = 1", final=True).text == "x = 2"


def test_code_blocks() -> None:
    blocks = code_blocks("a\n```py\nx\n```\nb\n```bash\nls\n```\n```python\ny")
    assert [(b.lang, b.text, b.closed) for b in blocks] == [("py", "x", True), ("bash", "ls", True),
                                                           ("python", "y", False)]


# -- elisions ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("marker", ["# ... existing code ...", "# ...existing code...", "# ...", "# …",
                                    "# ... rest of the code ...", "# (unchanged)", "# rest of the code unchanged",
                                    "// ... existing code ...", "# [...]", "...", "# Existing code here",
                                    "    # ... existing code ..."])
def test_an_elision_at_the_start_stands_for_the_original_above(marker: str) -> None:
    snippet = f"{marker}\ndf[\"total\"] = df.price * df.qty\ndf.plot(title=\"Totals\")"
    rendered = render(fenced(snippet), CELL, final=True)
    assert rendered.text == CELL.replace("df.plot()", 'df.plot(title="Totals")')
    assert rendered.warning is None


def test_an_elision_at_the_end_stands_for_the_rest() -> None:
    snippet = 'import pandas as pd\ndf = pd.read_csv("sales-2024.csv")\n# ... rest unchanged'
    assert render(fenced(snippet), CELL, final=True).text == CELL.replace("sales.csv", "sales-2024.csv")


def test_an_elision_between_lines() -> None:
    snippet = "import pandas as pd\nimport numpy as np\n# ... existing code ...\ndf.plot(kind='bar')"
    assert render(fenced(snippet), CELL, final=True).text == (
        "import pandas as pd\nimport numpy as np\n" + "\n".join(CELL.split("\n")[1:4]) + "\ndf.plot(kind='bar')")


def test_a_changed_line_beside_an_elision_replaces_its_original() -> None:
    snippet = 'import pandas as pd\ndf = pd.read_csv("sales.csv", sep=";")\n# ...\ndf.plot()'
    assert render(fenced(snippet), CELL, final=True).text == CELL.replace('"sales.csv"', '"sales.csv", sep=";"')
    snippet = '# ...\ndf = df.dropna(how="all")\n# ...'
    assert render(fenced(snippet), CELL, final=True).text == CELL.replace("dropna()", 'dropna(how="all")')


def test_several_elisions() -> None:
    original = "\n".join(f"line_{i} = {i}" for i in range(12))
    snippet = "line_0 = 0\n# ...\nline_4 = 40\n# ...\nline_8 = 80\n# ..."
    expected = original.replace("line_4 = 4", "line_4 = 40").replace("line_8 = 8", "line_8 = 80")
    assert render(fenced(snippet), original, final=True).text == expected


def test_an_elided_function_body() -> None:
    original = "def f(x):\n    a = x + 1\n    return a * 2\n\n\ndef g():\n    return 1"
    snippet = "def f(x):\n    ...\n\n\ndef g():\n    return 2"
    assert render(fenced(snippet), original, final=True).text == original.replace("return 1", "return 2")
    snippet = "def f(x):\n    # ... existing code ...\n    return a * 3"  # an indented marker: f's body only
    assert render(fenced(snippet), original, final=True).text == "def f(x):\n    a = x + 1\n    return a * 3"


def test_an_ellipsis_the_original_has_is_code() -> None:
    original = "class Base:\n    def run(self):\n        ...\n\nx = 1"
    snippet = "class Base:\n    def run(self):\n        ...\n\nx = 2"
    assert render(fenced(snippet), original, final=True).text == snippet


def test_a_new_stub_keeps_its_ellipsis_body() -> None:
    original = "x = 1"
    assert render(fenced("x = 1\n\ndef todo():\n    ..."), original, final=True).text == "x = 1\n\ndef todo():\n    ..."


def test_a_comment_the_original_has_is_no_elision() -> None:
    original = "# ...\nx = 1  # unchanged\n# rest of the code unchanged\ny = 2"
    assert render(fenced(original.replace("y = 2", "y = 3")), original, final=True).text == \
        original.replace("y = 2", "y = 3")


def test_ordinary_comments_are_no_elisions() -> None:
    for line in ("# Loading the data...", "# compute the totals", "x = 1  # ...", "print('...')"):
        assert not is_elision(line, frozenset())


@pytest.mark.parametrize("original", [c for c in real_cells() if len(c.split("\n")) >= 8][:60])
def test_snippets_of_real_cells_resolve_to_the_edited_cell(original: str) -> None:
    lines = original.split("\n")
    n = len(lines)
    edited = list(lines)
    edited[n // 2] = edited[n // 2] + "  # changed"
    expected = "\n".join(edited)
    # the model shows the changed line with a line of context on each side; the rest is elided
    snippet = ["# ... existing code ...", *edited[n // 2 - 1 : n // 2 + 2], "# ... existing code ..."]
    assert resolve_elisions("\n".join(snippet), original) == expected
    # no marker is ever left
    rendered = render(fenced("\n".join(snippet)), original, final=True)
    assert "existing code" not in rendered.text or "existing code" in original


def test_streaming_resolves_elisions_behind_and_leaves_out_one_at_the_end() -> None:
    snippet = "# ... existing code ...\ndf.plot(title='Totals')\n# ... rest"
    streamed = render("```python\n" + snippet, CELL, final=False)
    assert streamed.text == "\n".join(CELL.split("\n")[:4]) + "\ndf.plot(title='Totals')"
    assert render("```python\n# ... existing code ...\n", CELL, final=False).text == ""
    assert render("```python\nimport pandas as pd\n# ..", CELL, final=False).text == "import pandas as pd"


# -- the parse warning -------------------------------------------------------------------------------


def test_a_proposal_that_does_not_parse_is_shown_with_a_warning() -> None:
    rendered = render(fenced("def f(:\n    return 1"), "def f():\n    return 1", final=True)
    assert rendered.found and rendered.text == "def f(:\n    return 1" and rendered.warning == PARSE_WARNING
    assert render("```python\ndef f(:", "x", final=False).warning is None  # not while it streams


@pytest.mark.parametrize("code", ["%matplotlib inline\nimport numpy as np", "!pip install seaborn",
                                  "files = !ls\nprint(files)", "np.zeros?", "for f in files:\n    !echo $f",
                                  "%%bash\necho hi )"])
def test_ipython_lines_are_not_python_errors(code: str) -> None:
    assert parses(code)
    assert render(fenced(code), "", final=True).warning is None


def test_a_selection_parses_in_its_cell() -> None:
    before, after = "for i in range(3):\n", "\nprint('done')"
    assert render(fenced("    print(i * 2)"), "    print(i)", final=True, around=(before, after)).warning is None
    assert render(fenced("else:\n    x = 1"), "    print(i)", final=True, around=(before, after)).warning \
        == PARSE_WARNING


def test_an_answer_is_whole_once_its_closing_fence_line_ends() -> None:
    assert not answer_whole("```python\nx = 1\n```")  # it may yet be ```python: code inside the block
    assert answer_whole("```python\nx = 1\n```\n")
    assert answer_whole("Here:\n```python\nx = 1\n```\nThis sets x.")
    assert not answer_whole("```\n")  # an opening fence, the model's own
    assert not answer_whole("```python\nx = 1\n```python\n")  # inside a block, not a closing fence
    end = AnswerEnd("```python\n")
    assert [end(piece) for piece in (b"x", b" = 1", b"\n", b"``", b"`", b"\n\n")] == [False] * 5 + [True]
