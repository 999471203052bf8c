"""What the notebook repeats (#16), as a user sees it with the shipped default model: the import a
notebook lacks on a new line below its imports, and the next of a numbered pair (`ax1`, `ax2`)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .ghost_helpers import doc_text, shot, wait_ghost_done
from .helpers import Server, cells, open_notebook, type_in_cell, write_notebook

IMPORTS = "import numpy as np\nimport pandas as pd"
PLOT = "x = np.linspace(0, 1, 50)\nplt.plot(x, np.sin(x))\nplt.show()"
FIGURE = "fig = plt.figure(figsize=(8, 6))\nax1 = fig.add_subplot(211)\nax1.plot(x, np.sin(x))"


@pytest.fixture
def completion_settings() -> dict[str, object]:
    # the shipped model with the editor's default decoding; no automatic requests
    return {"model": "default", "debounce_ms": 10_000}


def test_a_new_line_below_the_imports_offers_the_missing_import(server: Server, page: Page) -> None:
    write_notebook(server.root / "plot.ipynb", [("code", IMPORTS), ("code", PLOT)])
    open_notebook(page, server.url("/notebooks/plot.ipynb"))
    cell = cells(page).nth(0)
    type_in_cell(page, cell, "\n")
    page.keyboard.press("Control+Space")
    assert wait_ghost_done(page).split("\n")[0] == "import matplotlib.pyplot as plt"
    shot(page, "repeats-import.png")
    page.keyboard.press("Tab")
    assert doc_text(cell).split("\n")[-1] == "import matplotlib.pyplot as plt"


def test_the_next_of_a_numbered_pair_follows_the_first(server: Server, page: Page) -> None:
    write_notebook(server.root / "axes.ipynb", [("code", IMPORTS + "\nimport matplotlib.pyplot as plt"),
                                                  ("code", FIGURE + "\n")])
    open_notebook(page, server.url("/notebooks/axes.ipynb"))
    cell = cells(page).nth(1)
    type_in_cell(page, cell, "ax2 = ")
    page.keyboard.press("Control+Space")
    assert wait_ghost_done(page).split("\n")[0] == "fig.add_subplot(212)"
    shot(page, "repeats-analogy.png")
