"""#15 "No garbage": each rule of `decoding.suggestion` on its own, the search's side of the same
rules (lines to avoid, where a line may start), and the rules together (applied until none cuts)."""

from __future__ import annotations

from ghostbook.decoding.comments import CommentBlock
from ghostbook.decoding.indentation import LeadingSpace
from ghostbook.decoding.length import LineCount
from ghostbook.decoding.lines import FurtherLines
from ghostbook.decoding.plan import Around, Choices, DecodePlan
from ghostbook.decoding.repetition import (
    EchoedCall,
    EchoStart,
    LineBefore,
    NearbyCopies,
    OtherNamesValue,
    OwnLines,
    avoid_first,
    imports_above,
    nearby_lines,
    open_call,
    open_callee,
    other_names_values,
    repeated_values,
)
from ghostbook.decoding.suggestion import SuggestionRules
from ghostbook.decoding.syntax_fit import SyntaxPrefix


def test_own_lines_cut_before_the_first_repeat() -> None:
    assert OwnLines("").cut("a = 1\nb = 2\n  a = 1\nc = 3") == "a = 1\nb = 2"
    assert OwnLines("print(x)").cut("\nprint(x)") == ""  # the cursor's completed line counts
    assert OwnLines("").cut("f(\n    1,\n)\ng(\n    2,\n)") == "f(\n    1,\n)\ng(\n    2,\n)"  # brackets may repeat


def test_nearby_copies_reach_three_lines_each_way() -> None:
    before, after = "a = 1\nb = 2\nc = 3\nd = 4\n", "\ne = 5\nf = 6\ng = 7\nh = 8"
    assert nearby_lines(before, after) == ["b = 2", "c = 3", "d = 4", "e = 5", "f = 6", "g = 7"]
    rule = NearbyCopies(before, after)
    assert rule.cut("b = 2") == "" and rule.cut("g = 7") == "" and rule.cut("x = 0\n    d = 4") == "x = 0"
    assert rule.cut("a = 1") == "a = 1" and rule.cut("h = 8") == "h = 8"  # 4 lines away
    assert NearbyCopies("total = 0\nx = ", "").cut("0") == "0"  # `x = 0` is no copy of `total = 0`


def test_no_line_repeats_the_line_before_it() -> None:
    """Issue 40, item 4: a line equal to the one right before it (up to whitespace, indentation too)
    cuts the suggestion before it; the cursor's line counts as completed, the rest of it included."""
    assert LineBefore("x = 1\n", "").cut("total = price*qty\ntotal = price * qty") == "total = price*qty"
    assert LineBefore("", "").cut("a = 1\nb = 2\n    b = 2\nc = 3") == "a = 1\nb = 2"
    assert LineBefore("df.head()\n", "").cut("df.head( )") == ""  # the first line completes into the one above
    before = "plt.plot(x, y)\nplt.plot("  # the editor closed the bracket: the line is `plt.plot(x, y)`
    assert LineBefore(before, ")").cut("x, y") == "" and LineBefore(before, ")").cut("x, z") == "x, z"
    assert NearbyCopies(before, ")").cut("x, y") == "x, y"  # which the nearby rule, blind to the `)`, let pass
    assert LineBefore("a = 1\nb = 2\n", "").cut("a = 1") == "a = 1"  # two lines up: `NearbyCopies`' job
    assert LineBefore("x = 1\nx = 1", "").cut("\ny = 2") == "\ny = 2"  # the user's own line is not judged
    # lines with no letter or digit may repeat; `pass` twice in a row may not
    assert LineBefore("f(\n    g(\n        1\n    )\n", "").cut(")\n)") == ")\n)"
    assert LineBefore("if a:\n", "").cut("    pass\n    pass") == "    pass"
    assert LineBefore("", "").cut("x = 1\n\n\ny = 2") == "x = 1\n\n\ny = 2"
    assert SuggestionRules.around(before, ")").violation("x, y") == "repeats the line before"


