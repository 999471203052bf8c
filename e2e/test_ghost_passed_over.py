"""A suggestion passed over is not shown again after the next pause in that cell, as a user sees it
with the shipped model: the browser walk of TheAlgorithms' random forest notebook got
`import seaborn as sns` after each of five pauses below its imports."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .ghost_helpers import ghost, shot, type_and_settle, wait_ghost_done
from .helpers import Server, cells, open_notebook, set_cell_source, write_notebook

IMPORTS = "# Importing the libraries\nimport numpy as np\nimport matplotlib.pyplot as plt\nimport pandas as pd"


@pytest.fixture
def completion_settings() -> dict[str, object]:
    return {"model": "default"}  # the shipped model, automatic requests after the usual pause


def test_an_import_typed_over_is_not_offered_at_the_next_lines(server: Server, page: Page) -> None:
    write_notebook(server.root / "forest.ipynb", [("code", "")])
    open_notebook(page, server.url("/notebooks/forest.ipynb"))
    cell = cells(page).nth(0)
    set_cell_source(page, cell, IMPORTS)
    page.keyboard.press("Control+End")
    assert type_and_settle(page, cell, "\n") == "shown"
    assert wait_ghost_done(page) == "import seaborn as sns"
    # the user types another line instead: the ghost text goes, reported dismissed
    for line in ("from sklearn.model_selection import train_test_split",
                 "from sklearn.preprocessing import StandardScaler"):
        page.keyboard.type(line)
        assert type_and_settle(page, cell, "\n") == "empty" or ghost(page).text_content() != "import seaborn as sns"
    shot(page, "ghost-passed-over.png")
    page.keyboard.press("Control+Space")  # asked: it answers, the same line included
    assert wait_ghost_done(page)
