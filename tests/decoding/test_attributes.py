"""After `X.` an attribute (`decoding.attributes`): not one of the notebook's variables, one of X's
attributes where they are known, dropped as it forms in the beam and kept whole by greedy; and in
`from X import ` one of X's names."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from ghostbook.decoding import search
from ghostbook.decoding.attributes import Attributes
from ghostbook.decoding.indentation import AllStarts, start_rule
from ghostbook.decoding.plan import Around, Choices, DecodePlan
from ghostbook.decoding.tokens import TokenIndex
from ghostbook.models.backend import TokenOut

from tests.decoding.test_beam import EOT, PIECES, TableModel, beam_line, table_model

NOTEBOOK = """import matplotlib.pyplot as plt
sales = load('sales.csv')
sales.head()
fig, ax = plt.subplots(figsize=(8, 4))
ax.plot(sales.revenue, label='revenue')
model.fit(x)
"""


def test_a_name_the_notebook_uses_only_as_a_variable_is_no_attribute() -> None:
    rule = Attributes.at("y = plt.", NOTEBOOK)
    assert rule is not None and rule.owner == "plt" and rule.typed == b""
    assert not rule.fits(b"sales.head()") and not rule.fits(b"plt") and not rule.fits(b"ax")
    assert rule.fits(b"subplots()") and rule.fits(b"revenue") and rule.fits(b"fit(x)")  # written after a dot
    assert rule.fits(b"figure()")  # unknown to the notebook: the model's call
    assert rule.fits(b"figsize")  # a keyword argument only says nothing
    assert not rule.fits(b"s") and not rule.fits(b"(sales)")  # a lone letter, no name at all
    typed = Attributes.at("plt.sa", NOTEBOOK)
    assert typed is not None and typed.typed == b"sa" and not typed.fits(b"les") and typed.fits(b"vefig()")
    assert Attributes.at("x = 1.", NOTEBOOK) is None and Attributes.at("total = ", NOTEBOOK) is None
    after_call = Attributes.at("df.groupby('a').", NOTEBOOK)
    assert after_call is not None and after_call.owner is None and not after_call.fits(b"sales")


def test_with_known_attributes_only_those_and_the_notebooks_own_after_the_same_owner() -> None:
    rule = Attributes.at("fig, ax = plt.", NOTEBOOK, known=["show", "subplots", "figure"])
    assert rule is not None
    assert rule.fits(b"subplots()") and rule.fits(b"figure(figsize=(3, 3))")
    assert not rule.fits(b"plot(") and not rule.fits(b"fit(x)")  # `.fit` is `model`'s, not `plt`'s
    assert rule.allows(b"sub") is None and rule.allows(b"subplots") is None  # may go on
    assert rule.allows(b"sx") is False and rule.allows(b"sal") is False  # no allowed name starts so
    assert rule.allows(b"subplots(") is True and rule.allows(b"sub\n") is False  # a name cut short


def test_a_from_import_takes_one_of_the_modules_names() -> None:
    known = ["train_test_split", "GridSearchCV"]
    rule = Attributes.at("from sklearn.model_selection import ", NOTEBOOK, known)
    assert rule is not None and rule.fits(b"train_test_split") and not rule.fits(b"sales")
    assert rule.allows(b"train_") is None and rule.allows(b"sa") is False
    assert Attributes.at("from sklearn.model_selection import ", NOTEBOOK) is None  # nothing known, no rule
    later = Attributes.at("from sklearn.model_selection import train_test_split, ", NOTEBOOK, known)
    assert later is None


def test_a_from_import_of_a_module_the_kernel_imported_takes_one_of_its_names() -> None:
    """No table knows `holoviews`; the kernel's module has `opts`, `extension`, not the model's `ha`."""
    has = ["opts", "extension", "Curve"]
    rule = Attributes.at("from holoviews import ", NOTEBOOK, None, has)
    assert rule is not None and rule.fits(b"opts") and not rule.fits(b"ha") and not rule.fits(b"sales")
    assert rule.allows(b"ext") is None and rule.allows(b"ha") is False
    both = Attributes.at("from sklearn import ", NOTEBOOK, ["datasets", "metrics", "gone"], ["metrics", "tree"])
    assert both is not None and both.fits(b"metrics") and not both.fits(b"gone") and not both.fits(b"tree")


def test_the_beam_drops_a_variable_where_an_attribute_belongs() -> None:
    """"x" (0.6) is the notebook's variable; "a" (0.4) is the known attribute: it wins after `np.`."""
    seek, _ = table_model({(): {4: 0.6, 1: 0.4}, (4,): {3: 0.9}, (1,): {3: 0.9}})
    index = TokenIndex(PIECES, {EOT})
    assert beam_line(seek, index, {EOT}) == [4, 3]
    rule = Attributes.at("y = np.", "x = 1\ny = np.", known=["a"])
    assert rule is not None
    assert beam_line(seek, index, {EOT}, indent=rule, fits=rule.fits) == [1, 3]


