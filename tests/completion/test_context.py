from __future__ import annotations

from ghostbook.completion.context import (
    CELL_SEPARATOR,
    NAMESPACE_HEADER,
    CellText,
    ContextBuilder,
    as_code,
    namespace_lines,
)


def count(text: str) -> int:
    """One token per 4 characters (a stand-in tokenizer; budgets are what is tested)."""
    return (len(text) + 3) // 4


CELLS = [
    CellText("markdown", "# Load data\nRead the CSV."),
    CellText("code", "import pandas as pd"),
    CellText("raw", "raw stuff"),
    CellText("code", "df = pd.read_csv('x.csv')"),
    CellText("code", "df.head()\ntotal = df."),
    CellText("code", "print(total)"),
    CellText("markdown", "The end"),
]


def test_layout_order_and_markdown_as_comments() -> None:
    ctx = ContextBuilder(count).build(CELLS, 4, len("df.head()\ntotal = df."), 1024, ["df: DataFrame shape=(3, 2)"])
    assert ctx.cell_prefix == "df.head()\ntotal = df." and ctx.cell_suffix == ""
    assert ctx.prefix == (f"{NAMESPACE_HEADER}\n#   df: DataFrame shape=(3, 2)\n\n"
                          "# # Load data\n# Read the CSV.\n\nimport pandas as pd\n\n"
                          "df = pd.read_csv('x.csv')\n\ndf.head()\ntotal = df.")
    assert ctx.suffix == "\n\nprint(total)\n\n# The end"
    assert "raw stuff" not in ctx.prefix


def test_cursor_inside_cell_splits_it() -> None:
    ctx = ContextBuilder(count).build(CELLS, 3, 5, 1024)
    assert ctx.cell_prefix == "df = " and ctx.cell_suffix == "pd.read_csv('x.csv')"
    assert ctx.prefix.endswith("import pandas as pd\n\ndf = ")
    assert ctx.suffix.startswith("pd.read_csv('x.csv')\n\ndf.head()")


def test_budget_keeps_nearest_cells_whole() -> None:
    cells = [CellText("code", f"a{i} = {i}  # " + "x" * 36) for i in range(20)] + [CellText("code", "b = ")]
    builder = ContextBuilder(count)
    ctx = builder.build(cells, 20, 4, 100)
    assert builder.tokens(ctx.prefix) + builder.tokens(ctx.suffix) <= 100
    kept = [line for line in ctx.prefix.split(CELL_SEPARATOR) if line.startswith("a")]
    assert kept and kept[-1].startswith("a19 ")  # nearest first
    numbers = [int(line.split()[0][1:]) for line in kept]
    assert numbers == sorted(numbers) and numbers == list(range(20 - len(numbers), 20))  # farthest first in text
    assert all(line.endswith("x" * 36) for line in kept)  # whole cells only


def test_suffix_gets_at_most_a_quarter() -> None:
    cells = [CellText("code", "x = "), *[CellText("code", f"y{i} = {i}" + " " * 40) for i in range(30)]]
    builder = ContextBuilder(count)
    ctx = builder.build(cells, 0, 4, 200)
    assert builder.tokens(ctx.suffix) <= 50
    assert ctx.suffix.startswith("\n\ny0 = 0")


def test_long_current_cell_is_cut_at_a_line_start() -> None:
    source = "\n".join(f"line_{i} = {i}" for i in range(400)) + "\nz = "
    builder = ContextBuilder(count)
    ctx = builder.build([CellText("code", source)], 0, len(source), 256)
    assert ctx.prefix.endswith("\nz = ") and ctx.prefix.startswith("line_")
    assert builder.tokens(ctx.prefix) <= 192


def test_stable_prefix_while_typing() -> None:
    """Typing at the cursor only extends the prefix: the KV cache's shared prefix stays valid."""
    builder = ContextBuilder(count)
    cells = list(CELLS)
    first = builder.build(cells, 4, len(cells[4].source), 1024, ["a: int = 1"])
    cells[4] = CellText("code", cells[4].source + "sum")
    second = builder.build(cells, 4, len(cells[4].source), 1024, ["a: int = 1"])
    assert second.prefix == first.prefix + "sum"
    assert second.suffix == first.suffix


