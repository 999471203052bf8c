"""Edit with AI through a real server process, a real kernel and real llama.cpp models (the shipped GGUF:
it has no chat template, so the fallback layout serves; its answer mostly copies the cell; and the real
chat model SmolLM2-135M-Instruct, `tests.chat_model`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.asking.chat_script import ScriptedChat
from tests.conftest import RunningServer, start_server, stop_server
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(180)

SHIPPED = Path(__file__).resolve().parents[2] / "notebook/ghostbook/models/default/ghostbook-fim-q8_0.gguf"


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningServer]:
    config = tmp_path / "config"
    (config / "ghostbook").mkdir(parents=True)
    (config / "ghostbook" / "settings.json").write_text(json.dumps({"completion": {"enabled": False}}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    root = tmp_path / "notebooks"
    root.mkdir()
    running = start_server(root)
    yield running
    stop_server(running)


def _notebook(server: RunningServer, name: str) -> str:
    response = httpx.post(server.base + "/api/contents", json={"dir": "", "name": name},
                          headers={"Authorization": f"token {server.token}"})
    return str(response.json()["path"])


def _saved_sources(server: RunningServer, path: str) -> list[str]:
    notebook = json.loads((server.root / path).read_text())
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in notebook["cells"]]


def test_fix_without_a_model_offers_the_import_and_changes_nothing(server: RunningServer) -> None:
    path = _notebook(server, "fix.ipynb")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        source = "x = np.zeros(3)\nx.sum()"
        await client.send({"type": "set_source", "cell_id": cell, "source": source})
        await client.send({"type": "execute_cells", "cell_ids": [cell]})
        await client.wait_idle(cell)
        assert client.outputs_of(cell)[-1]["ename"] == "NameError"

        await client.send({"type": "edit_request", "ref": "e1", "cell_id": cell, "instruction": "", "trigger": "fix"})
        proposal = await client.expect("edit_proposal", ref="e1")
        assert proposal["done"] and proposal["source"] == "rules"
        assert proposal["text"] == "import numpy as np\n" + source and proposal["range"] == [0, len(source)]
        assert "numpy" in proposal["description"]

        # an edit with no edit model chosen: the browser is told to open the settings
        await client.send({"type": "edit_request", "ref": "e2", "cell_id": cell, "instruction": "add a title"})
        error = await client.expect("edit_error", ref="e2")
        assert error["reason"] == "no_model" and "settings" in error["message"]
        # nothing changed the document
        await client.send({"type": "save", "ref": "s"})
        await asyncio.sleep(0.5)
        assert _saved_sources(server, path) == [source]
        await client.close()

    asyncio.run(scenario())


def test_bad_requests_get_clear_errors_and_the_server_keeps_serving(server: RunningServer) -> None:
    path = _notebook(server, "bad.ipynb")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await client.send({"type": "set_source", "cell_id": cell, "source": "y = 1"})
        await client.send({"type": "edit_request", "ref": "a", "cell_id": cell, "instruction": "  "})
        assert (await client.expect("edit_error", ref="a"))["reason"] == "empty"
        await client.send({"type": "edit_request", "ref": "b", "cell_id": "nosuchcell", "instruction": "x"})
        assert (await client.expect("edit_error", ref="b"))["reason"] == "cell_gone"
        await client.send({"type": "edit_request", "ref": "c", "cell_id": cell, "instruction": "", "trigger": "fix"})
        assert (await client.expect("edit_error", ref="c"))["reason"] == "no_fix"
        await client.send({"type": "edit_request", "ref": "d", "cell_id": cell, "instruction": "x",
                           "selection": [0, 99]})
        assert "selection" in (await client.expect("edit_error", ref="d"))["message"]
        await client.send({"type": "edit_request", "ref": "e", "cell_id": cell})  # malformed: no instruction
        assert "instruction" in (await client.expect("error", ref="e"))["message"]
        await client.send({"type": "update_settings", "ref": "s", "settings": {"edit_model": "default"}})
        assert "chat or instruct" in (await client.expect("error", ref="s"))["message"]
        await client.send({"type": "execute_cells", "cell_ids": [cell]})
        await client.wait_idle(cell)
        await client.close()

    asyncio.run(scenario())


def test_a_model_edit_streams_proposals_and_leaves_the_cell_alone(server: RunningServer) -> None:
    path = _notebook(server, "edit.ipynb")
    source = ("import math\n\nradii = [1, 2, 3]\nareas = []\nfor r in radii:\n    areas.append(math.pi * r ** 2)\n"
              "print(areas)")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await client.send({"type": "set_source", "cell_id": cell, "source": source})
        await client.send({"type": "update_settings", "ref": "s", "settings": {"edit_model": str(SHIPPED)}})
        await client.expect("settings", ref="s")
        await client.expect("edit_model_status", where=lambda m: m["model"]["state"] == "ready", timeout=60)

        await client.send({"type": "edit_request", "ref": "e1", "cell_id": cell,
                           "instruction": "use a list comprehension"})
        done = await client.expect("edit_proposal", ref="e1", where=lambda m: m["done"], timeout=120)
        assert done["source"] == "model" and done["range"] == [0, len(source)]
        assert done["text"].strip() and "no chat template" in done["warning"]  # a FIM model: no instruct model here
        stats = done["stats"]
        assert stats["speculative"] and 0 < stats["calls"] < stats["tokens"]

        # a selection: only its lines are rewritten
        start = source.index("for r")
        await client.send({"type": "edit_request", "ref": "e2", "cell_id": cell, "instruction": "rename r",
                           "selection": [start + 2, start + 10]})
        selected = await client.expect("edit_proposal", ref="e2", where=lambda m: m["done"], timeout=120)
        assert selected["range"] == [start, source.index("\n", start)]  # widened to its whole line

        # a tab that leaves mid-stream: its edit stops, the server keeps serving the others
        await client.send({"type": "edit_request", "ref": "e3", "cell_id": cell, "instruction": "add a docstring"})
        await client.close()
        other = await NotebookClient.connect(server, path)
        await other.expect("snapshot")
        await other.send({"type": "execute_cells", "cell_ids": [cell]})
        await other.wait_idle(cell)
        assert "28.27" in other.outputs_of(cell)[0]["text"]
        await other.send({"type": "save", "ref": "s2"})
        await asyncio.sleep(0.5)
        assert _saved_sources(server, path) == [source]
        await other.close()

    asyncio.run(scenario())


def test_a_chat_model_proposal_counts_its_model_calls(server: RunningServer, smollm2: Path) -> None:
    """A real chat model (SmolLM2-135M-Instruct) as the edit model: the summary's stats carry its model
    calls (they read 0 while the answer ran on past its fence), and its answer's prose is left out."""
    path = _notebook(server, "chat.ipynb")
    source = "total = 0\nfor n in [1, 2, 3]:\n    total += n\nprint(total)"

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await client.send({"type": "set_source", "cell_id": cell, "source": source})
        await client.send({"type": "update_settings", "ref": "s", "settings": {"edit_model": str(smollm2)}})
        await client.expect("settings", ref="s")
        await client.expect("edit_model_status", where=lambda m: m["model"]["state"] == "ready", timeout=60)
        await client.send({"type": "edit_request", "ref": "e1", "cell_id": cell, "instruction": "use sum"})
        done = await client.expect("edit_proposal", ref="e1", where=lambda m: m["done"], timeout=120)
        assert done["source"] == "model" and done["warning"] is None  # a chat template of its own
        assert "print(total)" in done["text"] and "This" not in done["text"]
        stats = done["stats"]
        assert stats["speculative"] and 0 < stats["calls"] < stats["tokens"]
        await client.close()

    asyncio.run(scenario())