def test_greedy_finishes_the_name_it_began() -> None:
    """After "a" the model would end (0.8), but only "ab" is a known name: greedy writes "b" first."""
    seek, _ = table_model({(): {1: 0.9}, (1,): {EOT: 0.8, 2: 0.1}, (1, 2): {EOT: 0.9}})
    rule = Attributes.at("y = np.", "y = np.", known=["ab"])
    assert rule is not None

    def greedy(indent: Attributes | None) -> list[int]:
        out: list[TokenOut] = []
        search.greedy(search.Run(TableModel(seek), TokenIndex(PIECES, {EOT}), {EOT}, lambda: False, out.append), 8,
                      indent=indent)
        return [t.id for t in out]

    assert greedy(None) == [1]
    assert greedy(rule) == [1, 2]


def test_greedy_does_not_stall_on_a_token_that_spells_nothing() -> None:
    """A token with no bytes (9, likeliest after "a") would leave the name half written forever."""
    pieces = [*PIECES, b""]

    def seek(tokens: Sequence[int]) -> np.ndarray:
        probs = np.full(len(pieces), 1e-6)
        if not tokens:
            probs[1] = 0.9
        elif tokens[-1] in (1, 9):
            probs[[9, EOT, 2]] = [0.7, 0.2, 0.05]
        else:
            probs[EOT] = 0.9
        return np.log(probs)

    rule = Attributes.at("y = np.", "y = np.", known=["ab"])
    out: list[TokenOut] = []
    search.greedy(search.Run(TableModel(seek), TokenIndex(pieces, {EOT}), {EOT}, lambda: False, out.append), 8,
                  indent=rule)
    assert [t.id for t in out] == [1, 2]


def test_the_plan_asks_for_it_after_a_dot_with_the_known_attributes() -> None:
    def plan(head: str, known: tuple[str, ...] | None = None) -> DecodePlan:
        text = NOTEBOOK + head
        return DecodePlan.around(Around(text, "", text, "", known), b"", 16, frozenset(), Choices(beam=4))

    rules = plan("fig, ax = plt.", ("subplots",)).rules
    assert rules.syntax is not None and rules.syntax.fits(b"subplots()") and not rules.syntax.fits(b"sales")
    assert isinstance(rules.indent, AllStarts) and rules.indent.allows(b"sal") is False
    assert rules.indent.allows(b"subp") is None
    mid_line = plan("total = s").rules
    assert mid_line.syntax is not None and mid_line.syntax.fits(b"ales") and mid_line.indent == start_rule(
        NOTEBOOK + "total = s")


def test_a_kernel_objects_attribute_is_one_it_has() -> None:
    """`has` (what the kernel's `df` has) is all there is, whatever the notebook does with a name; of a
    module's, those the table lists (or the notebook writes after it) where it lists any."""
    text = "df = load()\nrevenue = 3\nprint(df['revenue'])\ndf.profit\ndf."
    rule = Attributes.at("df.", text, has=["revenue", "head", "groupby"])
    assert rule is not None and rule.fits(b"revenue.sum()") and rule.fits(b"head()")
    assert not rule.fits(b"profit") and not rule.fits(b"revenues") and rule.allows(b"rev") is None
    assert rule.allows(b"pro") is False
    module = Attributes.at("np.", "x = np.zeros(3)\nnp.", known=["array", "float"], has=["array", "zeros", "pi"])
    assert module is not None and module.fits(b"array([1])") and module.fits(b"zeros(2)")
    assert not module.fits(b"float") and not module.fits(b"pi")  # not in numpy here; not one the table lists
    unknown_to_table = Attributes.at("np.", "np.", known=["float"], has=["pi"])
    assert unknown_to_table is not None and unknown_to_table.fits(b"pi")