def test_a_suggestion_that_writes_again_the_call_it_is_in_is_none() -> None:
    """Model step 5000 in the browser: `fig, axes = plt.subplots(1, 2, ` -> `plt.subplots(1, 2,
    figsize=(8, 4))`, the line typed twice (it parses: the syntax rule lets it through)."""
    head = "x = 1\nfig, axes = plt.subplots(1, 2, "
    assert EchoedCall(head).cut("plt.subplots(1, 2, figsize=(8, 4))") == ""
    assert EchoedCall(head).cut("figsize=(8, 4))") == "figsize=(8, 4))"
    assert EchoedCall("y = np.sqrt(").cut("np.abs(x))") == "np.abs(x))"  # another call: an argument
    assert SuggestionRules.around(head, ")").violation("plt.subplots(1, 2)") == "echoes the call it is in"
    assert [open_callee(h) for h in ("f(a, [1, ", 'print("a(", ', "df['a'].plot(", "z = (", "x = 1")] == [
        None, "print", "plot", None, None]
    # the search's side: such a line is dropped as it forms, so the beam offers its next likeliest
    rule = EchoStart.at(head)
    assert rule is not None and [rule.allows(t) for t in (b"plt.sub", b"plt.subplots(1", b"figsize", b" np")] == [
        None, False, True, True]
    assert EchoStart.at("x = 1") is None
    # the arguments typed so far, all or the first, written again (seen in the browser after `, `)
    heat = "sns.heatmap(penguins.corr(numeric_only=True), annot=True, "
    rule = EchoStart.at(heat)
    assert rule is not None and rule.args == ("penguins.corr(numeric_only=True), annot=True",
                                              "penguins.corr(numeric_only=True)")
    assert [rule.allows(t) for t in (b"penguins.corr(numeric_only=True), annot=False)", b"penguins.co",
                                     b"fmt='.2f')", b"penguins.mean()")] == [False, None, True, True]
    assert EchoStart.at("plt.plot(x, ") == EchoStart("plt.plot")  # short arguments: no echo to speak of
    assert open_call("x = 1\nax.plot(np.sin(t), ") == ("ax.plot", "np.sin(t), ")
    plan = DecodePlan.around(Around(head, ")", head, ")"), b"", 16, frozenset(), Choices(beam=4))
    assert plan.rules.indent is not None and plan.rules.indent.allows(b"plt.subplots(") is False


def test_line_count_six_or_a_block_just_opened_up_to_twelve() -> None:
    lines = [f"x{i} = {i}" for i in range(14)]
    assert LineCount("").cut("\n".join(lines)) == "\n".join(lines[:6])
    body = [f"    {line}" for line in lines]
    assert LineCount("def f():\n").cut("\n".join(body)) == "\n".join(body[:12])  # opened above
    assert LineCount("").cut("\n".join(["for i in y:", *body[:9], "z = 1"])) == "\n".join(["for i in y:", *body[:9]])
    assert LineCount("").limit("for i in y:\n    a\nb\nc\nd\ne\nf\ng") == 6  # the block ended early


def test_leading_space_mid_line_and_in_the_indentation() -> None:
    assert LeadingSpace("x = ").cut("  np.ones(3)") == "np.ones(3)"
    assert LeadingSpace("x =").cut("  np.ones(3)") == " np.ones(3)"
    assert LeadingSpace("y = x * ").cut("   \nz = 1") == ""  # the line cannot end there
    assert LeadingSpace("f(").cut("\n    a,") == "\n    a,"
    assert LeadingSpace("total = 0\n").cut("    total += 1") == ""  # indented where Python rejects it
    assert LeadingSpace("if x:\n").cut("    y = 1") == "    y = 1"


def test_syntax_prefix_keeps_the_longest_prefix_that_fits() -> None:
    assert SyntaxPrefix("x = ", "").cut("f(1)\ny = )") == "f(1)"
    assert SyntaxPrefix("x = np.", "").cut("rom pygorithm.geometry import (a, b)") == "rom"  # after a token
    assert SyntaxPrefix("", "").cut("for i in range(3):") == "for i in range(3):"  # the start of more
    assert SyntaxPrefix("x = (", "\ny = [").cut("1, 2)") == "1, 2)"  # broken elsewhere: nothing fits, kept
    assert SyntaxPrefix("a = 1\n", "").cut("else:") == ""
    # mid-statement nothing fits, not even nothing; where the cell parses with the line a bare `pass`,
    # a suggestion that cannot fit is dropped (the model wrote `num = = 0` in an unseen notebook)
    assert SyntaxPrefix("num = ", "").cut("= 0\nfor i in range(1, n):") == ""
    assert SyntaxPrefix("def f(n):\n    total = ", "\n    return total").cut(") + n") == ""
    # a block's header cut before its colon: the start of more (its longest start that fits with one)
    assert SyntaxPrefix("for x in my_var", "").cut("iable_alpha") == "iable_alpha"
    assert SyntaxPrefix("if n > ", "").cut("0 and\n    print(n)") == "0"
    # a docstring's first line leaves its string open: the start of more, as an open bracket is
    assert SyntaxPrefix("def power(x, n):\n    ", "").cut('"""Compute x to the n.') == '"""Compute x to the n.'
    # inside a statement that spans lines the line alone cannot tell: kept
    assert SyntaxPrefix("df = pd.DataFrame({\n    'a': ", "").cut("[1, 2],") == "[1, 2],"


