"""The names a notebook's code binds and reads (`completion.code_names`), as the parser sees them."""

from ghostbook.completion.code_names import code_names

LOAD = """import pandas as pd
import matplotlib.pyplot as plt

df = pd.DataFrame({'revenue_2024': [120, 340]})
df.head()"""
MODEL = """X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
clf = LogisticRegression(max_iter=1000)
print(np.mean(clf.predict(X_test) == y_test))"""


def test_bound_and_read_names_of_real_cells() -> None:
    names = code_names(LOAD + "\n\n" + MODEL)
    assert {"pd", "plt", "df", "X_train", "X_test", "y_train", "y_test", "clf"} <= names.bound
    assert names.read[:3] == ("pd", "df", "train_test_split")  # in the order of first reading
    assert "np" not in names.bound and names.dotted == ("pd", "df", "np", "clf")
    assert names.called == ("train_test_split", "LogisticRegression", "print")


def test_every_kind_of_binding_and_no_words_from_strings_or_comments() -> None:
    text = ("def f(ax, *args, n=3, **kw):\n    return [e for e in range(n)]\n\n"
            "with open(p) as fh:\n    pass\n\ntry:\n    pass\nexcept OSError as err:\n    pass\n\n"
            "class Box(Base):\n    pass\n\n%matplotlib inline\n!pip install corner\n"
            "s = 'figure.dpi'  # plt.show() is a comment\nif (m := re.match(s, t)):\n    pass")
    names = code_names(text)
    assert {"f", "ax", "args", "n", "kw", "e", "fh", "err", "Box", "s", "m"} <= names.bound
    assert {"p", "Base", "re", "t", "OSError"} <= set(names.read)
    assert not {"figure", "plt", "matplotlib", "corner", "pip"} & set(names.read)


def test_a_cell_cut_at_the_cursor_and_a_body_after_a_blank_line_are_read_too() -> None:
    """The cell being edited does not parse (cut mid-statement): its first lines are parsed, the rest read
    by the pattern; an indented piece (a function's body after a blank line) is read dedented."""
    cut = "model = Pipeline(steps)\nfor name, est in grid:\n    fit = est.fit(Xs"
    names = code_names(cut)
    assert {"model", "name", "est", "fit"} <= names.bound and {"Pipeline", "steps", "grid", "Xs"} <= set(names.read)
    body = "def g(a):\n    b = a + 1\n\n    return scale(b)"
    assert "scale" in code_names(body).called and "b" in code_names(body).bound