def test_the_namespace_summarys_lines_are_found_in_the_prefix() -> None:
    ctx = ContextBuilder(count).build(CELLS, 5, 0, 1024, ["ages: ndarray shape=(100,) dtype=int64", "n: int = 3"])
    assert namespace_lines(ctx.prefix) == ("#   ages: ndarray shape=(100,) dtype=int64", "#   n: int = 3")
    assert namespace_lines("x = 1\n# a comment\n") == ()


def test_namespace_block_is_bounded() -> None:
    lines = [f"v{i}: int = {i}" for i in range(500)]
    builder = ContextBuilder(count)
    ctx = builder.build([CellText("code", "x")], 0, 1, 800, lines)
    header = ctx.prefix.split(CELL_SEPARATOR)[0]
    assert header.startswith(NAMESPACE_HEADER) and builder.tokens(header) <= 100
    assert as_code(CellText("markdown", "a\n\nb")) == "# a\n#\n# b"


def test_suffix_share_is_adjustable() -> None:
    cells = [CellText("code", "x = "), *[CellText("code", f"y{i} = {i}" + " " * 40) for i in range(30)]]
    builder = ContextBuilder(count)
    small = builder.build(cells, 0, 4, 400, suffix_share=0.125)
    large = builder.build(cells, 0, 4, 400, suffix_share=0.25)
    assert builder.tokens(small.suffix) <= 50 < builder.tokens(large.suffix) <= 100


def test_cells_above_are_sticky_while_typing() -> None:
    """With a key, typing in the cell keeps the same cells above until the slack is used up, so the
    prompt's start (and the KV cache) survives many keystrokes; without, it shifts far more often."""
    cells = [CellText("code", f"a{i} = {i}  # " + "x" * 20) for i in range(40)] + [CellText("code", "")]

    def starts(key: str | None) -> int:
        builder = ContextBuilder(count)
        changes, last = 0, None
        for n in range(1, 400):
            cells[-1] = CellText("code", "y" * n)
            prefix = builder.build(cells, 40, n, 300, key=key).prefix
            head = prefix[:40]
            changes += last is not None and head != last
            last = head
        return changes

    sticky, plain = starts("cell"), starts(None)
    assert sticky < plain / 3


def test_sticky_cells_still_fit_the_budget() -> None:
    builder = ContextBuilder(count)
    cells = [CellText("code", f"a{i} = {i}  # " + "x" * 20) for i in range(40)] + [CellText("code", "")]
    for n in range(1, 300, 7):
        cells[-1] = CellText("code", "y" * n)
        ctx = builder.build(cells, 40, n, 200, key="cell")
        assert builder.tokens(ctx.prefix) + builder.tokens(ctx.suffix) <= 200


def test_only_the_cells_that_may_fit_are_counted() -> None:
    """A cold start in a long notebook does not tokenize every cell above the cursor (#15)."""
    counted: list[str] = []

    def count(text: str) -> int:
        counted.append(text)
        return len(text.split())

    cells = [CellText("code", f"v{i} = compute({i}, scale=2)") for i in range(400)] + [CellText("code", "x = ")]
    ctx = ContextBuilder(count).build(cells, 400, 4, 120, key="z")
    assert "v399 = compute(399, scale=2)" in ctx.prefix
    assert len(counted) < 60  # the ~30 cells that fit and a few texts more, not 400


def test_without_neighbours_the_prompt_holds_the_cell_alone() -> None:
    cursor = len("df.head()\ntotal = df.")
    ctx = ContextBuilder(count).build(CELLS, 4, cursor, 1024, neighbours=False)
    assert ctx.prefix == "df.head()\ntotal = df." and ctx.suffix == ""
    assert "import pandas as pd" in ctx.above and "print(total)" in ctx.below  # the notebook, for candidates
