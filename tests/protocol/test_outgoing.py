"""Every server message is a model: what the server sends is checked against it in the test suites, and
the frontend's types are generated from the same models."""

from __future__ import annotations

import json
from typing import Any

from ghostbook import protocol as p
from ghostbook.protocol import wire
from ghostbook.protocol.schema import wire_schema


def take_violations() -> list[str]:
    found = list(wire.violations)
    wire.violations.clear()  # recorded on purpose here: not this test's failure
    return found


def test_the_suite_validates_what_the_server_sends() -> None:
    assert wire.VALIDATE  # set by tests/conftest.py before ghostbook is imported


def test_a_message_missing_a_required_field_is_caught() -> None:
    wire.encode(p.CellStateEvent.model_construct(revision=1, origin=None, cell_id="c0", state="idle"))
    (problem,) = take_violations()
    assert "execution_count" in problem and "Field required" in problem


def test_a_field_of_the_wrong_type_or_value_is_caught() -> None:
    wire.encode(p.CellStateEvent.model_construct(revision="one", origin=None, cell_id="c0", state="idle",
                                                 execution_count=None))
    wire.encode(p.KernelStatusEvent.model_construct(kernel=p.KernelInfo.model_construct(
        status="sleeping", name="python3", display_name="Python 3", reason=None, can_install=False)))
    first, second = take_violations()
    assert "revision" in first and "kernel.status" in second


def test_an_unknown_field_is_caught() -> None:
    assert "surprise" in str(wire.check('{"type": "pong", "ref": null, "surprise": 1}'))
    assert wire.check('{"type": "no_such_message"}') is not None


def test_a_plain_dict_where_a_model_belongs_is_caught() -> None:
    text = wire.encode(p.KernelStatusEvent.model_construct(kernel={"status": "idle"}))
    (problem,) = take_violations()
    assert "KernelInfo" in problem and json.loads(text) == {"type": "kernel_status", "kernel": {"status": "idle"}}


def test_a_good_message_passes_and_omitted_fields_stay_out() -> None:
    text = wire.encode(p.Suggestion.model_construct(ref="s1", cell_id="c0", cursor=3, text="x", done=True,
                                                    source="model", confidence=None))
    assert take_violations() == []
    assert json.loads(text) == {"type": "suggestion", "ref": "s1", "cell_id": "c0", "cursor": 3, "text": "x",
                                "done": True, "source": "model"}
    assert json.loads(wire.encode(p.error_message("no"))) == {"type": "error", "ref": None, "message": "no"}


def test_the_schema_holds_both_unions_and_a_renamed_field_shows() -> None:
    schema = wire_schema()
    defs = schema["$defs"]
    assert {"ClientMessage", "ServerMessage", "Output"} <= defs.keys()
    assert "execution_count" in defs["CellStateEvent"]["required"]
    assert "reloaded" not in defs["Snapshot"]["required"]  # omitted when it has no value
    assert json.dumps(schema) == json.dumps(wire_schema())  # deterministic


def _outputs() -> list[dict[str, Any]]:
    return [{"output_type": "stream", "name": "stdout", "text": "line of output\n" * 200},
            {"output_type": "display_data", "data": {"text/plain": "<Figure>", "image/png": "iVBOR" * 10_000},
             "metadata": {}}]


def test_a_run_message_built_without_validation_is_the_json_of_before() -> None:
    """The hot path (cell_state, cell_outputs) builds models with `model_construct` and serialises them with
    pydantic (`model_dump_json`, the production path: validation is on in the tests): the same JSON as the
    dicts sent before the protocol was typed. (Speed is for benchmarks, not for assertions here.)"""
    outputs = _outputs()
    state = p.CellStateEvent.model_construct(revision=7, origin=None, cell_id="c0", state="running",
                                             execution_count=None).model_dump_json(warnings=False)
    assert json.loads(state) == {"type": "cell_state", "revision": 7, "origin": None, "cell_id": "c0",
                                 "state": "running", "execution_count": None}
    sent = p.CellOutputs.model_construct(revision=7, cell_id="c0", outputs=outputs).model_dump_json(warnings=False)
    assert json.loads(sent) == {"type": "cell_outputs", "revision": 7, "cell_id": "c0", "outputs": outputs}