def test_comment_block_unless_the_user_writes_one() -> None:
    assert CommentBlock("df = load()\n").cut("df.head()\n# a\n# b\nx = 1") == "df.head()"
    assert CommentBlock("df = load()\n").cut("# plot it\ndf.plot()") == "# plot it\ndf.plot()"
    assert CommentBlock("# Steps\n").cut("# a\n# b") == "# a\n# b"
    assert CommentBlock("x = 1  # ").cut("the\n# b") == "the\n# b"
    assert CommentBlock("def f(n):\n    ").cut('"""\n    Return it.') == ""  # a docstring's prose
    assert CommentBlock('def f(n):\n    """').cut("Return it.\n    More.") == "Return it.\n    More."


def test_a_new_line_never_starts_with_an_empty_comment_even_among_comments() -> None:
    licence = "#\n# Licensed under the Apache License, Version 2.0\n# you may not use this file"
    below_a_comment = "import pandas as pd\n\n# The following lines adjust the granularity of reporting.\n"
    assert CommentBlock(below_a_comment).cut(licence) == ""
    assert CommentBlock(below_a_comment).cut("# of reporting\npd.options.display.max_rows = 10") != ""
    assert CommentBlock("x = 1  ").cut("#") == "#"  # an inline comment begun: the user's
    assert CommentBlock("import numpy as np\n").cut("# ----------------\nx = 1") == ""


def test_spoiled_only_where_no_text_after_the_first_line_can_save_it() -> None:
    rules = SuggestionRules.around("x = 1\n", "\nprint(x)")
    assert rules.spoiled("print(x)")  # a copy of the line below: whatever follows is cut with it
    assert not rules.spoiled("y = x +")  # a line that does not parse yet may be finished by the next
    assert not rules.spoiled("")


def test_rules_apply_until_none_cuts_and_name_the_first_broken() -> None:
    rules = SuggestionRules.around("for i in range(10):\n    ", "")
    text = "for i in range(10):\n        for i in range(10):\n            print(i)"
    assert rules.violation(text) == "repeated line" and rules.enforce(text) == ""  # the loop line is its own too
    rules = SuggestionRules.around("x = ", "")
    assert rules.enforce("  1\ny = )") == "1" and rules.violation("1") is None
    assert rules.violation("1\ny = 2\ny = 2") == "repeated line"


def test_the_search_keeps_the_same_rules() -> None:
    """The beam avoids what the filter would cut: a first line copying a nearby line, a further line
    repeating the suggestion's own (at any indentation); it starts lines where `LeadingSpace` allows."""
    assert b"0" not in avoid_first("x = ", ["total = 0"]) and avoid_first("total = ", ["total = 0"]) == {b"0"}
    assert {b"total = 0", b"    total = 0"} <= avoid_first("", ["total = 0"])
    rules = FurtherLines("for x in y:\n", "", "for x in y:\n", "", read_check=False).after(b"    a = f(x)")
    assert {b"    a = f(x)", b"        a = f(x)", b"a = f(x)", b"for x in y:"} <= rules.avoid
    plan = DecodePlan.around(Around("x = ", "", "x = ", ""), b" ", 16, frozenset(), Choices(beam=8, read_check=False))
    assert plan.rules.indent is not None and plan.rules.indent.allows(b" np") is False
    greedy = DecodePlan.around(Around("if x:\n", "", "if x:\n", ""), b"", 16, frozenset(), Choices(beam=1))
    assert greedy.rules.indent is not None and greedy.rules.indent.allows(b"y") is False


def test_a_value_assigned_just_above_is_not_the_next_value() -> None:
    """Seen on the notebook benchmark: `mod_h = HurdleCountModel(y, x)`, then `res_h = ` +
    `HurdleCountModel(y, x)` (the model copies the line above) where `mod_h.fit()` was meant."""
    cell = "mod_h = HurdleCountModel(y, x)\nprint(mod_h)\nres_h = "
    assert repeated_values("res_h = ", cell) == {b"HurdleCountModel(y, x)", b"res_h"}
    assert repeated_values("res_h =", cell[:-1]) == {b" HurdleCountModel(y, x)", b" res_h"}
    assert repeated_values("res_h = mod", cell + "mod") == frozenset()  # a value begun: not asked
    assert repeated_values("a = ", "x = 1\ny = 2\nz = 3\nw = 4\na = ") == {b"2", b"3", b"4", b"a"}  # 3 lines up
    # keyword arguments in an open call share values: `sharex=True,` then `sharey=True,`
    assert repeated_values("    sharey=", "fig, ax = plt.subplots(\n    sharex=True,\n    sharey=") == frozenset()
    plan = DecodePlan.around(Around(cell, "", cell, ""), b"", 16, frozenset(), Choices(beam=8, read_check=False))
    assert b"HurdleCountModel(y, x)" in plan.rules.avoid


