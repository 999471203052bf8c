"""A suggestion the user passed over is not shown again in that cell after a pause
(`completion.passed_over`): the shipped model, the real service."""

from __future__ import annotations

from pathlib import Path

from ghostbook import protocol as p
from ghostbook.completion.passed_over import PassedOver
from ghostbook.completion.service import CompletionService
from ghostbook.completion.settings import SettingsStore

from tests.completion.conftest import FakeCell, Outbox

IMPORTS = "# Importing the libraries\nimport numpy as np\nimport matplotlib.pyplot as plt\nimport pandas as pd\n"
TYPED = ["from sklearn.model_selection import train_test_split\n", "from sklearn.preprocessing import StandardScaler\n"]


def test_a_dismissed_line_is_held_in_its_cell_for_its_user_only() -> None:
    passed = PassedOver()
    passed.sent("r1", "ann", "c1", "", "import seaborn as sns\nimport os")
    assert not passed.holds("ann", "c1", "", "import seaborn as sns")  # not dismissed (yet)
    passed.dismissed("r1")
    assert passed.holds("ann", "c1", "", "import seaborn as sns")
    assert passed.holds("ann", "c1", "import ", "seaborn as sns ")  # the same line, begun by hand
    assert not passed.holds("bob", "c1", "", "import seaborn as sns")
    assert not passed.holds("ann", "c2", "", "import seaborn as sns")
    passed.dismissed("unknown")  # a ref it never sent: nothing happens


async def pauses(tmp_path: Path, report: bool, trigger: str = "auto") -> list[str]:
    """Write the imports' cell line by line as in the browser walk, a pause at each new line; with
    `report`, the editor reports each shown suggestion dismissed (the user typed something else)."""
    store = SettingsStore(tmp_path / "settings.json")
    store.update({"model": "default"})
    cells = [FakeCell("a", "code", IMPORTS)]
    out = Outbox()
    service = CompletionService(lambda: cells, out.send, out.broadcast, None, store=store)
    shown = []
    try:
        for k, typed in enumerate([*TYPED, ""]):
            await service.suggest("ann", p.Suggest(type="suggest", ref=f"r{k}", cell_id="a",
                                                   cursor=len(cells[0].source), trigger=trigger))  # type: ignore[arg-type]
            shown.append(str(out.of("suggestion", f"r{k}")[-1]["text"]))
            if report and shown[-1]:
                await service.handle("ann", p.SuggestFeedback(type="suggest_feedback", ref=f"r{k}", event="dismissed"))
            cells[0].source += typed
    finally:
        await service.close()
        await service.registry.close()
    return shown


async def test_an_import_passed_over_is_not_offered_again_at_the_next_lines(tmp_path: Path) -> None:
    """The browser walk of TheAlgorithms' random forest notebook: `import seaborn as sns` after each of
    five pauses below the imports, the user typing something else each time."""
    assert await pauses(tmp_path, report=False) == ["import seaborn as sns"] * 3  # as it was
    first, *later = await pauses(tmp_path, report=True)
    assert first == "import seaborn as sns" and "import seaborn as sns" not in later


async def test_ctrl_space_still_answers_with_it(tmp_path: Path) -> None:
    assert (await pauses(tmp_path, report=True, trigger="forced"))[1] == "import seaborn as sns"