def test_fix_asks_the_kernel_what_its_objects_have(server: RunningServer) -> None:
    path = _notebook(server, "attrs.ipynb")

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        first = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await client.send({"type": "set_source", "cell_id": first, "source": (
            "import pandas as pd\nclass Model:\n    def predict(self, x):\n        return x\n\nm = Model()\n"
            "df = pd.DataFrame({'total': [1, 2], 'price': [3, 4]})")})
        await client.send({"type": "insert_cell", "index": 1, "cell_id": "second", "source": "m.predcit(1)"})
        await client.send({"type": "insert_cell", "index": 2, "cell_id": "third", "source": "df['totl'].sum()"})
        for cell in (first, "second", "third"):  # one at a time: an error stops the queue
            await client.send({"type": "execute_cells", "cell_ids": [cell]})
            await client.wait_idle(cell, timeout=60)

        await client.send({"type": "edit_request", "ref": "f1", "cell_id": "second", "instruction": "",
                           "trigger": "fix"})
        proposal = await client.expect("edit_proposal", ref="f1")
        assert proposal["source"] == "rules" and proposal["text"] == "m.predict(1)"  # from the kernel's dir(m)
        await client.send({"type": "edit_request", "ref": "f2", "cell_id": "third", "instruction": "",
                           "trigger": "fix"})
        proposal = await client.expect("edit_proposal", ref="f2")
        assert proposal["source"] == "rules" and proposal["text"] == "df['total'].sum()"  # from df's columns
        await client.close()

    asyncio.run(scenario())


def test_a_fix_after_an_accepted_change_tells_the_model_the_cell_before_it(server: RunningServer) -> None:
    path = _notebook(server, "cause.ipynb")
    chat = ScriptedChat("```python\nprint(radius)\n```")
    before = "radius = 2\nprint(radius)"

    async def scenario() -> None:
        client = await NotebookClient.connect(server, path)
        cell = (await client.expect("snapshot"))["notebook"]["cells"][0]["id"]
        await client.send({"type": "set_source", "cell_id": cell, "source": "print(radius_quux_zz)"})
        await client.send({"type": "update_settings", "ref": "s", "settings": {"edit_model": chat.spec}})
        await client.expect("settings", ref="s")
        await client.send({"type": "execute_cells", "cell_ids": [cell]})
        await client.wait_idle(cell, timeout=60)

        cause = {"before": before, "instruction": "print the radius in cm"}
        await client.send({"type": "edit_request", "ref": "f1", "cell_id": cell, "instruction": "fix this error",
                           "trigger": "fix", "cause": cause})
        done = await client.expect("edit_proposal", ref="f1", where=lambda m: m["done"], timeout=60)
        assert done["source"] == "model" and done["text"] == "print(radius)"
        prompt = chat.requests[-1]["messages"][-1]["content"]
        assert "NameError" in prompt and "asking “print the radius in cm”" in prompt
        assert f"Before that change the cell was:\n```python\n{before}\n```" in prompt

        # a malformed cause is refused with a clear error; the cell and the server stay as they were
        await client.send({"type": "edit_request", "ref": "f2", "cell_id": cell, "instruction": "x",
                           "trigger": "fix", "cause": {"before": before}})
        error = await client.expect("error", ref="f2")
        assert "instruction" in error["message"]
        await client.close()
        other = await NotebookClient.connect(server, path)
        cells = (await other.expect("snapshot"))["notebook"]["cells"]
        assert [c["source"] for c in cells] == ["print(radius_quux_zz)"]
        await other.close()

    try:
        asyncio.run(scenario())
    finally:
        chat.stop()