def test_a_name_is_not_its_own_value() -> None:
    """TheAlgorithms' random forest notebook as written in the browser: Ctrl+Space at `y = ` wrote `y`."""
    assert b"y" in repeated_values("y = ", "X = 1\ny = ")  # the search avoids it
    assert b" df['a']" in repeated_values("df['a'] =", "df['a'] =")
    assert repeated_values("a, b = ", "a, b = ") == frozenset()
    rules = SuggestionRules.around("X = 1\ny = ", "")
    assert rules.enforce("y") == "" and rules.enforce("y + 1") == "y + 1"
    assert SuggestionRules.around("", "").enforce("y = y") == ""
    assert SuggestionRules.around("f(sharex=True,\n  sharey=", "").enforce("sharey") == "sharey"  # a keyword's


def test_another_names_value_is_not_the_value() -> None:
    """Seen in a browser walk (google/eng-edu's pandas tutorial): `my_data = np.array([[0, 3], ...])`
    in a cell above, then `my_dataframe = ` + that array, shown automatically: in the training notebooks
    another name's earlier value is the value meant in 2.8% of assignments."""
    above = "import numpy as np\nmy_data = np.array([[0, 3], [10, 7]])\n\n# a comment\nnames = ['a', 'b']\n"
    assert other_names_values("my_dataframe = ", above) == {b"np.array([[0, 3], [10, 7]])", b"['a', 'b']"}
    assert other_names_values("my_dataframe =", above) == {b" np.array([[0, 3], [10, 7]])", b" ['a', 'b']"}
    # the same name's earlier value may well come again (a cell run anew), and short values are common
    assert other_names_values("my_data = ", above + "x = None\n") == {b"['a', 'b']"}
    # a value left open (a call over several lines), a value begun, inside a block, several targets
    assert other_names_values("b = ", "a = pd.DataFrame(\n    {'x': [1]})\n") == frozenset()
    assert other_names_values("b = np", above) == frozenset()
    assert other_names_values("    b = ", above) == frozenset()
    assert other_names_values("b, c = ", above) == frozenset()
    text = Around("my_dataframe = ", "", "my_dataframe = ", "", above=above)
    plan = DecodePlan.around(text, b"", 16, frozenset(), Choices(beam=8, read_check=False))
    assert b"np.array([[0, 3], [10, 7]])" in plan.rules.avoid
    # the same at a new line (TheAlgorithms' Scikit-learn notebook: `s = ` + `data`'s value, three times)
    rule = OtherNamesValue.above(above)
    assert rule is not None and not rule.fits(b"s = np.array([[0, 3], [10, 7]])")
    assert rule.fits(b"my_data = np.array([[0, 3], [10, 7]])") and rule.fits(b"s = np.array([[0, 3]])")
    assert rule.fits(b"    s = np.array([[0, 3], [10, 7]])") and rule.fits(b"print(my_data)")
    assert OtherNamesValue.above("x = 0\n") is None
    new_line = DecodePlan.around(Around(above, "", above, "", above=above), b"", 16, frozenset(),
                                 Choices(beam=8, read_check=False))
    assert new_line.rules.syntax is not None and not new_line.rules.syntax.fits(b"s = np.array([[0, 3], [10, 7]])")


def test_an_import_the_notebook_has_made_is_not_made_again() -> None:
    """Seen on the notebook benchmark: short of a line to write, the model imported again what a cell
    above imports (`import numpy as np`); never the line meant. The first line's search and each
    further line's avoid them, at any indentation; a multi-line from-import is not one line."""
    above = "import numpy as np\nfrom scipy import stats\nfrom a import (\n    b,\n)\n\nx = np.ones(3)\n\n"
    assert imports_above(above) == ["import numpy as np", "from scipy import stats"]
    plan = DecodePlan.around(Around(above, "", "", ""), b"", 16, frozenset(), Choices(beam=8, read_check=False))
    assert {b"import numpy as np", b"from scipy import stats"} <= plan.rules.avoid
    assert b"from a import (" not in plan.rules.avoid
    typed = above + "import "
    plan = DecodePlan.around(Around(typed, "", "import ", ""), b"", 16, frozenset(), Choices(beam=8, read_check=False))
    assert b"numpy as np" in plan.rules.avoid and b"pandas as pd" not in plan.rules.avoid
    further = FurtherLines.around(above + "y = 1", "", "y = 1", "").after(b"")
    assert b"    import numpy as np" in further.avoid
