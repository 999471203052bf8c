"""The edit engine: rules before the model, the answer rendered into the range, errors as EditError, and
speculative edits giving plain greedy's text through the editor's own path (the shipped GGUF)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ghostbook.completion.context import CellText
from ghostbook.editing.engine import EditEngine, EditError, EditRequest, Proposal
from ghostbook.editing.errors_text import ErrorInfo
from ghostbook.editing.models import InProcessModel
from ghostbook.models.loader import open_backend

SHIPPED = Path(__file__).resolve().parents[2] / "notebook/ghostbook/models/default/ghostbook-fim-q8_0.gguf"
CELL = "import math\n\nradii = [1, 2, 3]\nareas = []\nfor r in radii:\n    areas.append(math.pi * r ** 2)\nprint(areas)"


class ScriptedAnswer:
    """A chat model's answer, given in pieces (no instruct model runs on this machine); `fail_after`:
    raise as a server that breaks off mid-answer."""

    def __init__(self, pieces: list[str], fail_after: int | None = None) -> None:
        self.pieces, self.fail_after = pieces, fail_after
        self.name, self.caveat, self.context = "scripted", None, 4096
        self.seen: list[list[dict[str, str]]] = []
        self.drafts: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text) // 3 + 1

    async def stream(self, messages: list[dict[str, str]], draft: str, cancel: threading.Event,
                     max_tokens: int) -> AsyncIterator[str]:
        self.seen.append(messages)
        self.drafts.append(draft)
        for i, piece in enumerate(self.pieces):
            if self.fail_after is not None and i == self.fail_after:
                raise RuntimeError("the server broke off the connection")
            yield piece

    def stats(self) -> dict[str, Any]:
        return {"calls": 0, "tokens": len(self.pieces), "speculative": False}


def _run(engine: EditEngine, request: EditRequest) -> list[Proposal]:
    async def collect() -> list[Proposal]:
        return [p async for p in engine.propose(request, threading.Event())]

    return asyncio.run(collect())


def _request(source: str = CELL, **fields: Any) -> EditRequest:
    return EditRequest([CellText("markdown", "# Areas"), CellText("code", source)], 1, fields.pop("instruction", "x"),
                       **fields)


def test_a_provable_fix_needs_no_model() -> None:
    error = ErrorInfo("NameError", "name 'np' is not defined", ["NameError: name 'np' is not defined"])
    [proposal] = _run(EditEngine(None), _request("x = np.ones(2)", trigger="fix", error=error, instruction=""))
    assert proposal.source == "rules" and proposal.done
    assert proposal.text == "import numpy as np\nx = np.ones(2)"


def test_without_a_model_or_an_error_the_engine_says_what_is_missing() -> None:
    with pytest.raises(EditError) as raised:
        _run(EditEngine(None), _request(instruction="add a title"))
    assert raised.value.reason == "no_model"
    with pytest.raises(EditError) as raised:
        _run(EditEngine(None), _request(trigger="fix", instruction=""))
    assert raised.value.reason == "no_fix"
    with pytest.raises(EditError) as raised:
        _run(EditEngine(ScriptedAnswer([])), _request(instruction=" \n"))
    assert raised.value.reason == "empty"


def test_the_answer_streams_into_the_range_and_prose_is_left_out() -> None:
    model = ScriptedAnswer(["Sure! Here",
                            " it is:\n```python\nimport math\n\nradii = [1, 2, 3]\n",
                            "areas = [math.pi * r ** 2 for r in radii]\nprint(areas)\n",
                            "```\nThis uses a comprehension."])
    proposals = _run(EditEngine(model), _request(instruction="use a list comprehension"))
    assert [p.done for p in proposals] == [False, False, True]
    assert proposals[-1].text == ("import math\n\nradii = [1, 2, 3]\nareas = [math.pi * r ** 2 for r in radii]\n"
                                  "print(areas)")
    assert proposals[-1].range == (0, len(CELL)) and proposals[-1].warning is None
    assert model.drafts == ["```python\n" + CELL + "\n```"]
    user = model.seen[0][-1]["content"]
    assert "use a list comprehension" in user and "# Areas" in "".join(m["content"] for m in model.seen[0])


def test_a_follow_up_drafts_from_the_proposal_and_a_broken_answer_is_flagged() -> None:
    previous = "import math\nareas = [math.pi * r ** 2 for r in [1, 2, 3]]\nprint(areas)"
    model = ScriptedAnswer(["```python\nareas = [math.pi * r ** 2 for r in [1, 2, 3]\n```"])
    *_, final = _run(EditEngine(model), _request(instruction="drop the import", previous=previous))
    assert model.drafts == ["```python\n" + previous + "\n```"]
    assert final.warning and "parse" in final.warning


def test_no_code_and_a_model_error_mid_stream() -> None:
    with pytest.raises(EditError) as raised:
        _run(EditEngine(ScriptedAnswer(["I cannot help with that."])), _request(instruction="x"))
    assert raised.value.reason == "no_code" and "cannot help" in str(raised.value)
    with pytest.raises(RuntimeError, match="broke off"):
        _run(EditEngine(ScriptedAnswer(["```python\nimport math\n", "x"], fail_after=1)), _request(instruction="x"))


def test_speculative_edits_give_greedy_text_in_fewer_calls_through_the_engine() -> None:
    backend = open_backend(SHIPPED)
    try:
        finals = {}
        for speculative in (False, True):
            model = InProcessModel(backend, speculative)
            [*_, final] = _run(EditEngine(model), _request(instruction="use a list comprehension"))
            finals[speculative] = final
        assert finals[True].text == finals[False].text
        plain, fast = finals[False].stats, finals[True].stats
        assert plain is not None and fast is not None and plain.tokens == fast.tokens
        assert plain.calls == plain.tokens and fast.calls < plain.calls
    finally:
        backend.unload()


def test_a_missing_package_points_at_the_install_button() -> None:
    said = "No module named 'sklearn'"
    error = ErrorInfo("ModuleNotFoundError", said, [f"ModuleNotFoundError: {said}"])
    with pytest.raises(EditError) as raised:
        _run(EditEngine(None), _request("import sklearn", trigger="fix", error=error, instruction=""))
    assert raised.value.reason == "no_fix" and "Install" in str(raised.value)
