"""#14.3: opening a notebook never writes it; a file that is not valid nbformat 4 is a fatal error
with its bytes untouched; what Ghostbook does not know (custom metadata, attachments) round-trips."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.conftest import RunningServer
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(90)

CUSTOM = {
    "cells": [
        {"cell_type": "markdown", "id": "md", "metadata": {"tags": ["intro"], "tool": {"x": 1}},
         "source": ["# Title\n", "![a](attachment:a.png)"], "attachments": {"a.png": {"image/png": "iVBORw0KGgo="}}},
        {"cell_type": "code", "id": "code", "execution_count": 7, "metadata": {"custom": [1, 2]},
         "source": ["x = 1\n", "x"],
         "outputs": [{"output_type": "execute_result", "execution_count": 7, "metadata": {},
                      "data": {"text/plain": ["1"]}}]},
        {"cell_type": "raw", "id": "raw", "metadata": {}, "source": "raw"},
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "My Python (not the installed name)",
                                "language": "python"},
                 "my_tool": {"nested": [1, {"deep": True}]}},
    "nbformat": 4, "nbformat_minor": 5,
}


async def open_and_wait(server: RunningServer, path: str, seconds: float) -> NotebookClient:
    client = await NotebookClient.connect(server, path)
    await client.expect("snapshot")
    await client.expect_kernel("idle", timeout=60)
    await asyncio.sleep(seconds)  # longer than any autosave delay
    return client


def test_opening_does_not_write_and_custom_metadata_round_trips(server: RunningServer) -> None:
    path = server.root / "custom.ipynb"
    path.write_text(json.dumps(CUSTOM, indent=2))  # not Jupyter's own layout: any rewrite shows
    before = path.read_bytes(), path.stat().st_mtime_ns

    async def scenario() -> None:
        client = await open_and_wait(server, "custom.ipynb", 4)
        assert (path.read_bytes(), path.stat().st_mtime_ns) == before, "opening rewrote the notebook"
        await client.send({"type": "set_source", "cell_id": "raw", "source": "edited"})
        await client.expect("save_status", timeout=10, save={"status": "saved", "message": None})
        await client.close()

    asyncio.run(scenario())
    saved = json.loads(path.read_text())
    assert [c["cell_type"] for c in saved["cells"]] == ["markdown", "code", "raw"]
    assert saved["cells"][0]["metadata"] == CUSTOM["cells"][0]["metadata"]  # type: ignore[index]
    assert saved["cells"][0]["attachments"] == CUSTOM["cells"][0]["attachments"]  # type: ignore[index]
    assert "".join(saved["cells"][0]["source"]) == "# Title\n![a](attachment:a.png)"
    assert saved["cells"][1]["metadata"] == {"custom": [1, 2]} and saved["cells"][1]["execution_count"] == 7
    assert "".join(saved["cells"][2]["source"]) == "edited"
    assert saved["metadata"]["my_tool"] == {"nested": [1, {"deep": True}]}
    assert saved["metadata"]["kernelspec"]["name"] == "python3"
    assert saved["metadata"]["kernelspec"]["language"] == "python"


@pytest.mark.parametrize("name, content, reason", [
    ("no_version.ipynb", {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# mine"}], "metadata": {}},
     "no nbformat version"),
    ("bad_cell.ipynb", {"cells": [{"cell_type": "markdown", "id": "a", "source": "# mine"}], "metadata": {},
                        "nbformat": 4, "nbformat_minor": 5}, "'metadata' is a required property"),
])
def test_a_file_that_is_not_nbformat_4_is_fatal_and_untouched(server: RunningServer, name: str,
                                                              content: dict[str, object], reason: str) -> None:
    path = server.root / name
    path.write_text(json.dumps(content))
    before = path.read_bytes(), path.stat().st_mtime_ns

    async def scenario() -> dict[str, object]:
        client = await NotebookClient.connect(server, name)
        fatal = await client.expect("fatal")
        await client.close()
        return fatal

    fatal = asyncio.run(scenario())
    assert reason in str(fatal["message"])
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_a_big_notebook_is_not_rewritten_on_open(server: RunningServer, tmp_path: Path) -> None:
    big = {"cells": [{"cell_type": "code", "id": f"c{index}", "metadata": {}, "source": f"print({index})",
                      "execution_count": index + 1,
                      "outputs": [{"output_type": "stream", "name": "stdout", "text": "y" * 50_000}]}
                     for index in range(100)],
           "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel), renamed"}},
           "nbformat": 4, "nbformat_minor": 5}
    path = server.root / "big.ipynb"
    path.write_text(json.dumps(big))
    before = path.read_bytes(), path.stat().st_mtime_ns

    async def scenario() -> None:
        client = await open_and_wait(server, "big.ipynb", 4)
        await client.close()

    asyncio.run(scenario())
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
