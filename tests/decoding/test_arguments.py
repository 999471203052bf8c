"""After a keyword argument only keyword arguments (`decoding.arguments`): the rule, and the plan
that asks for it where the cursor's call has one typed, on the cursor's line or the lines above."""

from __future__ import annotations

from ghostbook.decoding.arguments import KeywordNext
from ghostbook.decoding.plan import Around, Choices, DecodePlan
from ghostbook.decoding.syntax_fit import SyntaxFit


def test_after_a_keyword_argument_a_positional_one_is_dropped_as_it_forms() -> None:
    head = 'dta_kns[0].plot(title="Excess returns", '
    rule = KeywordNext.at(head)
    assert rule is not None
    for text in ("figsize=(12, 3))", "**kwargs)", ")", "\n    alpha=0.5)", "# the size\n"):
        assert rule.allows(text.encode()) is True, text
    for text in ("dta_kns, k_regimes=3)", '"b")', "x == 1", "1)"):
        assert rule.allows(text.encode()) is False, text
        assert not SyntaxFit(head, "\n").fits(text.encode())  # what the syntax rule says only at its end
    assert rule.allows(b"figsize") is None and rule.allows(b"") is None  # undecided: a keyword may follow


def test_the_rule_applies_only_after_a_keyword_argument_of_the_open_call() -> None:
    assert KeywordNext.at("plt.plot(x, y, ") is None  # positional arguments only
    assert KeywordNext.at("f(g(a=1), ") is None  # the keyword is another call's
    assert KeywordNext.at('d = dict(a="x, y=1", ') is not None
    assert KeywordNext.at('f(a="x, y=1") + g(b, ') is None  # the keyword's call is closed
    assert KeywordNext.at("x = [a, b == 1, ") is None  # a comparison, in a list
    assert KeywordNext.at("f(a=1, b") is None  # not at an argument's start
    spanning = 'fig = plot(\n    ax,\n    response=days,\n    colors=["red", "blue"],\n    '
    assert KeywordNext.at(spanning) is not None  # a call written one argument per line


def test_the_plan_asks_for_a_keyword_argument() -> None:
    cell = 'fig, ax = plt.subplots(1, 2, sharey=True, '
    plan = DecodePlan.around(Around(cell, ")\n", cell, ")\n"), b"", 16, frozenset(), Choices(beam=8, read_check=False))
    assert plan.rules.indent is not None
    assert plan.rules.indent.allows(b"x, y") is False and plan.rules.indent.allows(b"figsize=(8, 4)") is not False


def test_where_other_rules_hold_there_is_none() -> None:
    assert KeywordNext.at("xs = sorted(pairs, key=lambda a, ") is None  # a lambda's next parameter
    assert KeywordNext.at("def f(a, b=1, *, ") is None  # keyword-only parameters need no default
    assert KeywordNext.at("def f(a, b=1, ") is not None  # a parameter without a default may not follow


def test_a_keyword_named_as_a_variable_of_the_notebook_is_none() -> None:
    """Seen in the browser: `sns.heatmap(penguins.corr(), annot=True, ` + `penguins=False` (the model
    copies a name from the prompt). A name the notebook also passes as a keyword (`ax=ax`) stays."""
    text = 'penguins = sns.load_dataset("penguins")\nfig, ax = plt.subplots()\nsns.histplot(penguins, ax=ax)\n'
    rule = KeywordNext.at("sns.heatmap(penguins.corr(), annot=True, ", text)
    assert rule is not None and rule.variables == {"penguins", "fig"}
    assert rule.allows(b"penguins=False") is False and rule.allows(b"fig=1") is False
    assert rule.allows(b"ax=ax)") is True and rule.allows(b'cmap="vlag")') is True
